import { CodecError, quoteForError } from './errors.ts';

const NANOS_PER_SECOND = 1_000_000_000n;
/** Largest |seconds| a protobuf Duration may carry (10,000 years). */
const MAX_SECONDS = 315_576_000_000n;
const MAX_NANOS = MAX_SECONDS * NANOS_PER_SECOND + 999_999_999n;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

const WIRE_DURATION = /^(-)?([0-9]+)(?:\.([0-9]{1,9}))?s$/;

function abs(v: bigint): bigint {
  return v < 0n ? -v : v;
}

/** Parses the protobuf JSON form of a duration (`"1.500s"`, `"-0.5s"`) into nanoseconds. */
export function parseWireDuration(text: string): bigint {
  const m = WIRE_DURATION.exec(text);
  if (m === null) {
    throw new CodecError(
      'syntax',
      `invalid duration ${quoteForError(text)}: expected seconds with an "s" suffix, e.g. "1.500s"`,
    );
  }
  const [, minus, secText = '0', fracText = ''] = m;
  const seconds = BigInt(secText);
  if (seconds > MAX_SECONDS) {
    throw new CodecError('range', `duration ${quoteForError(text)} out of range (at most ${MAX_SECONDS}s)`);
  }
  const nanos = seconds * NANOS_PER_SECOND + BigInt(fracText.padEnd(9, '0'));
  return minus === '-' ? -nanos : nanos;
}

/** Formats nanoseconds as the server does: 0, 3, 6 or 9 fraction digits (fewest exact) + "s". */
export function formatWireDuration(nanos: bigint): string {
  const magnitude = abs(nanos);
  if (magnitude > MAX_NANOS) {
    throw new CodecError('range', `duration of ${nanos}ns out of range for the wire (at most ${MAX_SECONDS}s)`);
  }
  const sign = nanos < 0n ? '-' : '';
  if (magnitude <= MAX_SAFE) {
    // below 2^53 the arithmetic is exact in numbers (no bigint division per value)
    const whole = Number(magnitude);
    let secs = Math.floor(whole / 1e9);
    let rest = whole - secs * 1e9;
    // the quotient is rounded near 2^53: the remainder (exact) says when it was rounded up
    if (rest < 0) {
      secs -= 1;
      rest += 1e9;
    }
    if (rest === 0) return `${sign}${secs}s`;
    const keep = rest % 1e6 === 0 ? 3 : rest % 1e3 === 0 ? 6 : 9;
    return `${sign}${secs}.${String(rest).padStart(9, '0').slice(0, keep)}s`;
  }
  const seconds = magnitude / NANOS_PER_SECOND;
  const frac = magnitude % NANOS_PER_SECOND;
  if (frac === 0n) return `${sign}${seconds}s`;
  const digits = frac.toString().padStart(9, '0');
  const keep = frac % 1_000_000n === 0n ? 3 : frac % 1_000n === 0n ? 6 : 9;
  return `${sign}${seconds}.${digits.slice(0, keep)}s`;
}

/** Nanoseconds per filter duration unit; both micro signs (U+00B5, U+03BC) are accepted. */
const FILTER_UNITS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n,
  μs: 1_000n,
  ms: 1_000_000n,
  s: NANOS_PER_SECOND,
  m: 60n * NANOS_PER_SECOND,
  h: 3_600n * NANOS_PER_SECOND,
};

const FILTER_GROUP = /([0-9]+)(?:\.([0-9]+))?(ns|us|µs|μs|ms|s|m|h)?/y;

/**
 * Parses a filter duration (`1.5s`, `1h30m`, `2000ms`, `-0.5ms`, bare `0`) into nanoseconds.
 * Sums are computed exactly with bigint; a total finer than 1ns is truncated toward zero
 * (`1.5ns` is 1ns, `-1.5ns` is -1ns).
 */
