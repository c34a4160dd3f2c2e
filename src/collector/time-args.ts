/**
 * Time and duration arguments of the command line and the config file: RFC 3339 instants,
 * `now`, relative forms (`-2h`, `30m` meaning that long ago, `-1d`), and durations such as
 * `10m`, `7d`, `1h30m`, `500ms`. Pure: the current time is passed in.
 */
import { parseTimestamp } from '../api/codec/timestamp.ts';

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

const GROUP = /([0-9]+)(?:\.([0-9]+))?(ns|us|ms|s|m|h|d|w)/y;

/** A time or duration argument that cannot be understood; the message says what is accepted. */
export class TimeArgError extends Error {
  override readonly name = 'TimeArgError';
}

/**
 * Parses a duration argument (`30s`, `10m`, `1h30m`, `7d`, `1.5h`, `500ms`, `2w`, bare `0`) into
 * nanoseconds. Negative durations are refused; use {@link parseTimeArg} for relative instants.
 */
export function parseDurationArg(text: string): bigint {
  const trimmed = text.trim();
  if (trimmed === '0') return 0n;
  if (trimmed === '') throw new TimeArgError('empty duration: use a number with a unit, e.g. 30s, 10m, 7d');
  if (trimmed.startsWith('-')) throw new TimeArgError(`duration ${JSON.stringify(text)} must not be negative`);
  let total = 0n;
  let pos = 0;
  while (pos < trimmed.length) {
    GROUP.lastIndex = pos;
    const m = GROUP.exec(trimmed);
    if (m === null) {
      throw new TimeArgError(
        `invalid duration ${JSON.stringify(text)}: use a number with a unit (ns, us, ms, s, m, h, d, w), e.g. 30s, 10m, 1h30m, 7d`,
      );
    }
    const [group, whole = '0', frac = '', unit = 's'] = m;
    const perUnit = UNITS[unit]!;
    const scale = 10n ** BigInt(frac.length);
    total += (BigInt(whole + frac) * perUnit) / scale;
    pos += group.length;
  }
  return total;
}

/** Parses a duration argument into whole milliseconds (rounded up, so `1ns` is 1 ms). */
export function parseDurationMs(text: string): number {
  const ns = parseDurationArg(text);
  return Number((ns + NS_PER_MS - 1n) / NS_PER_MS);
}

/**
 * Parses a time argument into nanoseconds since the epoch: RFC 3339 (`2025-09-01T10:00:00Z`),
 * `now`, or a relative form meaning that long before `nowMs` (`-2h`, `30m`, `-1d`, `-1h30m`).
 */
export function parseTimeArg(text: string, nowMs: number): bigint {
  const trimmed = text.trim();
  const now = BigInt(Math.floor(nowMs)) * NS_PER_MS;
  if (trimmed === 'now') return now;
  if (/^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt]/.test(trimmed)) {
    try {
      return parseTimestamp(trimmed);
    } catch (err) {
      throw new TimeArgError((err as Error).message);
    }
  }
  const relative = trimmed.startsWith('-') ? trimmed.slice(1) : trimmed;
  try {
    return now - parseDurationArg(relative);
  } catch {
    throw new TimeArgError(
      `invalid time ${JSON.stringify(text)}: use RFC 3339 (2025-09-01T10:00:00Z), now, or a relative form such as -2h, 30m, -1d`,
    );
  }
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
