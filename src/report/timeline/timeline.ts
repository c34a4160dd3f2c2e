/**
 * The incident timeline: every detector run in one streaming pass per resource over the
 * recorded samples (plus the poll log), from a warm-up before `since` to `until`; the events
 * are clipped to the window, filtered and ordered.
 */
import { RESOURCES, type PollRow, type ResourceName } from '../../api/schema/resources.ts';
import type { ReportReader } from '../query.ts';
import type { DetectorContext, FrameDetector, Series } from './detector.ts';
import { comparePolls, framesOf, mergeFanout } from './frames.ts';
import { DEFAULT_THRESHOLDS, type Thresholds } from './thresholds.ts';
import { compareEvents, pollTime, severityRank, type Frame, type Severity, type TimelineEvent } from './types.ts';
import { collectionDetector } from './detectors/collection.ts';
import { connectionsDetector } from './detectors/connections.ts';
import { shadowLinksDetector } from './detectors/shadow-links.ts';
import { shadowTopicsDetector } from './detectors/shadow-topics.ts';
import { upgradeDetector } from './detectors/upgrade.ts';
import { icebergDetector, type IcebergCatalog } from './detectors/iceberg.ts';

/** What the timeline reads: the poll log and the sample stream (the store's HistoryReader satisfies it). */
export interface TimelineSource {
  polls: ReportReader['polls'];
  samples: ReportReader['samples'];
  /** a poll's complete answer: the timeline reads the Iceberg catalog status from it */
  reconstructAnswer?(pollId: bigint): { readonly answer?: unknown };
}

/** Options of buildTimeline; times in ns since the epoch. */
export interface TimelineOptions {
  /** default: the first recorded poll */
  readonly since?: bigint;
  /** default: the last recorded poll */
  readonly until?: bigint;
  readonly cluster?: string;
  readonly thresholds?: Thresholds;
  /** only events about this entity (`KIND/NAME`), its children and the events relating to it */
  readonly for?: string;
  readonly minSeverity?: Severity;
}

/** The incident timeline of a window. */
export interface Timeline {
  readonly cluster: string | undefined;
  readonly since: bigint;
  readonly until: bigint;
  /** ordered by start, severity, kind, entity */
  readonly events: readonly TimelineEvent[];
  /** key series of the window, for sparklines */
  readonly series: readonly Series[];
  /** polls recorded in the window, and how many failed */
  readonly polls: { readonly total: number; readonly failed: number };
}

/** The resources the timeline reads, each with its detector. */
const RESOURCE_DETECTORS: readonly [ResourceName, (ctx: DetectorContext) => FrameDetector<never>][] = [
  ['connections', connectionsDetector as (ctx: DetectorContext) => FrameDetector<never>],
  ['shadow-links', shadowLinksDetector as (ctx: DetectorContext) => FrameDetector<never>],
  ['shadow-topics', shadowTopicsDetector as (ctx: DetectorContext) => FrameDetector<never>],
  ['upgrade', upgradeDetector as (ctx: DetectorContext) => FrameDetector<never>],
];

/** True when an event concerns `target` (`KIND/NAME`): its entity or a related one, or a child of either. */
export function eventConcerns(e: TimelineEvent, target: string): boolean {
  const hit = (ref: string): boolean => ref === target || ref.startsWith(`${target}/`);
  return hit(e.entity) || e.related.some(hit);
}

/** Builds the timeline: one pass per resource over the samples, then clip, filter and order. */
export function buildTimeline(source: TimelineSource, opts: TimelineOptions = {}): Timeline {
  const thresholds = opts.thresholds ?? DEFAULT_THRESHOLDS;
  const ctx: DetectorContext = { thresholds };
  const cluster = opts.cluster;
  const all = source.polls({ cluster, since: opts.since !== undefined ? opts.since - thresholds.warmup : undefined, until: opts.until }).slice().sort(comparePolls);
  const first = all[0];
  const last = all[all.length - 1];
  const since = opts.since ?? (first !== undefined ? pollTime(first) : 0n);
  const until = opts.until ?? (last !== undefined ? pollTime(last) : since);
  const from = since - thresholds.warmup;
  const polls = all.filter((p) => {
    const t = pollTime(p);
    return t >= from && t <= until;
  });

  const events: TimelineEvent[] = [];
  const series: Series[] = [];
  const collection = collectionDetector(ctx);
  for (const p of polls) collection.poll(p);
  events.push(...collection.finish(until));

  const okPolls = (resource: ResourceName): PollRow[] => {
    const ops = new Set<string>(RESOURCES[resource].operations);
    return polls.filter((p) => p.outcome === 'ok' && ops.has(p.operation));
  };
  const run = (resource: ResourceName, det: FrameDetector<never>): void => {
    const ok = okPolls(resource);
    if (ok.length === 0) return;
    const frames = framesOf<never>(source.samples(resource, { since: from, until, cluster }), ok);
    for (const f of resource === 'connections' ? mergeFanout(frames as Iterable<Frame<{ uid: string }>>) : frames) det.frame(f as Frame<never>);
    events.push(...det.finish(until));
    if (det.series !== undefined) series.push(...det.series());
  };
  for (const [resource, make] of RESOURCE_DETECTORS) run(resource, make(ctx));
  const iceberg = icebergDetector(ctx);
  if (source.reconstructAnswer !== undefined) {
    for (const p of okPolls('iceberg-topics')) {
      const answer = source.reconstructAnswer(p.id).answer as { catalog?: IcebergCatalog } | undefined;
      if (answer?.catalog !== undefined) iceberg.catalog(answer.catalog, pollTime(p), p.id);
    }
  }
  run('iceberg-topics', iceberg as unknown as FrameDetector<never>);

  const min = severityRank(opts.minSeverity ?? 'info');
  const kept = events.filter(
    (e) =>
      e.start <= until &&
      (e.end === null || e.end >= since) &&
      severityRank(e.severity) >= min &&
      (opts.for === undefined || eventConcerns(e, opts.for)),
  );
  kept.sort(compareEvents);
  const inWindow = polls.filter((p) => pollTime(p) >= since);
  return {
    cluster,
    since,
    until,
    events: kept,
    series: series.map((s) => clipSeries(s, since, until)),
    polls: { total: inWindow.length, failed: inWindow.filter((p) => p.outcome !== 'ok').length },
  };
}

function clipSeries(s: Series, since: bigint, until: bigint): Series {
  const out: Series = { name: s.name, unit: s.unit, times: [], values: [] };
  for (let i = 0; i < s.times.length; i++) {
    const t = s.times[i] as bigint;
    if (t < since || t > until) continue;
    out.times.push(t);
    out.values.push(s.values[i] as number);
  }
  return out;
}