export function parseFilterDuration(text: string): bigint {
  const fail = (why: string): never => {
    throw new CodecError('syntax', `invalid duration ${quoteForError(text)}: ${why}`);
  };
  const negative = text.startsWith('-');
  const body = negative ? text.slice(1) : text;
  if (body === '0') return 0n;
  if (body === '') fail('empty');
  if (/^[0-9]+(\.[0-9]+)?$/.test(body)) fail('duration needs a unit (e.g. 30s)');

  // Exact sum as numerator / 10^scale, scale = the most fraction digits seen so far.
  let numerator = 0n;
  let scale = 0;
  let pos = 0;
  while (pos < body.length) {
    FILTER_GROUP.lastIndex = pos;
    const m = FILTER_GROUP.exec(body);
    if (m === null)
      fail(`unexpected ${quoteForError(body.slice(pos, pos + 1))} at position ${pos + (negative ? 1 : 0)}`);
    const [group, intText = '', fracText = '', unit] = m as RegExpExecArray;
    if (unit === undefined) {
      const after = body.slice(pos + group.length);
      const unknown = /^[^0-9.]+/.exec(after)?.[0];
      fail(
        unknown !== undefined
          ? `unknown unit ${quoteForError(unknown)} (use ns, us, ms, s, m or h)`
          : `missing unit after ${quoteForError(group)}`,
      );
    }
    const unitNanos = FILTER_UNITS[unit as string] as bigint;
    if (fracText.length > scale) {
      numerator *= 10n ** BigInt(fracText.length - scale);
      scale = fracText.length;
    }
    const groupScaled = BigInt(intText + fracText) * 10n ** BigInt(scale - fracText.length);
    numerator += groupScaled * unitNanos;
    pos += group.length;
  }
  const nanos = numerator / 10n ** BigInt(scale); // truncation toward zero (numerator >= 0)
  if (nanos > MAX_NANOS) {
    throw new CodecError('range', `duration ${quoteForError(text)} out of range (at most ${MAX_SECONDS}s)`);
  }
  return negative ? -nanos : nanos;
}

const NS_PER = { us: 1_000n, ms: 1_000_000n, s: NANOS_PER_SECOND, m: 60n * NANOS_PER_SECOND } as const;
const NS_PER_HOUR = 3_600n * NANOS_PER_SECOND;
const NS_PER_DAY = 24n * NS_PER_HOUR;

/** `value / unit` with one decimal, truncated, without a trailing ".0" (1500 ms → "1.5"). */
function oneDecimal(value: bigint, unit: bigint): string {
  const tenths = (value * 10n) / unit;
  const whole = tenths / 10n;
  const tenth = tenths % 10n;
  return tenth === 0n ? `${whole}` : `${whole}.${tenth}`;
}

function pad2(v: bigint): string {
  return v.toString().padStart(2, '0');
}

/**
 * Compact human display of a duration, truncated toward zero: `0s`, `750ns`, `1.5µs`,
 * `250ms`, `1.5s`, `42s`, `5m03s`, `1h30m`, `3d4h`; negative values get a leading '-'.
 */
export function formatHumanDuration(nanos: bigint): string {
  if (nanos < 0n) return `-${formatHumanDuration(-nanos)}`;
  if (nanos === 0n) return '0s';
  if (nanos < NS_PER.us) return `${nanos}ns`;
  if (nanos < NS_PER.ms) return `${oneDecimal(nanos, NS_PER.us)}µs`;
  if (nanos < NS_PER.s) return `${oneDecimal(nanos, NS_PER.ms)}ms`;
  if (nanos < 10n * NS_PER.s) return `${oneDecimal(nanos, NS_PER.s)}s`;
  if (nanos < NS_PER.m) return `${nanos / NS_PER.s}s`;
  if (nanos < NS_PER_HOUR) return `${nanos / NS_PER.m}m${pad2((nanos % NS_PER.m) / NS_PER.s)}s`;
  if (nanos < NS_PER_DAY) return `${nanos / NS_PER_HOUR}h${pad2((nanos % NS_PER_HOUR) / NS_PER.m)}m`;
  return `${nanos / NS_PER_DAY}d${(nanos % NS_PER_DAY) / NS_PER_HOUR}h`;
}
