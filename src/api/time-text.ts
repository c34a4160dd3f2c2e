/**
 * The one time language of flightrec, for the command line (`--at`, `--since`, `--until`,
 * `--from`, `--to`, `--older-than`, ...) and the browser's `t` prompt alike:
 *
 * - RFC 3339 with `Z` or an offset (`2026-01-01T10:03:00Z`; a space may replace the `T`);
 * - `now`;
 * - a time of day in UTC, `10:03` or `10:03:20`: the latest such instant at or before now;
 * - a duration, with or without a leading `-`, meaning that long before now (`-5m`, `2h`, `1h30m`).
 *
 * Every form counts from the same "now" (the wall clock). Instants are clamped to what the store
 * can represent (years 1678 to 2261), so `--until 9999-01-01T00:00:00Z` means "until the end".
 * Pure: the current time is passed in.
 */
import { parseTimestamp } from './codec/timestamp.ts';

/** A time or duration text that cannot be understood; the message says what is accepted. */
export class TimeTextError extends Error {
  override readonly name = 'TimeTextError';
}

const NS_PER_MS = 1_000_000n;
const NS_PER_S = 1_000_000_000n;
const DAY_NS = 86_400n * NS_PER_S;

/** The earliest instant flightrec stores and queries: 1678-01-01T00:00:00Z (int64 nanoseconds, with margin). */
export const EARLIEST_INSTANT_NS = -9_214_560_000n * NS_PER_S;
/** The latest instant flightrec stores and queries: 2261-12-31T23:59:59.999999999Z. */
export const LATEST_INSTANT_NS = 9_214_646_400n * NS_PER_S - 1n;

/** Nanoseconds per duration unit. */
const UNITS: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  ms: NS_PER_MS,
  s: NS_PER_S,
  m: 60n * NS_PER_S,
  h: 3_600n * NS_PER_S,
  d: 86_400n * NS_PER_S,
  w: 604_800n * NS_PER_S,
};

const GROUP = /([0-9]+)(?:\.([0-9]+))?(ns|us|ms|s|m|h|d|w)/y;

/** What the time language accepts, for messages. */
export const TIME_FORMS =
  'RFC 3339 (2026-01-01T10:03:00Z), now, a UTC time of day (10:03), or a duration ago (-2h, 30m, -1d)';

/** Clamps an instant to the range the store can represent. */
export function clampInstant(ns: bigint): bigint {
  return ns < EARLIEST_INSTANT_NS ? EARLIEST_INSTANT_NS : ns > LATEST_INSTANT_NS ? LATEST_INSTANT_NS : ns;
}

/** `instant - duration`, clamped to the representable range (never overflows). */
export function instantBefore(instant: bigint, duration: bigint): bigint {
  return clampInstant(instant - duration);
}

/**
 * Parses a duration (`30s`, `10m`, `1h30m`, `7d`, `1.5h`, `500ms`, `2w`, bare `0`) into
 * nanoseconds. Negative durations are refused.
 */
export function parseDurationText(text: string): bigint {
  const trimmed = text.trim();
  if (trimmed === '0') return 0n;
  if (trimmed === '') throw new TimeTextError('empty duration: use a number with a unit, e.g. 30s, 10m, 7d');
  if (trimmed.startsWith('-')) throw new TimeTextError(`duration ${JSON.stringify(text)} must not be negative`);
  if (trimmed.length > 64)
    throw new TimeTextError(`duration ${JSON.stringify(`${trimmed.slice(0, 20)}…`)} is too long to be a duration`);
  let total = 0n;
  let pos = 0;
  while (pos < trimmed.length) {
    GROUP.lastIndex = pos;
    const m = GROUP.exec(trimmed);
    if (m === null) {
      throw new TimeTextError(
        `invalid duration ${JSON.stringify(text)}: use a number with a unit (ns, us, ms, s, m, h, d, w), e.g. 30s, 10m, 1h30m, 7d`,
      );
    }
    const [group, whole = '0', frac = '', unit = 's'] = m;
    const scale = 10n ** BigInt(frac.length);
    total += (BigInt(whole + frac) * UNITS[unit]!) / scale;
    pos += group.length;
  }
  return total;
}

/** The latest instant at or before `now` whose UTC time of day is `secondsOfDay` (+ `nanos`). */
function latestTimeOfDay(now: bigint, secondsOfDay: number, nanos: bigint): bigint {
  const midnight = now - (((now % DAY_NS) + DAY_NS) % DAY_NS);
  const t = midnight + BigInt(secondsOfDay) * NS_PER_S + nanos;
  return t <= now ? t : t - DAY_NS;
}

/** Parses a time in the time language into nanoseconds since the epoch; `nowNs` is the current time. */
export function parseTimeText(text: string, nowNs: bigint): bigint {
  const t = text.trim();
  if (t === '') throw new TimeTextError(`empty time: use ${TIME_FORMS}`);
  if (t === 'now') return clampInstant(nowNs);
  if (/^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ]/.test(t)) {
    try {
      return clampInstant(parseTimestamp(t.replace(' ', 'T')));
    } catch (err) {
      throw new TimeTextError((err as Error).message);
    }
  }
  const tod = /^([0-9]{1,2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]{1,9}))?)?$/.exec(t);
  if (tod !== null) {
    const [, h = '0', m = '0', s = '0', frac = ''] = tod;
    if (Number(h) > 23 || Number(m) > 59 || Number(s) > 59)
      throw new TimeTextError(`${JSON.stringify(t)} is not a time of day (00:00 to 23:59:59)`);
    return clampInstant(
      latestTimeOfDay(nowNs, Number(h) * 3600 + Number(m) * 60 + Number(s), BigInt(frac.padEnd(9, '0') || '0')),
    );
  }
  if (t.startsWith('+'))
    throw new TimeTextError(
      `${JSON.stringify(t)} is in the future: a relative time counts back from now (-${t.slice(1)})`,
    );
  try {
    return instantBefore(nowNs, parseDurationText(t.startsWith('-') ? t.slice(1) : t));
  } catch {
    throw new TimeTextError(`invalid time ${JSON.stringify(t)}: use ${TIME_FORMS}`);
  }
}
