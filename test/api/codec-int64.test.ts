import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CodecError,
  INT_RANGES,
  decodeWireInt32,
  decodeWireInt64,
  encodeInt64,
  parseIntLiteral,
  type IntWidth,
} from '../../src/api/codec/index.ts';

const WIDTHS: IntWidth[] = ['int32', 'uint32', 'int64', 'uint64'];

function codecError(fn: () => unknown): CodecError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(CodecError);
    return err as CodecError;
  }
  throw new Error('expected a CodecError');
}

describe('INT_RANGES', () => {
  it('has the exact bounds of every width', () => {
    expect(INT_RANGES.int32).toEqual({ min: -2147483648n, max: 2147483647n });
    expect(INT_RANGES.uint32).toEqual({ min: 0n, max: 4294967295n });
    expect(INT_RANGES.int64).toEqual({ min: -9223372036854775808n, max: 9223372036854775807n });
    expect(INT_RANGES.uint64).toEqual({ min: 0n, max: 18446744073709551615n });
  });
});

describe('parseIntLiteral', () => {
  describe.each(WIDTHS)('%s boundaries', (width) => {
    const { min, max } = INT_RANGES[width];
    it.each([min, min + 1n, max - 1n, max, 0n, 1n])('accepts %s', (v) => {
      expect(parseIntLiteral(v.toString(), width)).toBe(v);
    });
    it('refuses max + 1', () => {
      const err = codecError(() => parseIntLiteral((max + 1n).toString(), width));
      expect(err.reason).toBe('range');
      expect(err.message).toContain(`value ${max + 1n} out of range for ${width}`);
    });
    it('refuses min - 1', () => {
      const err = codecError(() => parseIntLiteral((min - 1n).toString(), width));
      expect(err.reason).toBe('range');
      if (min === 0n) expect(err.message).toMatch(/negative value -1 not allowed for unsigned/);
      else expect(err.message).toContain(`out of range for ${width}`);
    });
  });

  it('allows leading zeros', () => {
    expect(parseIntLiteral('007', 'int32')).toBe(7n);
    expect(parseIntLiteral('-007', 'int32')).toBe(-7n);
    expect(parseIntLiteral('00000000000000000000000000002147483647', 'int32')).toBe(2147483647n);
    expect(parseIntLiteral('0000', 'uint64')).toBe(0n);
  });

  it('accepts -0 for signed widths and refuses any minus sign for unsigned ones', () => {
    expect(parseIntLiteral('-0', 'int64')).toBe(0n);
    expect(codecError(() => parseIntLiteral('-0', 'uint32')).message).toMatch(
      /negative value -0 not allowed for unsigned uint32/,
    );
    expect(codecError(() => parseIntLiteral('-5', 'uint64')).message).toMatch(/negative/);
  });

  it.each(['1.5', '1.0', '-2.5', '1.', '.5', '1e3', '1E3', '-1e-3', '2.5e10'])('says %s is not an integer', (text) => {
    const err = codecError(() => parseIntLiteral(text, 'int64'));
    expect(err.reason).toBe('syntax');
    expect(err.message).toContain('is not an integer');
    expect(err.message).toContain(JSON.stringify(text));
  });

  it.each(['', '-', '+1', ' 1', '1 ', 'abc', '0x10', '1_000', '--1', '1-', 'one', '١٢', '.', 'e5', 'NaN', 'Infinity'])(
    'refuses malformed %j',
    (text) => {
      const err = codecError(() => parseIntLiteral(text, 'int32'));
      expect(err.reason).toBe('syntax');
      expect(err.message).toMatch(/int32/);
    },
  );

  it('keeps every digit of big values', () => {
    expect(parseIntLiteral('18446744073709551615', 'uint64')).toBe(18446744073709551615n);
    expect(parseIntLiteral('-9223372036854775808', 'int64')).toBe(-9223372036854775808n);
    expect(parseIntLiteral('9007199254740993', 'int64')).toBe(9007199254740993n);
  });

  it('round-trips random values of every width', () => {
    for (const width of WIDTHS) {
      const { min, max } = INT_RANGES[width];
      fc.assert(fc.property(fc.bigInt({ min, max }), (v) => parseIntLiteral(encodeInt64(v), width) === v));
    }
  });
});

