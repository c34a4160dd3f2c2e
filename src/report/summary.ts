/**
 * `summary [--window 6h]`: what is abnormal now (ongoing warn and error intervals at the end of
 * the window) and what changed in the window (events grouped by kind), with a few headline
 * figures. Pure over the timeline; renderers make the chat block and the JSON.
 */
import { OPERATION_NAMES } from '../api/schema/operations.ts';
import { freshnessAt, type Freshness, type FreshnessReader } from './freshness.ts';
import { buildTimeline, type Timeline, type TimelineOptions, type TimelineSource } from './timeline/timeline.ts';
import type { Series } from './timeline/detector.ts';
import { maxSeverity, severityRank, type Severity, type TimelineEvent } from './timeline/types.ts';
import { instantBefore } from '../api/time-text.ts';

/** Events of one kind in the window. */
export interface ChangeGroup {
  readonly kind: string;
  readonly count: number;
  readonly severity: Severity;
  /** distinct entities, most severe and earliest first */
  readonly entities: readonly string[];
  readonly first: bigint;
  /** the latest end, or the window's end when one is still open */
  readonly last: bigint;
  /** how many of them are still open at the window's end (their end is not known) */
  readonly open: number;
}

/** A headline figure: its value at the end of the window and at its start. */
export interface Figure {
  readonly name: string;
  readonly unit: string;
  readonly now: number | undefined;
  readonly start: number | undefined;
  readonly max: number | undefined;
}

/** The summary of a window. */
export interface Summary {
  readonly cluster: string | undefined;
  readonly since: bigint;
  readonly until: bigint;
  /** ongoing intervals of severity warn or error at the end of the window, most severe first */
  readonly abnormal: readonly TimelineEvent[];
  /** every event of the window grouped by kind, most severe first */
  readonly changes: readonly ChangeGroup[];
  readonly eventCount: number;
  readonly figures: readonly Figure[];
  readonly polls: { readonly total: number; readonly failed: number };
  /** how fresh the recording is at `until` (the summary's "now"): observed when, and stale or not */
  readonly freshness?: Freshness;
  /** set when events kept with the rollups answer for the window before `before` */
  readonly rollups?: { readonly resolution: number; readonly before: bigint };
  /** set when the window ends where a recording that stopped before now ends: "now" means `at`, `ago` before the wall clock */
  readonly recordingEnd?: { readonly at: bigint; readonly ago: bigint };
}

/** Options of summarize: the window ends at `until` and lasts `window` ns. */
export interface SummaryOptions extends Omit<TimelineOptions, 'since' | 'for' | 'minSeverity'> {
  readonly until: bigint;
  readonly window: bigint;
  /** the wall clock, given when `until` is the end of a recording that stopped before it */
  readonly wallClock?: bigint;
}

function figure(series: readonly Series[], name: string, label: string): Figure | undefined {
  const s = series.find((x) => x.name === name);
  if (s === undefined || s.values.length === 0) return undefined;
  return {
    name: label,
    unit: s.unit,
    now: s.values[s.values.length - 1],
    start: s.values[0],
    max: Math.max(...s.values),
  };
}

/** Summarises a timeline (already built for the window). */
export function summarizeTimeline(t: Timeline): Summary {
  const abnormal = t.events
    .filter((e) => e.type === 'interval' && e.end === null && e.severity !== 'info')
    .sort(
      (a, b) =>
        severityRank(b.severity) - severityRank(a.severity) || (a.start < b.start ? -1 : a.start > b.start ? 1 : 0),
    );
  const byKind = new Map<
    string,
    { count: number; severity: Severity; entities: string[]; first: bigint; last: bigint; open: number }
  >();
  for (const e of t.events) {
    let g = byKind.get(e.kind);
    if (g === undefined)
      byKind.set(
        e.kind,
        (g = { count: 0, severity: e.severity, entities: [], first: e.start, last: e.start, open: 0 }),
      );
    g.count++;
    g.severity = maxSeverity(g.severity, e.severity);
    if (!g.entities.includes(e.entity)) g.entities.push(e.entity);
    if (e.start < g.first) g.first = e.start;
    if (e.type === 'interval' && e.end === null) g.open++;
    const end = e.end ?? t.until;
    if (end > g.last) g.last = end;
  }
  const changes = [...byKind]
    .map(([kind, g]) => ({ kind, ...g }))
    .sort(
      (a, b) =>
        severityRank(b.severity) - severityRank(a.severity) || (a.first < b.first ? -1 : a.first > b.first ? 1 : 0),
    );
  const figures: Figure[] = [];
  const open = figure(t.series, 'connections.open', 'open connections');
  if (open !== undefined) figures.push(open);
  for (const s of t.series) {
    if (s.name.startsWith('shadow.lag/')) {
      const f = figure(t.series, s.name, `shadow lag ${s.name.slice('shadow.lag/'.length)}`);
      if (f !== undefined) figures.push(f);
    }
  }
  const iceberg = figure(t.series, 'iceberg.commit-lag', 'Iceberg commit lag');
  if (iceberg !== undefined) figures.push(iceberg);
  const base = {
    cluster: t.cluster,
    since: t.since,
    until: t.until,
    abnormal,
    changes,
    eventCount: t.events.length,
    figures,
    polls: t.polls,
  };
  return t.rollups === undefined ? base : { ...base, rollups: t.rollups };
}

/** Builds the timeline of the window and summarises it. */
export function summarize(source: TimelineSource & FreshnessReader, opts: SummaryOptions): Summary {
  const t = buildTimeline(source, { ...opts, since: instantBefore(opts.until, opts.window), until: opts.until });
  const summary = {
    ...summarizeTimeline(t),
    freshness: freshnessAt(source, OPERATION_NAMES, opts.until, opts.cluster),
  };
  const clock = opts.wallClock;
  return clock === undefined || clock <= opts.until
    ? summary
    : { ...summary, recordingEnd: { at: opts.until, ago: clock - opts.until } };
}

/** The default window of `summary`, when neither a window nor an end is given. */
export const DEFAULT_SUMMARY_WINDOW = 6n * 3_600_000_000_000n;

/** The window a summary covers: its end, its length, and whether it is the whole recording. */
export interface SummaryWindow {
  readonly until: bigint;
  readonly window: bigint;
  /** true: the recording ended before the default window, which would hold nothing; it covers the recording */
  readonly wholeRecording: boolean;
}

/**
 * The default window: the last `window` up to now, unless the recording (first and last poll
 * times) ended before that window began; then the whole recording, so a summary of a past
 * recording (the demo, an incident copied from production) is never empty.
 */
export function defaultSummaryWindow(
  recorded: { first: bigint; last: bigint } | undefined,
  now: bigint,
  window = DEFAULT_SUMMARY_WINDOW,
): SummaryWindow {
  if (recorded === undefined || recorded.last >= instantBefore(now, window))
    return { until: now, window, wholeRecording: false };
  const length = recorded.last - recorded.first;
  return { until: recorded.last, window: length > 0n ? length : 1n, wholeRecording: true };
}
