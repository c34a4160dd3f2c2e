/** What the timeline renderers share: times, durations, evidence lines and the key series. */
import { formatHumanDuration } from '../../api/codec/duration.ts';
import { formatTimestampShort } from '../../api/codec/timestamp.ts';
import { resample, sparkline } from '../sparkline.ts';
import type { Series } from '../timeline/detector.ts';
import type { Timeline } from '../timeline/timeline.ts';
import type { Severity, TimelineEvent } from '../timeline/types.ts';

/** The start as short RFC 3339 UTC, marked `≤` when the true start lies before it and `↶` when it was dated back (see detectedAt). */
export function startText(e: TimelineEvent): string {
  return `${e.startedBefore ? '≤' : ''}${e.detectedAt !== undefined ? '↶' : ''}${formatTimestampShort(e.start)}`;
}

/** The end: a time, `ongoing`, or empty for points. */
export function endText(e: TimelineEvent): string {
  if (e.type === 'point') return '';
  return e.end === null ? 'ongoing' : formatTimestampShort(e.end);
}

/** The duration of an interval (up to `until` while ongoing, with a `+`), empty for points. */
export function durationText(e: TimelineEvent, until: bigint): string {
  if (e.type === 'point') return '';
  const end = e.end ?? until;
  return `${formatHumanDuration(end > e.start ? end - e.start : 0n)}${e.end === null ? '+' : ''}`;
}

/**
 * The evidence in one line. A point: `state: ACTIVE → PAUSED; polls 12, 45`. An interval: the
 * values before it and during it (`reachable: true → false; errorCode: io_error`), then apart
 * what the poll that ended it showed (`; then reachable: true`), so a recovery never reads as
 * the state during the interval.
 */
export function evidenceText(e: TimelineEvent): string {
  const ev = e.evidence;
  const during = e.type === 'interval' ? (ev.during ?? {}) : ev.after;
  const keys = [...new Set([...Object.keys(ev.before), ...Object.keys(during)])];
  const parts = keys.map((k) => {
    const b = ev.before[k];
    const a = during[k];
    if (b !== undefined && a !== undefined && b !== a) return `${k}: ${b} → ${a}`;
    return `${k}: ${a ?? b ?? ''}`;
  });
  const after = e.type === 'interval' ? Object.entries(ev.after).filter(([, v]) => v !== '') : [];
  if (after.length > 0) parts.push(`then ${after.map(([k, v]) => `${k}: ${v}`).join(', ')}`);
  if (ev.pollIds.length > 0) parts.push(`polls ${ev.pollIds.join(', ')}`);
  return parts.join('; ');
}

/** Counts of events per severity. */
export function severityCounts(events: readonly TimelineEvent[]): Record<Severity, number> {
  const out: Record<Severity, number> = { info: 0, warn: 0, error: 0 };
  for (const e of events) out[e.severity]++;
  return out;
}

/** The one-line heading of a timeline. */
export function timelineHeading(t: Timeline): string {
  const c = severityCounts(t.events);
  const cluster = t.cluster !== undefined ? ` of cluster ${t.cluster}` : '';
  return (
    `Timeline${cluster}, ${formatTimestampShort(t.since)} → ${formatTimestampShort(t.until)} (${formatHumanDuration(t.until - t.since)}): ` +
    `${t.events.length} events (${c.error} error, ${c.warn} warn, ${c.info} info); ${t.polls.total} polls, ${t.polls.failed} failed`
  );
}

/** A series drawn for a window: its sparkline and range. */
export interface SeriesLine {
  readonly name: string;
  readonly unit: string;
  readonly spark: string;
  readonly values: number[];
  readonly min: number;
  readonly max: number;
  readonly last: number | undefined;
}

/**
 * The key series worth drawing (non-empty, not flat zero), resampled to buckets of `width` at
 * most, all on one time axis: a series polled less often than another has fewer buckets of its
 * own, drawn stretched to the same number of cells, so that a column means the same time in
 * every line.
 */
export function seriesLines(t: Timeline, width: number): SeriesLine[] {
  const drawn = (t.series as Series[]).filter((s) => s.values.length > 0 && !s.values.every((v) => v === 0));
  // never more buckets than polling rounds (points a second or more apart), so no false gaps
  const buckets = drawn.map((s) => Math.max(1, Math.min(width, pollingRounds(s.times))));
  const cells = Math.max(1, ...buckets);
  return drawn.map((s, i) => {
    const own = resample(s.times, s.values, t.since, t.until, buckets[i] as number, 'max');
    const values = stretch(own, cells);
    return {
      name: s.name,
      unit: s.unit,
      spark: sparkline(values),
      values,
      min: Math.min(...s.values),
      max: Math.max(...s.values),
      last: s.values[s.values.length - 1],
    };
  });
}

/** The polling rounds among `times`: points a second or more after the one before. */
function pollingRounds(times: readonly bigint[]): number {
  let rounds = 0;
  let prev: bigint | undefined;
  for (const time of times) {
    if (prev === undefined || time - prev >= 1_000_000_000n) rounds++;
    prev = time;
  }
  return rounds;
}

/** `values` (buckets of one window) drawn over `cells` cells of the same window: each cell shows the bucket its middle falls in. */
function stretch(values: readonly number[], cells: number): number[] {
  if (values.length >= cells) return [...values];
  return Array.from({ length: cells }, (_, c) => values[Math.floor(((c + 0.5) * values.length) / cells)] as number);
}
