import { CodecError, quoteForError } from './errors.ts';
import { JsonNumber } from './lossless-json.ts';

/** Integer widths used by the admin API and the filter dialect. */
export type IntWidth = 'int32' | 'uint32' | 'int64' | 'uint64';

/** Inclusive bounds of every integer width. */
export const INT_RANGES: Record<IntWidth, { min: bigint; max: bigint }> = {
  int32: { min: -(2n ** 31n), max: 2n ** 31n - 1n },
  uint32: { min: 0n, max: 2n ** 32n - 1n },
  int64: { min: -(2n ** 63n), max: 2n ** 63n - 1n },
  uint64: { min: 0n, max: 2n ** 64n - 1n },
};

const DECIMAL = /^-?[0-9]+$/;
const FRACTIONAL = /^-?[0-9]*\.[0-9]*$/;
const EXPONENT = /^-?[0-9]*\.?[0-9]*[eE][+-]?[0-9]+$/;

function isUnsigned(width: IntWidth): boolean {
  return width === 'uint32' || width === 'uint64';
}

function checkRange(value: bigint, shown: string, width: IntWidth): bigint {
  const { min, max } = INT_RANGES[width];
  if (value < min || value > max) {
    throw new CodecError('range', `value ${shown} out of range for ${width} (${min}..${max})`);
  }
  return value;
}

/**
 * Parses a filter integer literal: decimal digits with an optional leading '-', leading zeros
 * allowed, no '+', spaces, fraction or exponent. Any '-' (even "-0") is refused for an
 * unsigned width, like Go's ParseUint.
 */
export function parseIntLiteral(text: string, width: IntWidth): bigint {
  if (!DECIMAL.test(text)) {
    if (text.length > 0 && (FRACTIONAL.test(text) || EXPONENT.test(text)) && /[0-9]/.test(text)) {
      throw new CodecError('syntax', `${quoteForError(text)} is not an integer (${width} expected)`);
    }
    throw new CodecError('syntax', `invalid ${width} literal ${quoteForError(text)}: expected decimal digits`);
  }
  if (text.startsWith('-') && isUnsigned(width)) {
    throw new CodecError('range', `negative value ${text} not allowed for unsigned ${width}`);
  }
  return checkRange(BigInt(text), text, width);
}

/** Short description of an unexpected JSON value for error messages ("true", "\"abc\"", "object"). */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (value instanceof JsonNumber) return quoteForError(value.text, 40).slice(1, -1);
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'string':
      return quoteForError(value, 40);
    case 'number':
    case 'boolean':
      return String(value);
    case 'bigint':
      return `${value}n`;
    case 'undefined':
      return 'nothing';
    default:
      return typeof value;
  }
}

const LITERAL = /^(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/;

/**
 * The exact integer a JSON number literal denotes (`1e2` is 100, `1.50e1` is 15, `-0` is 0), or
 * undefined when it has a fraction. An exponent so large that the value leaves every 64-bit
 * range gives a value just outside them (the range check then names the literal).
 */
export function integerOfLiteral(text: string): bigint | undefined {
  const m = LITERAL.exec(text);
  if (m === null) return undefined;
  const [, sign, whole, fraction = '', exp = '0'] = m;
  const digits = `${whole}${fraction}`.replace(/^0+(?=.)/, '');
  const shift = Number(exp) - fraction.length;
  let value: bigint;
  if (/^0+$/.test(digits)) value = 0n;
  else if (shift >= 0) value = shift > 40 ? 2n ** 65n : BigInt(digits) * 10n ** BigInt(shift);
  else {
    const cut = digits.length + shift;
    if (!/^0*$/.test(digits.slice(Math.max(0, cut)))) return undefined;
    value = cut <= 0 ? 0n : BigInt(digits.slice(0, cut));
  }
  return sign === '-' ? -value : value;
}

/** The integer of a JsonNumber literal, or a CodecError naming it (a fraction for an integer width). */
function integerOf(n: JsonNumber, width: IntWidth): bigint {
  const v = integerOfLiteral(n.text);
  if (v === undefined) throw new CodecError('type', `expected ${width}, got ${describeValue(n)}`);
  return checkRange(v, n.text, width);
}

/** Decodes a wire int64/uint64: a decimal string, a safe-integer number or a bigint. */
export function decodeWireInt64(value: unknown, width: 'int64' | 'uint64'): bigint {
  if (typeof value === 'bigint') return checkRange(value, String(value), width);
  if (value instanceof JsonNumber) return integerOf(value, width);
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value)) return checkRange(BigInt(value), String(value), width);
    if (Number.isInteger(value)) {
      throw new CodecError('type', `expected ${width}, got ${value} (not exact: above 2^53, send it as a string)`);
    }
    throw new CodecError('type', `expected ${width}, got ${describeValue(value)}`);
  }
  if (typeof value === 'string' && DECIMAL.test(value)) {
    return checkRange(BigInt(value), value, width);
  }
  throw new CodecError('type', `expected ${width}, got ${describeValue(value)}`);
}

/** Decodes a wire int32/uint32: an integral number or a decimal string (protobuf JSON allows both). */
export function decodeWireInt32(value: unknown, width: 'int32' | 'uint32'): number {
  if (value instanceof JsonNumber) return Number(integerOf(value, width));
  if (typeof value === 'number' && Number.isInteger(value)) {
    return Number(checkRange(BigInt(value), String(value), width));
  }
  if (typeof value === 'bigint') return Number(checkRange(value, String(value), width));
  if (typeof value === 'string' && DECIMAL.test(value)) {
    return Number(checkRange(BigInt(value), value, width));
  }
  throw new CodecError('type', `expected ${width}, got ${describeValue(value)}`);
}

/** Encodes a 64-bit integer the way the server writes it: a decimal string. */
export function encodeInt64(v: bigint): string {
  return v.toString(10);
}