describe('decodeWireInt64', () => {
  it.each([
    ['9223372036854775807', 'int64', 9223372036854775807n],
    ['-9223372036854775808', 'int64', -9223372036854775808n],
    ['18446744073709551615', 'uint64', 18446744073709551615n],
    ['9223372036854775808', 'uint64', 9223372036854775808n],
    ['0', 'uint64', 0n],
    ['-0', 'int64', 0n],
    ['00042', 'int64', 42n],
    ['9007199254740993', 'int64', 9007199254740993n],
  ] as const)('decodes the string %s as %s', (text, width, expected) => {
    expect(decodeWireInt64(text, width)).toBe(expected);
  });

  it('decodes safe-integer numbers and bigints', () => {
    expect(decodeWireInt64(42, 'int64')).toBe(42n);
    expect(decodeWireInt64(-42, 'int64')).toBe(-42n);
    expect(decodeWireInt64(Number.MAX_SAFE_INTEGER, 'uint64')).toBe(9007199254740991n);
    expect(decodeWireInt64(Number.MIN_SAFE_INTEGER, 'int64')).toBe(-9007199254740991n);
    expect(decodeWireInt64(-0, 'uint64')).toBe(0n);
    expect(decodeWireInt64(18446744073709551615n, 'uint64')).toBe(18446744073709551615n);
    expect(decodeWireInt64(-9223372036854775808n, 'int64')).toBe(-9223372036854775808n);
  });

  it.each([
    [true, 'expected int64, got true'],
    [false, 'expected int64, got false'],
    ['abc', 'expected int64, got "abc"'],
    [1.5, 'expected int64, got 1.5'],
    [{}, 'expected int64, got object'],
    [[], 'expected int64, got array'],
    [null, 'expected int64, got null'],
    [undefined, 'expected int64, got nothing'],
    [Number.NaN, 'expected int64, got NaN'],
    [Number.POSITIVE_INFINITY, 'expected int64, got Infinity'],
    ['1.0', 'expected int64, got "1.0"'],
    [' 1', 'expected int64, got " 1"'],
    ['+1', 'expected int64, got "+1"'],
    ['', 'expected int64, got ""'],
    ['1e3', 'expected int64, got "1e3"'],
  ])('refuses %j', (value, message) => {
    const err = codecError(() => decodeWireInt64(value, 'int64'));
    expect(err.reason).toBe('type');
    expect(err.message).toBe(message);
  });

  it('names the width in the message', () => {
    expect(codecError(() => decodeWireInt64(true, 'uint64')).message).toBe('expected uint64, got true');
  });

  it('refuses integral numbers above 2^53, which are already inexact', () => {
    const err = codecError(() => decodeWireInt64(2 ** 53, 'int64'));
    expect(err.message).toMatch(/expected int64, got 9007199254740992 \(not exact/);
  });

  it('shortens long strings in the message', () => {
    const err = codecError(() => decodeWireInt64('x'.repeat(500), 'int64'));
    expect(err.message.length).toBeLessThan(80);
  });

  it.each([
    ['9223372036854775808', 'int64'],
    ['-9223372036854775809', 'int64'],
    ['18446744073709551616', 'uint64'],
    ['-1', 'uint64'],
  ] as const)('range-checks %s for %s', (text, width) => {
    for (const value of [text, BigInt(text)]) {
      const err = codecError(() => decodeWireInt64(value, width));
      expect(err.reason).toBe('range');
      expect(err.message).toContain(`value ${text} out of range for ${width}`);
    }
  });

  it('round-trips encodeInt64 for random int64 and uint64 values', () => {
    for (const width of ['int64', 'uint64'] as const) {
      const { min, max } = INT_RANGES[width];
      fc.assert(fc.property(fc.bigInt({ min, max }), (v) => decodeWireInt64(encodeInt64(v), width) === v));
    }
  });
});

describe('decodeWireInt32', () => {
  it.each([
    [0, 'int32', 0],
    [2147483647, 'int32', 2147483647],
    [-2147483648, 'int32', -2147483648],
    [4294967295, 'uint32', 4294967295],
    ['123', 'int32', 123],
    ['-5', 'int32', -5],
    ['0042', 'uint32', 42],
    [7n, 'int32', 7],
  ] as const)('decodes %s as %s', (value, width, expected) => {
    expect(decodeWireInt32(value, width)).toBe(expected);
  });

  it('turns -0 into 0', () => {
    expect(Object.is(decodeWireInt32(-0, 'int32'), 0)).toBe(true);
  });

  it.each([
    [2147483648, 'int32'],
    [-2147483649, 'int32'],
    [4294967296, 'uint32'],
    [-1, 'uint32'],
    ['2147483648', 'int32'],
    [2147483648n, 'int32'],
  ] as const)('range-checks %s for %s', (value, width) => {
    const err = codecError(() => decodeWireInt32(value, width));
    expect(err.reason).toBe('range');
    expect(err.message).toMatch(new RegExp(`out of range for ${width}`));
  });

  it.each([1.5, '1.5', true, null, 'abc', {}, [], Number.NaN, undefined])('refuses %j', (value) => {
    const err = codecError(() => decodeWireInt32(value, 'int32'));
    expect(err.reason).toBe('type');
    expect(err.message).toMatch(/^expected int32, got /);
  });
});

describe('encodeInt64', () => {
  it.each([
    [0n, '0'],
    [-1n, '-1'],
    [9223372036854775807n, '9223372036854775807'],
    [-9223372036854775808n, '-9223372036854775808'],
    [18446744073709551615n, '18446744073709551615'],
  ])('encodes %s as a decimal string', (v, text) => {
    expect(encodeInt64(v)).toBe(text);
  });
});
