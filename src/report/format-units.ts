/**
 * Human units for tables and diffs: bytes (IEC), rates, counts, durations, ages and short enum
 * names. Pure; the reference instant for ages is passed in (the poll's time, never the clock).
 */
import { formatHumanDuration } from '../api/codec/duration.ts';
import { formatTimestampShort, isUnsetTimestamp } from '../api/codec/timestamp.ts';
import { shortEnumName, type EnumTable } from '../api/schema/enum-table.ts';

const NS_PER_SECOND = 1_000_000_000n;
const IEC = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'] as const;
const SI = ['', 'k', 'M', 'G', 'T', 'P', 'E'] as const;

/** Shown for an absent or unset value. */
export const NONE = '-';

/** Scales by `base` into `units`: whole numbers in the first unit, then one decimal below 100, else whole. */
function scaled(value: number, base: number, units: readonly string[], sep: string): string {
  const sign = value < 0 ? '-' : '';
  let v = Math.abs(value);
  let i = 0;
  while (v >= base && i < units.length - 1) {
    v /= base;
    i++;
  }
  if (i === 0) {
    const whole = `${sign}${Math.round(v)}${sep}${units[0]}`;
    return units[0] === '' ? whole.trimEnd() : whole;
  }
  const text = v < 100 ? (Math.floor(v * 10) / 10).toFixed(1) : String(Math.floor(v));
  return `${sign}${text}${sep}${units[i]}`;
}

/** Bytes in IEC units: `0 B`, `512 B`, `1.2 KiB`, `3.4 MiB`, `120 GiB`; negative values keep their sign. */
export function formatBytes(bytes: bigint | number): string {
  return scaled(Number(bytes), 1024, IEC, ' ');
}

/** A byte rate per second: `3.4 MiB/s`. */
export function formatByteRate(bytesPerSecond: number): string {
  return `${formatBytes(bytesPerSecond)}/s`;
}

/** A count with SI suffixes for large values: `999`, `1.2k`, `34.5M`. */
export function formatCount(count: bigint | number): string {
  return scaled(Number(count), 1000, SI, '');
}

/** A count rate per second: `12/s`, `1.5k/s`; below 10 with one decimal (`0.5/s`). */
export function formatCountRate(perSecond: number): string {
  if (Math.abs(perSecond) < 10 && perSecond !== 0) return `${(Math.round(perSecond * 10) / 10).toFixed(1)}/s`;
  return `${formatCount(perSecond)}/s`;
}

/** A signed delta: `+12`, `-3`, `+1.2 MiB` (bytes) or `+1.2k` (counts). */
export function formatDelta(delta: bigint, unit: 'bytes' | 'count'): string {
  const text =
    unit === 'bytes' ? formatBytes(delta) : delta < 1000n && delta > -1000n ? String(delta) : formatCount(delta);
  return delta >= 0n ? `+${text}` : text;
}

/** A duration in compact form (`250ms`, `1.5s`, `5m03s`, `1h30m`): formatHumanDuration's text. */
export function formatDuration(nanos: bigint): string {
  // a duration a double holds exactly takes the number path (no BigInt arithmetic); others the codec's
  const n = Number(nanos);
  return Number.isSafeInteger(n) ? humanDuration(n) : formatHumanDuration(nanos);
}

/** `n / d` rounded toward zero, exact for a safe integer `n >= 0` and a whole `d > 0` (never a float quotient). */
function quotient(n: number, d: number): number {
  return (n - (n % d)) / d;
}

/** formatHumanDuration for a safe integer number of nanoseconds. */
function humanDuration(n: number): string {
  if (n < 0) return `-${humanDuration(-n)}`;
  if (n === 0) return '0s';
  if (n < 1e3) return `${n}ns`;
  if (n < 1e6) return `${tenthsOf(n, 1e3)}µs`;
  if (n < 1e9) return `${tenthsOf(n, 1e6)}ms`;
  if (n < 1e10) return `${tenthsOf(n, 1e9)}s`;
  if (n < 6e10) return `${quotient(n, 1e9)}s`;
  if (n < 3.6e12) return `${quotient(n, 6e10)}m${pad2(quotient(n % 6e10, 1e9))}s`;
  if (n < 8.64e13) return `${quotient(n, 3.6e12)}h${pad2(quotient(n % 3.6e12, 6e10))}m`;
  return `${quotient(n, 8.64e13)}d${quotient(n % 8.64e13, 3.6e12)}h`;
}

