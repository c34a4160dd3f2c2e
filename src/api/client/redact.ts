/** Scrubbing the client's own secrets out of anything a server (or a proxy) sends back. */

const MARK = '[redacted]';
const MARK_BYTES = Buffer.from(MARK);

/** Replaces every occurrence of the client's secrets in text, JSON values and bytes. */
export class Redactor {
  readonly #needles: readonly string[];
  readonly #needleBytes: readonly Buffer[];

  constructor(needles: readonly string[]) {
    this.#needles = needles.filter((n) => n.length > 0);
    this.#needleBytes = this.#needles.map((n) => Buffer.from(n, 'utf8'));
  }

  /** The text with every secret replaced by `[redacted]`. */
  text(text: string): string {
    let out = text;
    for (const n of this.#needles) if (out.includes(n)) out = out.split(n).join(MARK);
    return out;
  }

  /** A deep copy of a JSON value with secrets replaced in every string (keys included); the same value when clean. */
  deep<T>(value: T): T {
    if (this.#needles.length === 0) return value;
    const text = JSON.stringify(value);
    if (text === undefined || !this.#needles.some((n) => text.includes(n))) return value;
    return this.#walk(value) as T;
  }

  /** The bytes with every secret replaced; the same buffer when clean. */
  bytes(body: Buffer): Buffer {
    let out = body;
    for (const n of this.#needleBytes) {
      if (out.indexOf(n) === -1) continue;
      const parts: Buffer[] = [];
      let from = 0;
      for (let at = out.indexOf(n); at !== -1; at = out.indexOf(n, from)) {
        parts.push(out.subarray(from, at), MARK_BYTES);
        from = at + n.length;
      }
      parts.push(out.subarray(from));
      out = Buffer.concat(parts);
    }
    return out;
  }

  #walk(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) return value.map((v) => this.#walk(v));
    if (value !== null && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[this.text(k)] = this.#walk(v);
      return out;
    }
    return value;
  }
}
