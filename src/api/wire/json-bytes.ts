/**
 * A cursor over the UTF-8 bytes of a JSON text, and the scanning steps of the direct decoder:
 * whitespace, keys, strings without escapes (hashed on the way), small integers, and skipping
 * any value. A step that meets malformed JSON, or anything else it does not handle exactly,
 * throws DIRECT_BAIL; the caller then decodes the whole body with the reference path (lossless
 * parse, then the compiled decoder), which gives the exact value or error.
 */
import { parseJsonLossless, type JsonValue } from '../codec/lossless-json.ts';

/** Thrown (never escapes the direct decoder) when the reference path must decode the body. */
export const DIRECT_BAIL: unique symbol = Symbol('direct decoder bails out');

/** Deepest nesting the direct decoder follows; deeper input goes to the reference path. */
export const DIRECT_MAX_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;

/** Node's Buffer slicers, faster than toString(encoding, start, end) for short strings. */
interface Slicer {
  utf8Slice(start: number, end: number): string;
}

/** True when the Buffer has Node's (undocumented, untyped) `utf8Slice`, as every Buffer of Node 20 does. */
function hasUtf8Slice(buf: Buffer): buf is Buffer & Slicer {
  return 'utf8Slice' in buf && typeof buf.utf8Slice === 'function';
}

const exactUtf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/** The bytes of a JSON text and a position in them, plus what the last string scan saw. */
export class JsonBytes {
  /** the bytes */
  readonly b: Uint8Array;
  /** the same bytes, for reading four at a time */
  readonly v: DataView;
  /** their length */
  readonly n: number;
  /** the current position */
  p = 0;
  /** the last string scanned is plain ASCII */
  ascii = true;
  /** containers open around the position */
  depth = 0;
  readonly #slicer: Slicer;

  constructor(bytes: Uint8Array) {
    this.b = bytes;
    this.v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.n = bytes.length;
    const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.#slicer = hasUtf8Slice(buf) ? buf : { utf8Slice: (start, end) => buf.toString('utf8', start, end) };
  }

  /** The text of bytes [start, end) that hold no escape: ASCII fast, anything else decoded exactly. */
  text(start: number, end: number, ascii: boolean): string {
    return ascii ? this.#slicer.utf8Slice(start, end) : exactUtf8.decode(this.b.subarray(start, end));
  }
}

/** Bails out: the reference path decodes the body. */
export function bail(): never {
  throw DIRECT_BAIL;
}

/** Moves past JSON whitespace. */
export function skipWs(c: JsonBytes): void {
  const b = c.b;
  let p = c.p;
  let x = b[p];
  while (x === 0x20 || x === 0x0a || x === 0x0d || x === 0x09) x = b[++p];
  c.p = p;
}

/** Moves past whitespace and the expected byte; bails when another byte comes. */
export function expectByte(c: JsonBytes, byte: number): void {
  if (c.b[c.p]! <= 0x20) skipWs(c);
  if (c.b[c.p] !== byte) bail();
  c.p++;
}

/**
 * Scans the string whose opening quote is at the position: returns the index of its closing
 * quote and sets `ascii`, or returns -1 when it holds an escape (the position is then
 * unchanged). Bails on a control character or the end of input (malformed JSON).
 */
export function scanString(c: JsonBytes): number {
  const b = c.b;
  const n = c.n;
  let high = 0;
  for (let i = c.p + 1; i < n; i++) {
    const x = b[i]!;
    if (x === QUOTE) {
      c.ascii = high < 0x80;
      return i;
    }
    if (x === BACKSLASH) return -1;
    if (x < 0x20) bail();
    high |= x;
  }
  return bail();
}

/**
 * A hash of bytes [start, end), for text caches: FNV-1a of every byte up to 8 bytes, else of the
 * length and three 4-byte words (first, middle, last).
 */
