import { CodecError, quoteForError } from './errors.ts';

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

/** Decodes a wire int64/uint64: a decimal string, a safe-integer number or a bigint. */
export function decodeWireInt64(value: unknown, width: 'int64' | 'uint64'): bigint {
  if (typeof value === 'bigint') return checkRange(value, String(value), width);
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
