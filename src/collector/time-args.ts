/**
 * Time and duration arguments of the command line and the config file, in the time language
 * shared with the browser (src/api/time-text.ts): RFC 3339 instants, `now`, UTC times of day,
 * relative forms (`-2h`, `30m` meaning that long ago), and durations such as `10m`, `7d`,
 * `1h30m`, `500ms`. Pure: the current time is passed in.
 */
import { parseDurationText, parseTimeText, TimeTextError } from '../api/time-text.ts';

const NS_PER_MS = 1_000_000n;

/** Nanoseconds per duration unit accepted in arguments. */
const UNITS: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  ms: NS_PER_MS,
  s: 1_000n * NS_PER_MS,
  m: 60_000n * NS_PER_MS,
  h: 3_600_000n * NS_PER_MS,
  d: 86_400_000n * NS_PER_MS,
  w: 604_800_000n * NS_PER_MS,
};

/** A time or duration argument that cannot be understood; the message says what is accepted. */
export class TimeArgError extends Error {
  override readonly name = 'TimeArgError';
}

function asArgError<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof TimeTextError) throw new TimeArgError(err.message);
    throw err;
  }
}

/**
 * Parses a duration argument (`30s`, `10m`, `1h30m`, `7d`, `1.5h`, `500ms`, `2w`, bare `0`) into
 * nanoseconds. Negative durations are refused; use {@link parseTimeArg} for relative instants.
 */
export function parseDurationArg(text: string): bigint {
  return asArgError(() => parseDurationText(text));
}

/** Parses a duration argument into whole milliseconds (rounded up, so `1ns` is 1 ms). */
export function parseDurationMs(text: string): number {
  const ns = parseDurationArg(text);
  return Number((ns + NS_PER_MS - 1n) / NS_PER_MS);
}

/**
 * Parses a time argument into nanoseconds since the epoch, in the time language shared with the
 * browser (src/api/time-text.ts): RFC 3339, `now`, a UTC time of day (`10:03`: the latest such
 * instant at or before now), or a duration ago (`-2h`, `30m`). Clamped to years 1678..2261.
 */
export function parseTimeArg(text: string, nowMs: number): bigint {
  return asArgError(() => parseTimeText(text, BigInt(Math.floor(nowMs)) * NS_PER_MS));
}

/**
 * Parses a cut-off such as `--older-than`: a duration (`7d`: that long before now) or an
 * instant (RFC 3339, `now`, `-2h`). Returns nanoseconds since the epoch.
 */
export function parseCutoffArg(text: string, nowMs: number): bigint {
  return parseTimeArg(text, nowMs);
}

/** Formats nanoseconds as a compact duration for messages (`1h30m`, `45s`, `250ms`). */
export function formatDurationArg(ns: bigint): string {
  if (ns === 0n) return '0s';
  const parts: string[] = [];
  let rest = ns;
  for (const unit of ['d', 'h', 'm', 's', 'ms'] as const) {
    const per = UNITS[unit]!;
    if (rest >= per) {
      parts.push(`${rest / per}${unit}`);
      rest %= per;
    }
  }
  if (rest > 0n) parts.push(`${rest}ns`);
  return parts.join('');
}