export function hashBytes(c: JsonBytes, start: number, end: number): number {
  const length = end - start;
  let h = FNV_OFFSET;
  if (length <= 8) {
    const b = c.b;
    for (let i = start; i < end; i++) h = Math.imul(h ^ b[i]!, FNV_PRIME);
    return h;
  }
  const v = c.v;
  h = Math.imul(h ^ length, FNV_PRIME);
  h = Math.imul(h ^ v.getInt32(start, true), FNV_PRIME);
  h = Math.imul(h ^ v.getInt32(start + (length >> 1) - 2, true), FNV_PRIME);
  return Math.imul(h ^ v.getInt32(end - 4, true), FNV_PRIME);
}

/** An exact byte sequence to look for (a key with its quotes), prepared for four-byte compares. */
export interface ByteMatch {
  readonly length: number;
  /** where each 4-byte word starts (the last one may overlap the one before), for 4 bytes or more */
  readonly at: Int32Array;
  /** the little-endian words found there */
  readonly words: Int32Array;
  /** the bytes themselves, compared one by one when fewer than 4 */
  readonly bytes: Uint8Array;
}

/** Prepares `bytes` for matchBytes. */
export function byteMatch(bytes: Uint8Array): ByteMatch {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at: number[] = [];
  for (let i = 0; i + 4 <= bytes.length; i += 4) at.push(i);
  if (bytes.length >= 4 && bytes.length % 4 !== 0) at.push(bytes.length - 4);
  return {
    length: bytes.length,
    at: Int32Array.from(at),
    words: Int32Array.from(at, (i) => view.getInt32(i, true)),
    bytes: bytes.slice(),
  };
}

/** True (and moves past them) when the bytes at the position are exactly `m`. */
export function matchBytes(c: JsonBytes, m: ByteMatch): boolean {
  const p = c.p;
  const length = m.length;
  if (p + length > c.n) return false;
  const at = m.at;
  const count = at.length;
  if (count === 0) {
    const b = c.b;
    const bytes = m.bytes;
    for (let i = 0; i < length; i++) if (b[p + i] !== bytes[i]) return false;
  } else {
    const v = c.v;
    const words = m.words;
    for (let i = 0; i < count; i++) if (v.getInt32(p + at[i]!, true) !== words[i]) return false;
  }
  c.p = p + length;
  return true;
}

/** True (and moves past it) when the literal `null` is at the position. */
export function matchNull(c: JsonBytes): boolean {
  const b = c.b;
  const p = c.p;
  if (b[p] === 0x6e && b[p + 1] === 0x75 && b[p + 2] === 0x6c && b[p + 3] === 0x6c) {
    c.p = p + 4;
    return true;
  }
  return false;
}

/** Bytes that can continue a number or a literal (true, false, null) of valid or invalid JSON. */
function isScalarByte(x: number): boolean {
  return (
    (x >= 0x30 && x <= 0x39) ||
    (x >= 0x61 && x <= 0x7a) ||
    (x >= 0x41 && x <= 0x5a) ||
    x === 0x2b ||
    x === 0x2d ||
    x === 0x2e
  );
}

/** Moves past the string at the position, escapes included. */
function skipString(c: JsonBytes): void {
  const b = c.b;
  const n = c.n;
  for (let i = c.p + 1; i < n; i++) {
    const x = b[i]!;
    if (x === QUOTE) {
      c.p = i + 1;
      return;
    }
    if (x === BACKSLASH) i++;
  }
  bail();
}

/** After an item of an object or array: true past a ',' (another item follows), false past `close` ('}' or ']'); bails on anything else. */
export function nextItem(c: JsonBytes, close: number): boolean {
  if (c.b[c.p]! <= 0x20) skipWs(c);
  const x = c.b[c.p];
  c.p++;
  if (x === 0x2c) {
    if (c.b[c.p]! <= 0x20) skipWs(c);
    return true;
  }
  if (x !== close) bail();
  return false;
}

/**
 * Moves past the value at the position without checking it (the caller parses the span, which
 * checks it). Bails when the value nests beyond DIRECT_MAX_DEPTH or the input ends.
 */
