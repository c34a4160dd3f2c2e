/** Display text of decoded field values and of diff changes, shared by the text and Markdown renderings. */
import { sanitizeCell } from '../../api/safe-text.ts';
import { stringifyJson, type JsonValue } from '../../api/codec/lossless-json.ts';
import type { FieldType } from '../../api/schema/fields.ts';
import { encodeValue } from '../../api/wire/encode.ts';
import type { FieldChange, MetricTotal, MetricUnit, Observation } from '../diff.ts';
import {
  formatByteRate,
  formatBytes,
  formatCountRate,
  formatDelta,
  formatDuration,
  formatTime,
  NONE,
  shortEnum,
} from '../format-units.ts';

/** Longest rendering of a list or message value before it is cut. */
const MAX_VALUE = 120;

/** One decoded value for people: quoted strings, short enums, human durations and times. */
export function formatValue(type: FieldType | undefined, value: unknown): string {
  if (value === undefined || value === null) return NONE;
  if (type === undefined) {
    return typeof value === 'string' ? sanitizeCell(value) : cut(sanitizeCell(stringifyJson(value as JsonValue)));
  }
  switch (type.kind) {
    case 'string':
      return `"${sanitizeCell(String(value))}"`;
    case 'bool':
    case 'int32':
    case 'uint32':
    case 'int64':
    case 'uint64':
      return String(value);
    case 'duration':
      return formatDuration(value as bigint);
    case 'timestamp':
      return formatTime(value as bigint);
    case 'enum':
      return shortEnum(type.table, String(value));
    default:
      return cut(sanitizeCell(stringifyJson(encodeValue(type, value))));
  }
}

function cut(text: string): string {
  return text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE - 1)}…` : text;
}

/** A delta in a unit: `+1.2 MiB`, `+340`, `+12.3k`. */
export function formatMetricDelta(delta: bigint, unit: MetricUnit | undefined): string {
  if (unit === 'bytes') return formatDelta(delta, 'bytes');
  if (unit === 'offset' || unit === undefined) return delta >= 0n ? `+${delta}` : String(delta);
  return formatDelta(delta, 'count');
}

/** A rate in a unit: `3.4 MiB/s`, `12/s`. */
export function formatMetricRate(rate: number, unit: MetricUnit | undefined): string {
  return unit === 'bytes' ? formatByteRate(rate) : formatCountRate(rate);
}

function formatMetricValue(value: bigint, unit: MetricUnit): string {
  return unit === 'bytes' ? formatBytes(value) : String(value);
}

/** The exact signed change of a measurement, in its unit: `+1.2 MiB`, `-2879252`, `+2ms`, `+30s`. */
function exactDelta(delta: bigint, unit: MetricUnit | undefined): string {
  if (unit === 'bytes') return formatDelta(delta, 'bytes');
  if (unit === 'duration' || unit === 'time')
    return `${delta < 0n ? '-' : '+'}${formatDuration(delta < 0n ? -delta : delta)}`;
  return delta >= 0n ? `+${delta}` : String(delta);
}

/**
 * One change as a line: its description, or `path: old → new`; a counter or gauge that moved
 * with both values and the delta (and a counter's rate): `lag: 6347408 → 3468156 (-2879252)`.
 */
export function formatChange(c: FieldChange): string {
  if (c.description !== undefined) return sanitizeCell(c.description);
  if ((c.kind === 'counter' || c.kind === 'gauge') && c.delta !== undefined) {
    const value = (v: unknown): string =>
      c.unit === 'bytes' && typeof v === 'bigint' ? formatBytes(v) : formatValue(c.type, v);
    const rate =
      c.kind === 'counter' && c.ratePerSecond !== undefined ? `, ${formatMetricRate(c.ratePerSecond, c.unit)}` : '';
    const reset = c.kind === 'counter' && c.delta < 0n ? ', reset?' : '';
    return `${c.path}: ${value(c.old)} → ${value(c.new)} (${exactDelta(c.delta, c.unit)}${rate}${reset})`;
  }
  if (c.path.endsWith('[]')) {
    const path = c.path.slice(0, -2);
    return c.new === undefined
      ? `${path}: removed ${formatValue(c.type, c.old)}`
      : `${path}: added ${formatValue(c.type, c.new)}`;
  }
  const old = c.unit === 'bytes' && typeof c.old === 'bigint' ? formatBytes(c.old) : formatValue(c.type, c.old);
  const now = c.unit === 'bytes' && typeof c.new === 'bigint' ? formatBytes(c.new) : formatValue(c.type, c.new);
  return `${c.path}: ${old} → ${now}`;
}

/** A resource total as a line: `totalRequestStatistics.fetchBytes +1.2 GiB, 3.4 MiB/s (812 moving)`. */
export function formatTotal(t: MetricTotal): string {
  if (t.kind === 'counter') {
    const rate = t.ratePerSecond === undefined ? '' : `, ${formatMetricRate(t.ratePerSecond, t.unit)}`;
    return `${t.path} ${formatMetricDelta(t.delta, t.unit)}${rate} (${t.moving} moving)`;
  }
  return `${t.path} ${formatMetricValue(t.oldSum, t.unit)} → ${formatMetricValue(t.newSum, t.unit)} (${exactDelta(t.delta, t.unit)}; ${t.moving} moving)`;
}

/** Why an instant is unobserved, in words; undefined when it is observed. */
export function unobservedReason(o: Observation): string | undefined {
  if (o.observed) return undefined;
  if (o.poll === undefined) {
    if (o.lastFailure === undefined) return `no successful poll at or before ${formatTime(o.at)}`;
    return `no successful poll at or before ${formatTime(o.at)}; ${failures(o)}`;
  }
  return `the last successful poll (${o.poll.id} at ${formatTime(o.poll.startTime)}) was followed by ${failures(o)}`;
}

function failures(o: Observation): string {
  const last = o.lastFailure;
  const what = last === undefined ? '' : ` (last: ${sanitizeCell(last.outcome)} at ${formatTime(last.startTime)})`;
  return `${o.failures} failed poll${o.failures === 1 ? '' : 's'}${what}`;
}

/** `poll 12 at 2025-09-01T10:00:00Z`. */
export function pollNote(o: Observation): string {
  return o.poll === undefined ? 'no poll' : `poll ${o.poll.id} at ${formatTime(o.poll.startTime)}`;
}
