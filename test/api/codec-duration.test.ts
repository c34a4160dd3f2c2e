import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CodecError,
  formatHumanDuration,
  formatWireDuration,
  parseFilterDuration,
  parseWireDuration,
} from '../../src/api/codec/index.ts';

const S = 1_000_000_000n;
const MAX_NANOS = 315_576_000_000n * S + 999_999_999n;

function codecError(fn: () => unknown): CodecError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(CodecError);
    return err as CodecError;
  }
  throw new Error('expected a CodecError');
}

describe('parseWireDuration', () => {
  it.each([
    ['0s', 0n],
    ['30s', 30n * S],
    ['1.500s', 1_500_000_000n],
    ['0.000001s', 1_000n],
    ['-1.500s', -1_500_000_000n],
    ['-0.5s', -500_000_000n],
    ['1.5s', 1_500_000_000n],
    ['0.000000001s', 1n],
    ['-0.000000001s', -1n],
    ['0.123456789s', 123_456_789n],
    ['0.12345678s', 123_456_780n],
    ['-0s', 0n],
    ['007s', 7n * S],
    ['315576000000s', 315_576_000_000n * S],
    ['315576000000.999999999s', MAX_NANOS],
    ['-315576000000.999999999s', -MAX_NANOS],
  ])('parses %s', (text, nanos) => {
    expect(parseWireDuration(text)).toBe(nanos);
  });

  it.each([
    '',
    's',
    '1',
    '1.s',
    '.5s',
    '+1s',
    '1.5S',
    '1m',
    '1ms',
    '1e3s',
    ' 1s',
    '1s ',
    '--1s',
    '1,5s',
    '-s',
    '1.0000000001s',
    '1h30m',
    '0x10s',
    '1.5.5s',
    '- 1s',
    'NaNs',
  ])('refuses %j and names it', (text) => {
    const err = codecError(() => parseWireDuration(text));
    expect(err.reason).toBe('syntax');
    expect(err.message).toContain(JSON.stringify(text));
  });

  it('refuses more than 315576000000 seconds', () => {
    const err = codecError(() => parseWireDuration('315576000001s'));
    expect(err.reason).toBe('range');
    expect(codecError(() => parseWireDuration('-315576000001.5s')).reason).toBe('range');
  });
});

describe('formatWireDuration', () => {
  it.each([
    [1_500_000_000n, '1.500s'],
    [1_000n, '0.000001s'],
    [0n, '0s'],
    [-1_500_000_000n, '-1.500s'],
    [1n, '0.000000001s'],
    [-1n, '-0.000000001s'],
    [30n * S, '30s'],
    [-30n * S, '-30s'],
    [1_000_000n, '0.001s'],
    [-500_000_000n, '-0.500s'],
    [1_234_567_000n, '1.234567s'],
    [1_234_567_891n, '1.234567891s'],
    [1_230_000_000n, '1.230s'],
    [1_000_100_000n, '1.000100s'],
    [MAX_NANOS, '315576000000.999999999s'],
  ])('formats %s as %s', (nanos, text) => {
    expect(formatWireDuration(nanos)).toBe(text);
  });

  it('refuses values beyond the protobuf range', () => {
    expect(codecError(() => formatWireDuration(MAX_NANOS + 1n)).reason).toBe('range');
    expect(codecError(() => formatWireDuration(-MAX_NANOS - 1n)).reason).toBe('range');
  });

  it.each(['0s', '30s', '1.500s', '0.000001s', '-1.500s', '0.000000001s', '-0.500s', '12.345678s', '86400s'])(
    'round-trips the server form %s exactly',
    (text) => {
      expect(formatWireDuration(parseWireDuration(text))).toBe(text);
    },
  );

  it('canonicalises other accepted forms', () => {
    expect(formatWireDuration(parseWireDuration('1.5s'))).toBe('1.500s');
    expect(formatWireDuration(parseWireDuration('01.10000s'))).toBe('1.100s');
    expect(formatWireDuration(parseWireDuration('-0s'))).toBe('0s');
  });

  it('parse(format(n)) is the identity over the whole range', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -MAX_NANOS, max: MAX_NANOS }),
        (n) => parseWireDuration(formatWireDuration(n)) === n,
      ),
    );
    const small = fc.bigInt({ min: -10n * S, max: 10n * S });
    fc.assert(fc.property(small, (n) => parseWireDuration(formatWireDuration(n)) === n));
  });

  it('always uses 0, 3, 6 or 9 fraction digits, the fewest that are exact', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -MAX_NANOS, max: MAX_NANOS }),
        fc.constantFrom(1n, 1_000n, 1_000_000n, S),
        (n, unit) => {
          const v = (n / unit) * unit;
          const text = formatWireDuration(v);
          const digits = /\.(\d+)s$/.exec(text)?.[1]?.length ?? 0;
          const expected = v % S === 0n ? 0 : v % 1_000_000n === 0n ? 3 : v % 1_000n === 0n ? 6 : 9;
          return digits === expected;
        },
      ),
    );
  });
});

