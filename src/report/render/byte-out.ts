/**
 * Text written as UTF-8 bytes into a buffer and handed over in chunks of about CHUNK bytes, each
 * a Buffer of its own that is never written again (a stream may hold it until the OS takes it).
 * A chunk ends between two items (`boundary`), never inside a character; an item may still be
 * rewound (`pos = start`) until the next boundary, as the buffer grows instead of being cut
 * within an item.
 */

/** Bytes handed over per chunk, about: below the 128 KB from which malloc maps fresh pages for each buffer. */
export const CHUNK = 64 * 1024;

/** A growing byte buffer handing over its chunks at item boundaries. */
export class ByteOut {
  /** the buffer being filled; writers write at `pos` after `ensure` */
  buf: Buffer;
  /** the next byte to write */
  pos = 0;
  readonly #emit: (chunk: Buffer) => void;
  readonly #chunk: number;

  constructor(emit: (chunk: Buffer) => void, chunk = CHUNK) {
    this.#emit = emit;
    this.#chunk = chunk;
    this.buf = Buffer.allocUnsafe(chunk + chunk / 4);
  }

  /** Makes room for `n` more bytes (the buffer grows; nothing is handed over here). */
  ensure(n: number): void {
    if (this.pos + n > this.buf.length) this.#grow(n);
  }

  #grow(n: number): void {
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /** Appends bytes (a fragment made once, such as a key with its indentation). */
  bytes(b: Uint8Array): void {
    const n = b.length;
    if (this.pos + n > this.buf.length) this.#grow(n);
    this.buf.set(b, this.pos);
    this.pos += n;
  }

  /** Appends a string of printable ASCII (digits, names made by the writers themselves). */
  ascii(s: string): void {
    const n = s.length;
    if (this.pos + n > this.buf.length) this.#grow(n);
    const b = this.buf;
    let p = this.pos;
    for (let i = 0; i < n; i++) b[p++] = s.charCodeAt(i);
    this.pos = p;
  }

  /** Appends any string as UTF-8: ASCII byte by byte, anything else as text does. */
  string(s: string): void {
    const n = s.length;
    if (this.pos + n > this.buf.length) this.#grow(n);
    const b = this.buf;
    const start = this.pos;
    let p = start;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) {
        this.pos = start;
        this.text(s);
        return;
      }
      b[p++] = c;
    }
    this.pos = p;
  }

  /** Appends `n` spaces (none when `n` is not positive). */
  spaces(n: number): void {
    if (n <= 0) return;
    if (this.pos + n > this.buf.length) this.#grow(n);
    const b = this.buf;
    const end = this.pos + n;
    for (let p = this.pos; p < end; p++) b[p] = 0x20;
    this.pos = end;
  }

  /** Appends any string as UTF-8 (lone surrogates as U+FFFD, as Buffer.from writes them). */
  text(s: string): void {
    this.ensure(s.length * 3);
    this.pos += this.buf.write(s, this.pos);
  }

  /** Between two items: hands the bytes written so far over once they fill a chunk. */
  boundary(): void {
    if (this.pos >= this.#chunk) this.#handOver();
  }

  /** Hands over what is left (at the end). */
  end(): void {
    if (this.pos > 0) this.#handOver();
  }

  #handOver(): void {
    const full = this.buf.subarray(0, this.pos);
    this.buf = Buffer.allocUnsafe(this.#chunk + this.#chunk / 4);
    this.pos = 0;
    this.#emit(full);
  }
}