/** `value / unit` with one decimal, truncated, without a trailing ".0" (`value` below 1e14). */
function tenthsOf(value: number, unit: number): string {
  const tenths = quotient(value * 10, unit);
  const tenth = tenths % 10;
  return tenth === 0 ? `${quotient(tenths, 10)}` : `${quotient(tenths, 10)}.${tenth}`;
}

function pad2(v: number): string {
  return v < 10 ? `0${v}` : `${v}`;
}

/**
 * A span of time for ages, in one form at every scale: the largest unit and the next one (left
 * out when zero), `42s`, `1m58s`, `5m`, `3h12m`, `2d4h`.
 */
export function formatSpan(nanos: bigint): string {
  // a span a double holds exactly takes the number path (no BigInt arithmetic); others stay bigint
  const n = Number(nanos);
  if (Number.isSafeInteger(n)) return spanOfSeconds(quotient(n < 0 ? -n : n, 1e9));
  const s = (nanos < 0n ? -nanos : nanos) / NS_PER_SECOND;
  const two = (big: bigint, bigUnit: string, small: bigint, smallUnit: string): string =>
    small === 0n ? `${big}${bigUnit}` : `${big}${bigUnit}${small}${smallUnit}`;
  if (s < 60n) return `${s}s`;
  if (s < 3600n) return two(s / 60n, 'm', s % 60n, 's');
  if (s < 86_400n) return two(s / 3600n, 'h', (s % 3600n) / 60n, 'm');
  return two(s / 86_400n, 'd', (s % 86_400n) / 3600n, 'h');
}

/** formatSpan of a safe whole number of seconds `s >= 0`. */
function spanOfSeconds(s: number): string {
  if (s < 60) return `${s}s`;
  if (s < 3600) return twoUnits(quotient(s, 60), 'm', s % 60, 's');
  if (s < 86_400) return twoUnits(quotient(s, 3600), 'h', quotient(s % 3600, 60), 'm');
  return twoUnits(quotient(s, 86_400), 'd', quotient(s % 86_400, 3600), 'h');
}

function twoUnits(big: number, bigUnit: string, small: number, smallUnit: string): string {
  return small === 0 ? `${big}${bigUnit}` : `${big}${bigUnit}${small}${smallUnit}`;
}

/** The age of a timestamp as seen at `now`: `5m ago`, `in 2m` for the future, `-` when unset. */
export function formatAge(timestamp: bigint, now: bigint): string {
  if (isUnsetTimestamp(timestamp)) return NONE;
  const d = now - timestamp;
  // formatSpan drops the sign itself
  return d >= 0n ? `${formatSpan(d)} ago` : `in ${formatSpan(d)}`;
}

/** Like formatAge without the word "ago", for narrow AGE columns (`5m`). */
export function formatAgeShort(timestamp: bigint, now: bigint): string {
  if (isUnsetTimestamp(timestamp)) return NONE;
  const d = now - timestamp;
  return d >= 0n ? formatSpan(d) : `-${formatSpan(d)}`;
}

/** A timestamp in short RFC 3339 UTC, `-` when unset (the epoch). */
export function formatTime(timestamp: bigint): string {
  return isUnsetTimestamp(timestamp) ? NONE : formatTimestampShort(timestamp);
}

/** An enum value without its common prefix (`OPEN` for `KAFKA_CONNECTION_STATE_OPEN`). */
export function shortEnum(table: EnumTable, name: string): string {
  return shortEnumName(table, name);
}

/** `yes` / `no`. */
export function formatBool(value: boolean): string {
  return value ? 'yes' : 'no';
}

/** Elapsed seconds between two instants in ns, as a float (0 when not positive). */
export function secondsBetween(from: bigint, to: bigint): number {
  const d = to - from;
  return d > 0n ? Number(d) / 1e9 : 0;
}