describe('parseFilterDuration', () => {
  it.each([
    ['1.5s', 1_500_000_000n],
    ['1h30m', 5_400n * S],
    ['2000ms', 2n * S],
    ['5h', 18_000n * S],
    ['0.5ms', 500_000n],
    ['0', 0n],
    ['-0', 0n],
    ['0s', 0n],
    ['30s', 30n * S],
    ['-1.5s', -1_500_000_000n],
    ['1ns', 1n],
    ['1us', 1_000n],
    ['1\u00b5s', 1_000n],
    ['1\u03bcs', 1_000n],
    ['1ms', 1_000_000n],
    ['1m', 60n * S],
    ['1h', 3_600n * S],
    ['1h1m1s1ms1us1ns', 3_661_001_001_001n],
    ['0.5h0.25m', 1_815n * S],
    ['1h1h', 7_200n * S],
    ['1.5m', 90n * S],
    ['0.000000001s', 1n],
    ['007s', 7n * S],
    ['1.000000000000000000001s', S],
    ['87660000h', 315_576_000_000n * S],
    ['-1h30m', -5_400n * S],
  ])('parses %s', (text, nanos) => {
    expect(parseFilterDuration(text)).toBe(nanos);
  });

  it('truncates sub-nanosecond totals toward zero', () => {
    expect(parseFilterDuration('1.5ns')).toBe(1n);
    expect(parseFilterDuration('-1.5ns')).toBe(-1n);
    expect(parseFilterDuration('0.1ns')).toBe(0n);
    expect(parseFilterDuration('0.0000000015s')).toBe(1n);
    expect(parseFilterDuration('-0.0000000019s')).toBe(-1n);
    // Exact sum first, then one truncation: 0.5ns + 0.5ns is 1ns, not 0ns.
    expect(parseFilterDuration('0.5ns0.5ns')).toBe(1n);
    expect(parseFilterDuration('0.0000005us0.0000005ms')).toBe(0n);
  });

  it.each(['5', '1.5', '-5', '00', '0.0', '42'])('says the bare number %s needs a unit', (text) => {
    const err = codecError(() => parseFilterDuration(text));
    expect(err.reason).toBe('syntax');
    expect(err.message).toContain('duration needs a unit (e.g. 30s)');
    expect(err.message).toContain(JSON.stringify(text));
  });

  it.each([
    ['', /empty/],
    ['-', /empty/],
    ['5d', /unknown unit "d"/],
    ['5S', /unknown unit "S"/],
    ['1e3s', /unknown unit "e"/],
    ['1h30', /missing unit after "30"/],
    ['5 s', /unknown unit " s"/],
    ['.5s', /unexpected "\." at position 0/],
    ['5.s', /missing unit after "5"/],
    ['+5s', /unexpected "\+"/],
    ['--5s', /unexpected "-" at position 1/],
    ['5s-', /unexpected "-" at position 2/],
    ['\t5s', /unexpected/],
    ['s', /unexpected "s"/],
    ['1h 30m', /unexpected " " at position 2/],
  ])('refuses %j', (text, why) => {
    const err = codecError(() => parseFilterDuration(text));
    expect(err.message).toMatch(why);
    expect(err.message).toContain(JSON.stringify(text));
  });

  it('refuses durations beyond the protobuf range', () => {
    expect(codecError(() => parseFilterDuration('87660001h')).reason).toBe('range');
    expect(codecError(() => parseFilterDuration('-315576001000s')).reason).toBe('range');
  });

  it('reads every wire duration as the same quantity', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -MAX_NANOS, max: MAX_NANOS }),
        (n) => parseFilterDuration(formatWireDuration(n)) === n,
      ),
    );
  });

  it('sums random compounds exactly', () => {
    const part = fc.bigInt({ min: 0n, max: 10_000n });
    fc.assert(
      fc.property(part, part, part, part, part, part, fc.boolean(), (h, m, s, ms, us, ns, neg) => {
        const text = `${neg ? '-' : ''}${h}h${m}m${s}s${ms}ms${us}us${ns}ns`;
        const total = ((h * 60n + m) * 60n + s) * S + ms * 1_000_000n + us * 1_000n + ns;
        return parseFilterDuration(text) === (neg ? -total : total);
      }),
    );
  });

  it('reads decimal seconds like the decimal fraction they spell', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.integer({ min: 1, max: 15 }), (units, digits) => {
        const text = units.toString().padStart(digits + 1, '0');
        const decimal = `${text.slice(0, -digits)}.${text.slice(-digits)}s`;
        const exact = (units * S) / 10n ** BigInt(digits); // truncation toward zero
        return parseFilterDuration(decimal) === exact;
      }),
    );
  });
});

