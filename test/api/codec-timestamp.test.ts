import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CodecError,
  UNSET_TIMESTAMP,
  formatTimestamp,
  formatTimestampShort,
  isUnsetTimestamp,
  parseTimestamp,
  timestampFromMillis,
  timestampToMillis,
} from '../../src/api/codec/index.ts';

const S = 1_000_000_000n;
const MIN = -62_135_596_800n * S; // 0001-01-01T00:00:00Z
const MAX = 253_402_300_800n * S - 1n; // 9999-12-31T23:59:59.999999999Z

/** Nanoseconds of a UTC wall-clock second, via Date.UTC (whole seconds only). */
function utc(y: number, mo: number, d: number, h = 0, mi = 0, s = 0): bigint {
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d); // unlike Date.UTC, keeps years 0..99 as they are
  date.setUTCHours(h, mi, s, 0);
  return BigInt(date.getTime()) * 1_000_000n;
}

function codecError(fn: () => unknown): CodecError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(CodecError);
    return err as CodecError;
  }
  throw new Error('expected a CodecError');
}

describe('parseTimestamp', () => {
  it.each([
    ['1970-01-01T00:00:00Z', 0n],
    ['1970-01-01T00:00:00.000000000Z', 0n],
    ['2025-09-01T10:22:54.000000000Z', utc(2025, 9, 1, 10, 22, 54)],
    ['2025-09-01T10:22:54Z', utc(2025, 9, 1, 10, 22, 54)],
    ['2025-09-01t10:22:54z', utc(2025, 9, 1, 10, 22, 54)],
    ['1969-12-31T23:59:59.999999999Z', -1n],
    ['1900-01-01T00:00:00Z', utc(1900, 1, 1)],
    ['0001-01-01T00:00:00Z', MIN],
    ['9999-12-31T23:59:59.999999999Z', MAX],
    ['0099-03-01T00:00:00Z', utc(99, 3, 1)],
  ])('parses %s', (text, nanos) => {
    expect(parseTimestamp(text)).toBe(nanos);
  });

  it('accepts 0 to 9 fraction digits', () => {
    const base = utc(2025, 9, 1, 10, 22, 54);
    const digits = '123456789';
    expect(parseTimestamp('2025-09-01T10:22:54Z')).toBe(base);
    for (let k = 1; k <= 9; k++) {
      const frac = digits.slice(0, k);
      expect(parseTimestamp(`2025-09-01T10:22:54.${frac}Z`)).toBe(base + BigInt(frac.padEnd(9, '0')));
    }
    expect(parseTimestamp('2025-09-01T10:22:54.5Z')).toBe(base + 500_000_000n);
    expect(parseTimestamp('2025-09-01T10:22:54.000000001Z')).toBe(base + 1n);
  });

  it.each([
    ['2025-09-01T12:22:54+02:00', '2025-09-01T10:22:54Z'],
    ['2025-09-01T05:22:54-05:00', '2025-09-01T10:22:54Z'],
    ['2025-09-01T10:22:54+00:00', '2025-09-01T10:22:54Z'],
    ['2025-09-01T10:22:54-00:00', '2025-09-01T10:22:54Z'],
    ['2025-09-01T15:52:54.5+05:30', '2025-09-01T10:22:54.5Z'],
    ['2025-09-01T00:30:00+01:00', '2025-08-31T23:30:00Z'],
    ['2025-01-01T00:30:00+01:00', '2024-12-31T23:30:00Z'],
    ['2024-12-31T23:30:00-01:00', '2025-01-01T00:30:00Z'],
    ['2024-02-28T23:00:00-02:00', '2024-02-29T01:00:00Z'],
    ['2023-02-28T23:00:00-02:00', '2023-03-01T01:00:00Z'],
    ['2025-03-01T00:59:59.999999999+23:59', '2025-02-28T01:00:59.999999999Z'],
    ['1970-01-01T00:00:00+00:01', '1969-12-31T23:59:00Z'],
  ])('applies the offset of %s', (text, utcText) => {
    expect(parseTimestamp(text)).toBe(parseTimestamp(utcText));
  });

  it('validates leap years', () => {
    expect(parseTimestamp('2024-02-29T00:00:00Z')).toBe(utc(2024, 2, 29));
    expect(parseTimestamp('2000-02-29T00:00:00Z')).toBe(utc(2000, 2, 29));
    expect(parseTimestamp('0004-02-29T00:00:00Z')).toBe(utc(4, 2, 29));
    for (const text of ['2023-02-29T00:00:00Z', '1900-02-29T00:00:00Z', '2100-02-29T00:00:00Z']) {
      expect(codecError(() => parseTimestamp(text)).message).toMatch(/day 29 out of range for \d{4}-02 \(01\.\.28\)/);
    }
  });

  it('clamps a leap second to the last nanosecond of second 59', () => {
    const last = parseTimestamp('2016-12-31T23:59:59.999999999Z');
    expect(parseTimestamp('2016-12-31T23:59:60Z')).toBe(last);
    expect(parseTimestamp('2016-12-31T23:59:60.5Z')).toBe(last);
    expect(parseTimestamp('2016-12-31T15:59:60-08:00')).toBe(last);
    expect(parseTimestamp('2016-12-31T23:59:60Z')).toBeLessThan(parseTimestamp('2017-01-01T00:00:00Z'));
  });

  it.each([
    ['2025-04-31T00:00:00Z', /day 31 out of range for 2025-04 \(01\.\.30\)/],
    ['2025-06-31T00:00:00Z', /day 31 out of range/],
    ['2025-01-32T00:00:00Z', /day 32 out of range/],
    ['2025-01-00T00:00:00Z', /day 00 out of range/],
    ['2025-13-01T00:00:00Z', /month 13 out of range/],
    ['2025-00-10T00:00:00Z', /month 00 out of range/],
    ['2025-09-01T24:00:00Z', /hour 24 out of range/],
    ['2025-09-01T10:60:00Z', /minute 60 out of range/],
    ['2025-09-01T10:22:61Z', /second 61 out of range/],
    ['2025-09-01T10:22:54+24:00', /offset hour 24 out of range/],
    ['2025-09-01T10:22:54+02:60', /offset minute 60 out of range/],
    ['0000-01-01T00:00:00Z', /year 0000/],
    ['0001-01-01T00:00:00+00:01', /instant out of range/],
    ['9999-12-31T23:59:59-00:01', /instant out of range/],
    ['2025-09-01T10:22:54.1234567890Z', /more than 9 fraction digits/],
  ])('refuses %s', (text, why) => {
    const err = codecError(() => parseTimestamp(text));
    expect(err.message).toMatch(why);
    expect(err.message).toContain(JSON.stringify(text));
  });

  it.each([
    '',
    '2025-09-01',
    '2025-09-01T10:22Z',
    '2025-09-01 10:22:54Z',
    '2025-09-01T10:22:54',
    '2025-09-01T10:22:54+0200',
    '2025-09-01T10:22:54+02',
    '2025-9-01T10:22:54Z',
    '2025-09-01T10:22:54.Z',
    '+2025-09-01T10:22:54Z',
    '12025-09-01T10:22:54Z',
    ' 2025-09-01T10:22:54Z',
    '2025-09-01T10:22:54Z ',
    '2025-09-01T10:22:54,5Z',
    '2025-09-01T10:22:54UTC',
    '2025-09-01T10:22:54GMT+1',
    '1756722174',
    '2025-09-01T1:22:54Z',
  ])('refuses the malformed %j', (text) => {
    const err = codecError(() => parseTimestamp(text));
    expect(err.reason).toBe('syntax');
    expect(err.message).toContain('expected RFC 3339');
  });

  it('agrees with Date on millisecond instants across years 0001..9999', () => {
    fc.assert(
      fc.property(fc.integer({ min: -62_135_596_800_000, max: 253_402_300_799_999 }), (ms) => {
        return parseTimestamp(new Date(ms).toISOString()) === BigInt(ms) * 1_000_000n;
      }),
    );
  });

  it('reads the same instant whatever the offset and the number of fraction digits', () => {
    const day = 86_400n * S;
    fc.assert(
      fc.property(
        fc.bigInt({ min: MIN + day, max: MAX - day }),
        fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 }),
        fc.integer({ min: 0, max: 9 }),
        (n, offsetMinutes, digits) => {
          const local = formatTimestamp(n + BigInt(offsetMinutes) * 60n * S);
          const abs = Math.abs(offsetMinutes);
          const zone = `${offsetMinutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
          const fraction = digits === 0 ? '' : local.slice(19, 20 + digits);
          const text = `${local.slice(0, 19)}${fraction}${zone}`;
          const unit = 10n ** BigInt(9 - digits);
          const seconds = n >= 0n ? n / S : -((-n + S - 1n) / S);
          const expected = seconds * S + ((n - seconds * S) / unit) * unit; // fraction truncated
          return parseTimestamp(text) === expected;
        },
      ),
    );
  });
});

describe('formatTimestamp', () => {
  it.each([
    [0n, '1970-01-01T00:00:00.000000000Z'],
    [utc(2025, 9, 1, 10, 22, 54), '2025-09-01T10:22:54.000000000Z'],
    [utc(2025, 9, 1, 10, 22, 54) + 123_456_789n, '2025-09-01T10:22:54.123456789Z'],
    [1n, '1970-01-01T00:00:00.000000001Z'],
    [-1n, '1969-12-31T23:59:59.999999999Z'],
    [-S, '1969-12-31T23:59:59.000000000Z'],
    [-S - 1n, '1969-12-31T23:59:58.999999999Z'],
    [utc(1900, 2, 28, 12), '1900-02-28T12:00:00.000000000Z'],
    [utc(2024, 2, 29, 23, 59, 59), '2024-02-29T23:59:59.000000000Z'],
    [MIN, '0001-01-01T00:00:00.000000000Z'],
    [MAX, '9999-12-31T23:59:59.999999999Z'],
  ])('formats %s as %s', (nanos, text) => {
    expect(formatTimestamp(nanos)).toBe(text);
  });

  it('refuses instants outside years 0001..9999', () => {
    expect(codecError(() => formatTimestamp(MIN - 1n)).reason).toBe('range');
    expect(codecError(() => formatTimestamp(MAX + 1n)).reason).toBe('range');
  });

  it('parse(format(n)) is the identity over the whole range', () => {
    fc.assert(fc.property(fc.bigInt({ min: MIN, max: MAX }), (n) => parseTimestamp(formatTimestamp(n)) === n));
    const nearEpoch = fc.bigInt({ min: -86_400n * 400n * S, max: 86_400n * 400n * S });
    fc.assert(fc.property(nearEpoch, (n) => parseTimestamp(formatTimestamp(n)) === n));
  });

  it('agrees with Date.toISOString on the first 23 characters', () => {
    fc.assert(
      fc.property(fc.integer({ min: -62_135_596_800_000, max: 253_402_300_799_999 }), (ms) => {
        return formatTimestamp(BigInt(ms) * 1_000_000n).slice(0, 23) === new Date(ms).toISOString().slice(0, 23);
      }),
    );
  });
});

describe('formatTimestampShort', () => {
  const base = utc(2025, 9, 1, 10, 22, 54);
  it.each([
    [base, '2025-09-01T10:22:54Z'],
    [base + 120_000_000n, '2025-09-01T10:22:54.120Z'],
    [base + 1_000_000n, '2025-09-01T10:22:54.001Z'],
    [base + 999_999n, '2025-09-01T10:22:54Z'],
    [base + 999_999_999n, '2025-09-01T10:22:54.999Z'],
    [0n, '1970-01-01T00:00:00Z'],
    [-1n, '1969-12-31T23:59:59.999Z'],
  ])('formats %s as %s', (nanos, text) => {
    expect(formatTimestampShort(nanos)).toBe(text);
  });
});

describe('unset timestamps', () => {
  it('treats the epoch as unset', () => {
    expect(UNSET_TIMESTAMP).toBe(0n);
    expect(isUnsetTimestamp(parseTimestamp('1970-01-01T00:00:00.000000000Z'))).toBe(true);
    expect(isUnsetTimestamp(1n)).toBe(false);
    expect(isUnsetTimestamp(-1n)).toBe(false);
  });
});

describe('millisecond conversions', () => {
  it.each([
    [0, 0n],
    [1, 1_000_000n],
    [1.5, 1_500_000n],
    [-1, -1_000_000n],
    [-1.5, -1_500_000n],
    [0.000001, 1n],
    [1_756_722_174_120, utc(2025, 9, 1, 10, 22, 54) + 120_000_000n],
  ])('timestampFromMillis(%s) = %s', (ms, nanos) => {
    expect(timestampFromMillis(ms)).toBe(nanos);
  });

  it('refuses non-finite milliseconds', () => {
    expect(codecError(() => timestampFromMillis(Number.NaN)).reason).toBe('range');
    expect(codecError(() => timestampFromMillis(Number.POSITIVE_INFINITY)).reason).toBe('range');
  });

  it.each([
    [0n, 0],
    [1_999_999n, 1],
    [-1n, -1],
    [-1_000_000n, -1],
    [-1_000_001n, -2],
    [utc(2025, 9, 1, 10, 22, 54) + 120_999_999n, 1_756_722_174_120],
  ])('timestampToMillis(%s) = %s (floor)', (nanos, ms) => {
    expect(timestampToMillis(nanos)).toBe(ms);
  });

  it('round-trips whole milliseconds', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -8.64e15, max: 8.64e15 }),
        (ms) => timestampToMillis(timestampFromMillis(ms)) === ms,
      ),
    );
  });
});

describe('formatTimestamp from the decimal digits', () => {
  /** The formatter as it was: bigint division into seconds and nanoseconds (the reference). */
  const reference = (nanos: bigint): string => {
    const NS = 1_000_000_000n;
    const seconds = nanos >= 0n ? nanos / NS : -((-nanos + NS - 1n) / NS);
    const fraction = nanos - seconds * NS;
    const day = Number(seconds >= 0n ? seconds / 86_400n : -((-seconds + 86_399n) / 86_400n));
    const date = new Date(day * 86_400_000).toISOString().slice(0, 10);
    const inDay = Number(seconds - BigInt(day) * 86_400n);
    const p2 = (v: number): string => String(v).padStart(2, '0');
    const time = `${p2(Math.floor(inDay / 3600))}:${p2(Math.floor((inDay % 3600) / 60))}:${p2(inDay % 60)}`;
    return `${date}T${time}.${fraction.toString().padStart(9, '0')}Z`;
  };

  it('writes every instant of years 1970..9999 as the bigint arithmetic does', () => {
    const end = 253_402_300_800n * 1_000_000_000n;
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: end - 1n }), (ns) => {
        expect(formatTimestamp(ns)).toBe(reference(ns));
      }),
      { numRuns: 3000 },
    );
    for (const ns of [0n, 1n, 999_999_999n, 1_000_000_000n, 86_399_999_999_999n, 86_400_000_000_000n, end - 1n]) {
      expect(formatTimestamp(ns)).toBe(reference(ns));
    }
    // the day formatted last is remembered: alternating days must not mix
    expect(formatTimestamp(86_400_000_000_001n)).toBe('1970-01-02T00:00:00.000000001Z');
    expect(formatTimestamp(1n)).toBe('1970-01-01T00:00:00.000000001Z');
    expect(formatTimestamp(86_400_000_000_001n)).toBe('1970-01-02T00:00:00.000000001Z');
  });
});
