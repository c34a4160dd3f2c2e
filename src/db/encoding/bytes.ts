/**
 * Compact binary encoding for the history store: unsigned LEB128 varints, zigzag for signed
 * values, exact for any bigint (values beyond 2^52 take a slower bigint path), and strings.
 * The reader checks its bounds: a value running past its blob throws CorruptDataError.
 */
import { CorruptDataError } from '../errors.ts';

/** 2^51: an integer below it in magnitude zigzags into a safe float integer. */
const FAST_NUM = 2 ** 51;
const NS = 1_000_000_000n;
const utf8 = new TextEncoder();
/** ignoreBOM: a string that starts with U+FEFF keeps it (the default decoder drops it) */
const utf8Decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/** A growable byte buffer with varint writers. */
export class ByteWriter {
  #buf: Uint8Array;
  #pos = 0;

  constructor(capacity = 1024) {
    this.#buf = new Uint8Array(capacity);
  }

  /** Bytes written so far. */
  get length(): number {
    return this.#pos;
  }

  #ensure(extra: number): void {
    if (this.#pos + extra <= this.#buf.length) return;
    let size = this.#buf.length * 2;
    while (size < this.#pos + extra) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.#buf.subarray(0, this.#pos));
    this.#buf = next;
  }

  /** Writes a non-negative safe integer as an unsigned varint. */
  uint(n: number): void {
    this.#ensure(8);
    const buf = this.#buf;
    let p = this.#pos;
    if (n < 0x80000000) {
      // 31 bits: integer arithmetic
      while (n >= 128) {
        buf[p++] = (n & 127) | 128;
        n >>>= 7;
      }
    } else {
      while (n >= 128) {
        buf[p++] = (n % 128) | 128;
        n = Math.floor(n / 128);
      }
    }
    buf[p++] = n;
    this.#pos = p;
  }

  /** Writes an integer with |n| < 2^52 (either sign; its zigzag form stays safe) as a zigzag varint. */
  int(n: number): void {
    this.uint(n >= 0 ? n * 2 : -n * 2 - 1);
  }

  /** Writes any bigint as a zigzag varint (exact at any size). */
  big(v: bigint): void {
    const n = Number(v); // rounded beyond 2^53, but then outside the fast zone
    if (n < FAST_NUM && n > -FAST_NUM) {
      this.uint(n >= 0 ? n * 2 : -n * 2 - 1);
      return;
    }
    let z = v >= 0n ? v << 1n : (-v << 1n) - 1n;
    this.#ensure(16);
    while (z >= 128n) {
      this.#ensure(1);
      this.#buf[this.#pos++] = Number(z & 127n) | 128;
      z >>= 7n;
    }
    this.#ensure(1);
    this.#buf[this.#pos++] = Number(z);
  }

  /** Writes a number-or-bigint value (see `Num`). */
  num(v: Num): void {
    if (typeof v === 'number') this.int(v);
    else this.big(v);
  }

  /** Writes raw bytes. */
  bytes(b: Uint8Array): void {
    this.#ensure(b.length);
    this.#buf.set(b, this.#pos);
    this.#pos += b.length;
  }

  /** Writes a length-prefixed string (UTF-16 code units kept exactly, lone surrogates included). */
  string(s: string): void {
    if (isWellFormed(s)) {
      const b = utf8.encode(s);
      this.uint(b.length * 2);
      this.bytes(b);
    } else {
      this.uint(s.length * 2 + 1);
      for (let i = 0; i < s.length; i++) this.uint(s.charCodeAt(i));
    }
  }

  /** Writes a time or duration in nanoseconds as whole seconds and nanoseconds (two fast varints). */
  time(ns: bigint): void {
    let sec = ns / NS;
    let nano = ns % NS;
    if (nano < 0n) {
      sec -= 1n;
      nano += NS;
    }
    this.big(sec);
    this.uint(Number(nano));
  }

  /** Writes a 32-bit little-endian unsigned integer. */
  u32(n: number): void {
    this.#ensure(4);
    const buf = this.#buf;
    buf[this.#pos++] = n & 255;
    buf[this.#pos++] = (n >>> 8) & 255;
    buf[this.#pos++] = (n >>> 16) & 255;
    buf[this.#pos++] = (n >>> 24) & 255;
  }

  /** Bytes [start, end) written so far, as a view that later writes may change (no copy). */
  view(start: number, end: number): Uint8Array {
    return this.#buf.subarray(start, Math.min(end, this.#pos));
  }

  /** Drops the first `n` bytes written: what followed them moves to the start. */
  drop(n: number): void {
    const k = Math.min(Math.max(0, n), this.#pos);
    this.#buf.copyWithin(0, k, this.#pos);
    this.#pos -= k;
  }

  /** The bytes written, as a Buffer sharing no memory with later writes. */
  finish(): Buffer {
    return Buffer.from(this.#buf.subarray(0, this.#pos));
  }
}

/** An integer held as a number while |v| < 2^51 (so sums and differences stay exact), else a bigint. */
export type Num = number | bigint;

/** `a - b` exactly (numbers stay numbers while |result| < 2^51). */
export function subNum(a: Num, b: Num): Num {
  if (typeof a === 'number' && typeof b === 'number') {
    const d = a - b; // exact: both operands are below 2^51
    return d < FAST_NUM && d > -FAST_NUM ? d : BigInt(d);
  }
  return normal(BigInt(a) - BigInt(b));
}

const NORMAL_MAX = 0x8000000000000n;
/** A bigint as a number when |v| < 2^51 (the fast zone), else itself. */
export function normal(v: bigint): Num {
  return v < NORMAL_MAX && v > -NORMAL_MAX ? Number(v) : v;
}

/** A Num as a bigint. */
export function toBig(v: Num): bigint {
  return typeof v === 'bigint' ? v : BigInt(v);
}

/** True when `v` is zero. */
export function isZero(v: Num): boolean {
  return v === 0 || v === 0n;
}

/** Reads what ByteWriter wrote. */
export class ByteReader {
  readonly #buf: Uint8Array;
  #asBuffer: Buffer | undefined;
  pos: number;

  constructor(buf: Uint8Array, pos = 0) {
    this.#buf = buf;
    this.pos = pos;
  }

  #buffer(): Buffer {
    const b = this.#buf;
    return (this.#asBuffer ??= Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength));
  }

  /** True when every byte has been read (up to `end`). */
  atEnd(end = this.#buf.length): boolean {
    return !(this.pos < end); // NaN counts as the end: no loop over a broken position
  }

  /** Reads an unsigned varint that fits a safe integer. */
  uint(): number {
    const buf = this.#buf;
    let p = this.pos;
    let b = buf[p++]!;
    if (b < 128) {
      this.pos = p;
      return b;
    }
    let result = b & 127;
    let mul = 128;
    do {
      b = buf[p++]!;
      result += (b & 127) * mul;
      mul *= 128;
    } while (b >= 128);
    // past the end, bytes read as undefined and end the loop: checked once, off the one-byte path
    if (!(p <= buf.length)) this.#overrun('a varint');
    this.pos = p;
    return result;
  }

  /** Throws the CorruptDataError of a value running past the end of the blob. */
  #overrun(what: string): never {
    throw new CorruptDataError(`${what} at offset ${this.pos} runs past the end of its ${this.#buf.length}-byte blob`);
  }

  /** Reads an unsigned varint that counts items of at least `minBytes` bytes each still to come (so at most what remains). */
  count(minBytes = 1): number {
    const n = this.uint();
    if (n * minBytes > this.#buf.length - this.pos) {
      throw new CorruptDataError(
        `a count of ${n} at offset ${this.pos} exceeds the ${this.#buf.length - this.pos} bytes left in its blob`,
      );
    }
    return n;
  }

  /** Reads a zigzag varint as a Num (number in the fast zone, else bigint). */
  num(): Num {
    const buf = this.#buf;
    let p = this.pos;
    let b = buf[p++]!;
    if (b < 128) {
      this.pos = p;
      return b & 1 ? -(b + 1) / 2 : b / 2;
    }
    let z = b & 127;
    let mul = 128;
    for (let i = 1; i < 7; i++) {
      b = buf[p++]!;
      z += (b & 127) * mul;
      if (b < 128) {
        this.pos = p;
        return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
      }
      mul *= 128;
    }
    return this.#numSlow();
  }

  #numSlow(): Num {
    const buf = this.#buf;
    let z = 0n;
    let shift = 0n;
    let p = this.pos;
    for (;;) {
      if (!(p < buf.length)) this.#overrun('a varint');
      const b = buf[p++]!;
      z |= BigInt(b & 127) << shift;
      shift += 7n;
      if (b < 128) break;
    }
    this.pos = p;
    return normal((z & 1n) === 0n ? z >> 1n : -((z + 1n) >> 1n));
  }

  /** Reads a zigzag varint as a bigint. */
  big(): bigint {
    return toBig(this.num());
  }

  /** Reads a zigzag varint written with `int` (|n| < 2^52). */
  int(): number {
    const z = this.uint();
    return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
  }

  /** Reads a string written by ByteWriter.string. */
  string(): string {
    const head = this.uint();
    const n = Math.floor(head / 2);
    if (n > this.#buf.length - this.pos) this.#overrun(`a string of ${n} ${head % 2 === 0 ? 'bytes' : 'code units'}`);
    if (head % 2 === 0) {
      const buf = this.#buf;
      const start = this.pos;
      const end = start + n;
      this.pos = end;
      // ASCII (uids, addresses, ids) decodes as latin1, about twice as fast as TextDecoder
      for (let i = start; i < end; i++) if (buf[i]! >= 128) return utf8Decoder.decode(buf.subarray(start, end));
      return this.#buffer().toString('latin1', start, end);
    }
    let s = '';
    for (let i = 0; i < n; i++) s += String.fromCharCode(this.uint());
    return s;
  }

  /** Skips a string written by ByteWriter.string (its bytes are not decoded). */
  skipString(): void {
    const head = this.uint();
    const n = Math.floor(head / 2);
    if (n > this.#buf.length - this.pos) this.#overrun(`a string of ${n} ${head % 2 === 0 ? 'bytes' : 'code units'}`);
    if (head % 2 === 0) this.pos += n;
    else for (let i = 0; i < n; i++) this.skipVarint();
  }

  /** Skips a varint of any size (signed or not). */
  skipVarint(): void {
    const buf = this.#buf;
    let p = this.pos;
    while (buf[p++]! >= 128);
    // past the end, a byte reads as undefined and ends the loop: checked once
    if (!(p <= buf.length)) this.#overrun('a varint');
    this.pos = p;
  }

  /** Reads a time written by ByteWriter.time. */
  time(): bigint {
    const sec = this.num();
    const nano = this.uint();
    if (sec === 0 && nano === 0) return 0n;
    if (typeof sec === 'number' && sec >= 0 && sec < TIME_FAST_SECONDS && nano < 1e9) return nanosFromParts(sec, nano);
    return toBig(sec) * NS + BigInt(nano);
  }

  /** Reads a 32-bit little-endian unsigned integer at an absolute offset. */
  u32At(offset: number): number {
    const b = this.#buf;
    if (!(offset >= 0 && offset + 4 <= b.length))
      throw new CorruptDataError(`an offset table entry at ${offset} lies outside its ${b.length}-byte blob`);
    return (b[offset]! | (b[offset + 1]! << 8) | (b[offset + 2]! << 16)) + b[offset + 3]! * 0x1000000;
  }
}

/** 2^33 s (until the year 2242): sec * 1e9 + nano stays below 2^63. */
const TIME_FAST_SECONDS = 2 ** 33;
const TWO16 = 65_536;
const TWO32 = 4_294_967_296;
const timeScratch = new DataView(new ArrayBuffer(8));

/**
 * `sec * 10^9 + nano` as a bigint with one allocation (the generic form makes three temporary
 * bigints): the product is put together exactly from 16-bit limbs in doubles, then read as a
 * 64-bit integer. Needs 0 <= sec < 2^33 and 0 <= nano < 10^9.
 */
export function nanosFromParts(sec: number, nano: number): bigint {
  const secLo = sec % TWO16;
  const secHi = (sec - secLo) / TWO16; // < 2^17
  const a = secLo * 1e9 + nano; // < 2^46: exact
  const b = secHi * 1e9; // < 2^47: exact; the total is b * 2^16 + a
  const bLo = b % TWO16;
  const bHi = (b - bLo) / TWO16; // < 2^31
  const low = bLo * TWO16 + a; // < 2^47: exact
  const lowWord = low % TWO32;
  timeScratch.setUint32(0, lowWord, true);
  timeScratch.setUint32(4, bHi + (low - lowWord) / TWO32, true);
  return timeScratch.getBigUint64(0, true);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True when the string is valid Unicode (no lone surrogate), so UTF-8 keeps it exactly. */
export function isWellFormed(s: string): boolean {
  return !LONE_SURROGATE.test(s);
}

/**
 * Whether a string can travel in a JSON list (`json_each`) and compare equal there to how it is
 * stored, on both engines: valid Unicode, no NUL, not starting with U+FFFF or U+FEFF (escaped on
 * PostgreSQL).
 */
export function isListableText(s: string): boolean {
  return !s.includes('\u0000') && !s.startsWith('\uFFFF') && !s.startsWith('\uFEFF') && isWellFormed(s);
}

/** A string as SQLite should hold it: TEXT normally, UTF-16LE BLOB when it has lone surrogates. */
export function textToSql(s: string): string | Buffer {
  if (isWellFormed(s)) return s;
  const blob = Buffer.from(s, 'utf16le');
  utf16Texts.add(blob);
  return blob;
}

/** The blobs textToSql made (text, not bytes: PostgreSQL keeps them in a text column). */
const utf16Texts = new WeakSet<Uint8Array>();

/** Whether textToSql made this blob (a string with lone surrogates). */
export function isUtf16Text(v: Uint8Array): boolean {
  return utf16Texts.has(v);
}

/** Inverse of textToSql. */
export function textFromSql(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v instanceof Uint8Array) {
    if (v.byteLength % 2 !== 0)
      throw new CorruptDataError(`a text blob of ${v.byteLength} bytes is not UTF-16 (odd length)`);
    return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('utf16le');
  }
  throw new CorruptDataError(`a text column holds ${v === null ? 'NULL' : typeof v}, not TEXT or BLOB`);
}