describe('formatHumanDuration', () => {
  it.each([
    [0n, '0s'],
    [1n, '1ns'],
    [999n, '999ns'],
    [1_000n, '1µs'],
    [1_500n, '1.5µs'],
    [999_999n, '999.9µs'],
    [1_000_000n, '1ms'],
    [1_234_567n, '1.2ms'],
    [250_000_000n, '250ms'],
    [999_999_999n, '999.9ms'],
    [S, '1s'],
    [1_500_000_000n, '1.5s'],
    [9_999_999_999n, '9.9s'],
    [10n * S, '10s'],
    [42n * S, '42s'],
    [59_900_000_000n, '59s'],
    [60n * S, '1m00s'],
    [303n * S, '5m03s'],
    [3_599n * S, '59m59s'],
    [3_600n * S, '1h00m'],
    [5_400n * S, '1h30m'],
    [86_399n * S, '23h59m'],
    [86_400n * S, '1d0h'],
    [(3n * 86_400n + 4n * 3_600n + 59n) * S, '3d4h'],
    [400n * 86_400n * S, '400d0h'],
    [-1_500_000_000n, '-1.5s'],
    [-303n * S, '-5m03s'],
    [-1n, '-1ns'],
  ])('formats %s as %s', (nanos, text) => {
    expect(formatHumanDuration(nanos)).toBe(text);
  });

  it('is symmetric around zero and never longer than a few characters', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10_000n * 86_400n * S }), (n) => {
        const text = formatHumanDuration(n);
        return formatHumanDuration(-n) === `-${text}` && text.length <= 9;
      }),
    );
  });
});

describe('formatWireDuration below 2^53 nanoseconds', () => {
  /** The formatter as it was: bigint arithmetic at any size (the reference). */
  const reference = (nanos: bigint): string => {
    const magnitude = nanos < 0n ? -nanos : nanos;
    const sign = nanos < 0n ? '-' : '';
    const seconds = magnitude / 1_000_000_000n;
    const frac = magnitude % 1_000_000_000n;
    if (frac === 0n) return `${sign}${seconds}s`;
    const keep = frac % 1_000_000n === 0n ? 3 : frac % 1_000n === 0n ? 6 : 9;
    return `${sign}${seconds}.${frac.toString().padStart(9, '0').slice(0, keep)}s`;
  };

  it('writes the same text as the bigint arithmetic, at the edges of exact numbers too', () => {
    const safe = BigInt(Number.MAX_SAFE_INTEGER);
    fc.assert(
      fc.property(fc.bigInt({ min: -safe - 5n, max: safe + 5n }), (ns) => {
        expect(formatWireDuration(ns)).toBe(reference(ns));
      }),
      { numRuns: 3000 },
    );
    // quotients that a float division rounds up to the next whole second
    for (let k = 1n; k <= 9_007_199n; k = k * 3n + 1n) {
      for (const ns of [k * 1_000_000_000n - 1n, k * 1_000_000_000n, -(k * 1_000_000_000n - 1n)]) {
        expect(formatWireDuration(ns)).toBe(reference(ns));
      }
    }
    for (const ns of [safe, safe + 1n, -safe, 8_999_999_999_999_999n, 9_007_199_000_000_000n - 1n]) {
      expect(formatWireDuration(ns)).toBe(reference(ns));
    }
  });
});