export function skipValue(c: JsonBytes): void {
  const b = c.b;
  const first = b[c.p];
  if (first === QUOTE) {
    skipString(c);
    return;
  }
  if (first !== 0x7b && first !== 0x5b) {
    let p = c.p;
    while (p < c.n && isScalarByte(b[p]!)) p++;
    c.p = p;
    return;
  }
  let depth = 0;
  while (c.p < c.n) {
    const x = b[c.p]!;
    if (x === QUOTE) {
      skipString(c);
      continue;
    }
    c.p++;
    if (x === 0x7b || x === 0x5b) {
      if (++depth + c.depth > DIRECT_MAX_DEPTH) bail();
    } else if ((x === 0x7d || x === 0x5d) && --depth === 0) {
      return;
    }
  }
  bail();
}

/** Parses the value at the position exactly as the lossless parser does (for the rare forms). */
export function genericValue(c: JsonBytes): JsonValue {
  if (c.b[c.p]! <= 0x20) skipWs(c);
  const start = c.p;
  skipValue(c);
  return parseJsonLossless(c.b.subarray(start, c.p));
}

/**
 * Reads the integer at the position when it is a plain JSON integer of at most `maxDigits`
 * digits (no fraction or exponent, so no rounding): returns it (-0 as 0) and moves past it.
 * Returns NaN, the position unchanged, for any other form; bails on a leading zero.
 */
export function readPlainInt(c: JsonBytes, maxDigits: number): number {
  const b = c.b;
  let p = c.p;
  const negative = b[p] === 0x2d;
  if (negative) p++;
  const start = p;
  let x = b[p]!;
  if (!(x >= 0x30 && x <= 0x39)) return NaN;
  let v = x - 0x30;
  x = b[++p]!;
  if (v === 0) {
    if (x >= 0x30 && x <= 0x39) bail(); // "01" is not JSON
  } else {
    while (x >= 0x30 && x <= 0x39) {
      v = v * 10 + (x - 0x30);
      x = b[++p]!;
    }
    if (p - start > maxDigits) return NaN;
  }
  if (x === 0x2e || x === 0x65 || x === 0x45) return NaN;
  c.p = p;
  return negative && v !== 0 ? -v : v;
}

/**
 * Reads a quoted decimal integer of 1 to 15 digits (with '-' when `signed`), the short form of
 * int64 on the wire: returns it and moves past the closing quote, or returns NaN with the
 * position unchanged for any other form.
 */
export function readQuotedInt(c: JsonBytes, signed: boolean): number {
  const b = c.b;
  let p = c.p + 1;
  const negative = signed && b[p] === 0x2d && b[p + 1] !== QUOTE;
  if (negative) p++;
  const start = p;
  let v = 0;
  let x = b[p]!;
  while (x >= 0x30 && x <= 0x39) {
    v = v * 10 + (x - 0x30);
    x = b[++p]!;
  }
  const digits = p - start;
  if (x !== QUOTE || digits === 0 || digits > 15) return NaN;
  c.p = p + 1;
  return negative && v !== 0 ? -v : v;
}

/**
 * Reads a key that is a canonical array index of at most 9 digits (`"0"`, `"17"`, not `"07"`
 * or `"-1"`): returns it as a number and moves past the closing quote; returns -1, the position
 * unchanged, for any other key. As a property key the number names the same property.
 */
export function readIndexKey(c: JsonBytes): number {
  const b = c.b;
  let p = c.p + 1;
  let x = b[p]!;
  if (x === 0x30) {
    if (b[p + 1] !== QUOTE) return -1;
    c.p = p + 2;
    return 0;
  }
  let v = 0;
  const start = p;
  while (x >= 0x30 && x <= 0x39) {
    v = v * 10 + (x - 0x30);
    x = b[++p]!;
  }
  if (x !== QUOTE || p === start || p - start > 9) return -1;
  c.p = p + 1;
  return v;
}
