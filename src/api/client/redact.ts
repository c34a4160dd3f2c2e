/**
 * Scrubbing the client's own secrets out of anything a server (or a proxy) sends back, in every
 * form an echo can take: the secret as is, JSON-escaped, URL-encoded, base64 (standard and
 * URL-safe, padded or not) of the secret and of `user:secret`. In JSON bytes a secret may also
 * hide behind `\uXXXX` escapes: string literals holding a backslash are decoded and checked too.
 */

const MARK = '[redacted]';
const MARK_BYTES = Buffer.from(MARK);
const PADDED_MARK = /\[redacted\]={1,2}/g;
/** Secrets shorter than this are not scrubbed from server text (it would mangle every message). */
export const MIN_NEEDLE = 4;

function base64Forms(text: string): string[] {
  const std = Buffer.from(text, 'utf8').toString('base64');
  const url = std.replace(/\+/g, '-').replace(/\//g, '_');
  return [std, std.replace(/=+$/, ''), url, url.replace(/=+$/, '')];
}

function jsonEscapedForms(text: string): string[] {
  const plain = JSON.stringify(text).slice(1, -1);
  const hex = (c: string, upper: boolean): string => {
    const h = c.charCodeAt(0).toString(16).padStart(4, '0');
    return `\\u${upper ? h.toUpperCase() : h}`;
  };
  // eslint-disable-next-line no-control-regex -- matches everything outside ASCII, NUL included
  const nonAscii = (upper: boolean): string => plain.replace(/[^\u0000-\u007f]/g, (c) => hex(c, upper));
  return [plain, plain.replace(/\//g, '\\/'), nonAscii(false), nonAscii(true)];
}

function urlEncodedForms(text: string): string[] {
  const strict = encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const lower = strict.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());
  return [encodeURIComponent(text), strict, lower, strict.replace(/%20/g, '+')];
}

/**
 * Every encoded form of a secret worth scrubbing: the secret, its JSON-escaped and URL-encoded
 * forms, base64 of the secret and, with a user name, of `user:secret` (the Basic credentials).
 * Forms shorter than MIN_NEEDLE are left out; the longest come first.
 */
export function secretNeedles(secret: string, username?: string): string[] {
  if (secret.length < MIN_NEEDLE) return [];
  const forms = [secret, ...jsonEscapedForms(secret), ...urlEncodedForms(secret), ...base64Forms(secret)];
  if (username !== undefined) {
    const pair = `${username}:${secret}`;
    forms.push(pair, ...base64Forms(pair), ...urlEncodedForms(pair));
  }
  return [...new Set(forms.filter((f) => f.length >= MIN_NEEDLE))].sort((a, b) => b.length - a.length);
}

/** Replaces every occurrence of the client's secrets in text, JSON values and bytes; counts what it replaced. */
export class Redactor {
  readonly #needles: readonly string[];
  readonly #needleBytes: readonly Buffer[];
  /** some needles are unpadded base64: their padding is taken with them */
  readonly #padded: boolean;
  /** occurrences replaced so far, by every method */
  replaced = 0;

  constructor(needles: readonly string[]) {
    // a padded base64 form is found through its unpadded one (one scan less per body); the
    // longest forms are replaced first, so `user:secret` forms go whole
    const all = new Set(needles.filter((x) => x.length > 0));
    this.#needles = [...all]
      .filter((n) => !(n.endsWith('=') && all.has(n.replace(/=+$/, ''))))
      .sort((a, b) => b.length - a.length);
    this.#needleBytes = this.#needles.map((n) => Buffer.from(n, 'utf8'));
    this.#padded = this.#needles.some((n) => /^[A-Za-z0-9+/_-]+$/.test(n));
  }

  /** True when there is nothing to scrub. */
  get empty(): boolean {
    return this.#needles.length === 0;
  }

  /** The text with every secret replaced by `[redacted]`. */
  text(text: string): string {
    let out = text;
    for (const n of this.#needles) {
      if (!out.includes(n)) continue;
      const parts = out.split(n);
      this.replaced += parts.length - 1;
      out = parts.join(MARK);
    }
    return this.#padded && out.includes(`${MARK}=`) ? out.replace(PADDED_MARK, MARK) : out;
  }

  /** True when the text holds a secret in any form. */
  holds(text: string): boolean {
    return this.#needles.some((n) => text.includes(n));
  }

  /**
   * A copy of a JSON value with secrets replaced in every string (keys included), walked without
   * recursion so that no nesting depth can overflow the stack; the same value when clean.
   */
  deep<T>(value: T): T {
    if (this.#needles.length === 0) return value;
    const before = this.replaced;
    const root = { v: value as unknown };
    const stack: { holder: Record<string, unknown> | unknown[]; key: string | number }[] = [
      { holder: root as Record<string, unknown>, key: 'v' },
    ];
    while (stack.length > 0) {
      const { holder, key } = stack.pop()!;
      const v = (holder as Record<string | number, unknown>)[key];
      if (typeof v === 'string') {
        const t = this.text(v);
        if (t !== v) (holder as Record<string | number, unknown>)[key] = t;
      } else if (Array.isArray(v)) {
        const copy = v.slice();
        (holder as Record<string | number, unknown>)[key] = copy;
        for (let i = 0; i < copy.length; i++) stack.push({ holder: copy, key: i });
      } else if (v !== null && typeof v === 'object' && !(v instanceof Uint8Array)) {
        const copy: Record<string, unknown> = {};
        for (const k of Object.keys(v)) copy[this.text(k)] = (v as Record<string, unknown>)[k];
        (holder as Record<string | number, unknown>)[key] = copy;
        for (const k of Object.keys(copy)) stack.push({ holder: copy, key: k });
      }
    }
    return this.replaced === before ? value : (root.v as T);
  }

  /**
   * The bytes with every secret replaced, in its plain and encoded forms and inside JSON string
   * literals that spell it with escapes; the same buffer when clean.
   */
  bytes(body: Buffer): Buffer {
    if (this.#needles.length === 0 || body.length === 0) return body;
    let out = body;
    for (const n of this.#needleBytes) {
      if (out.indexOf(n) === -1) continue;
      const parts: Buffer[] = [];
      let from = 0;
      for (let at = out.indexOf(n); at !== -1; at = out.indexOf(n, from)) {
        parts.push(out.subarray(from, at), MARK_BYTES);
        from = at + n.length;
        // the `=` padding of a base64 form found through its unpadded needle goes with it
        for (let pad = 0; pad < 2 && this.#padded && out[from] === 0x3d; pad++) from++;
        this.replaced++;
      }
      parts.push(out.subarray(from));
      out = Buffer.concat(parts);
    }
    return this.#escapedLiterals(out);
  }

  /** Rewrites JSON string literals that hold a backslash and decode to text with a secret. */
  #escapedLiterals(buf: Buffer): Buffer {
    let slash = buf.indexOf(0x5c);
    if (slash === -1) return buf;
    const parts: Buffer[] = [];
    let from = 0;
    while (slash !== -1) {
      const open = openingQuote(buf, slash, from);
      const close = open === -1 ? -1 : closingQuote(buf, slash);
      if (open === -1 || close === -1) {
        slash = buf.indexOf(0x5c, slash + 2);
        continue;
      }
      let decoded: unknown;
      try {
        decoded = JSON.parse(buf.toString('utf8', open, close + 1));
      } catch {
        decoded = undefined;
      }
      if (typeof decoded === 'string' && this.holds(decoded)) {
        parts.push(buf.subarray(from, open), Buffer.from(JSON.stringify(this.text(decoded)), 'utf8'));
        from = close + 1;
      }
      slash = buf.indexOf(0x5c, close + 1);
    }
    if (parts.length === 0) return buf;
    parts.push(buf.subarray(from));
    return Buffer.concat(parts);
  }
}

/** Whether the quote at `i` is escaped (an odd run of backslashes before it). */
function escaped(buf: Buffer, i: number): boolean {
  let n = 0;
  for (let j = i - 1; j >= 0 && buf[j] === 0x5c; j--) n++;
  return n % 2 === 1;
}

/** The unescaped `"` that opens the literal holding the backslash at `at` (not before `floor`), or -1. */
function openingQuote(buf: Buffer, at: number, floor: number): number {
  for (let i = buf.lastIndexOf(0x22, at); i >= floor; i = buf.lastIndexOf(0x22, i - 1)) {
    if (i < 0) return -1;
    if (!escaped(buf, i)) return i;
    if (i === 0) return -1;
  }
  return -1;
}

/** The unescaped `"` that closes the literal holding the backslash at `at`, or -1. */
function closingQuote(buf: Buffer, at: number): number {
  for (let i = buf.indexOf(0x22, at + 1); i !== -1; i = buf.indexOf(0x22, i + 1)) {
    if (!escaped(buf, i)) return i;
  }
  return -1;
}
