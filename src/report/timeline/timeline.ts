/**
 * The incident timeline: every detector run in one streaming pass per resource over the
 * recorded samples (plus the poll log), from a warm-up before `since` to `until`; the events
 * are clipped to the window, filtered and ordered.
 */
import type { KafkaConnection } from '../../api/schema/connection.ts';
import { RESOURCES, type PollRow, type ResourceName } from '../../api/schema/resources.ts';
import { clampInstant, instantBefore } from '../../api/time-text.ts';
import type { RollupReader } from '../../db/rollups/rollup-store.ts';
import { ROUND_WINDOW_NS } from '../../db/read/sample-rounds.ts';
import type { ReportReader } from '../query.ts';
import { keptEvent, mergeKeptEvents } from '../rollup/kept-events.ts';
import { rawStart } from '../rollup/raw-start.ts';
import {
  connFrameOfRows,
  connFrameOfStored,
  emptyConnFrame,
  mergeConnFanout,
  type ConnFrame,
  type StoredConnFrame,
} from './conn-frame.ts';
import type { DetectorContext, FrameDetector, Series } from './detector.ts';
import { comparePolls, framesOf, padFrames } from './frames.ts';
import { DEFAULT_THRESHOLDS, type Thresholds } from './thresholds.ts';
import { eventConcerns } from './entity-names.ts';
import { markDetectedAt } from './detected-at.ts';
import { clipToRecording, laterOf, markCutByWindow } from './recording-start.ts';
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
  /**
   * the successful ListKafkaConnections polls in a range, lean (the store's HistoryReader offers
   * them): when present, the timeline reads connections from these instead of `samples`
   */
  connectionFrames?(q: { since: bigint; until: bigint; cluster?: string }): Iterable<StoredConnFrame>;
  /** the rollups: their kept events answer for the part of the window raw history no longer covers */
  rollups?(): RollupReader;
  /** runs its argument with all its reads in one snapshot (the store's HistoryReader offers it) */
  consistent?<T>(fn: () => T): T;
  /** announces the polls whose answers are reconstructed next: the store reads them in batches */
  readAhead?(polls: readonly { readonly id: number; readonly operation: string }[]): void;
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
  /** set when events kept with the rollups answer for the window before `before` (raw history starts there) */
  readonly rollups?: { readonly resolution: number; readonly before: bigint };
}

/** The resources the timeline reads as rows, each with its detector (connections are read column-wise). */
export const RESOURCE_DETECTORS: readonly [ResourceName, (ctx: DetectorContext) => FrameDetector<never>][] = [
  ['shadow-links', shadowLinksDetector as (ctx: DetectorContext) => FrameDetector<never>],
  ['shadow-topics', shadowTopicsDetector as (ctx: DetectorContext) => FrameDetector<never>],
  ['upgrade', upgradeDetector as (ctx: DetectorContext) => FrameDetector<never>],
];

export { eventConcerns } from './entity-names.ts';

/** True when a series is about `target` or one of its children, or `target` is part of what it is about. */
function seriesConcerns(s: Series, target: string): boolean {
  const e = s.entity;
  return e !== undefined && (e === target || e.startsWith(`${target}/`) || target.startsWith(`${e}/`));
}

/** Builds the timeline: one pass per resource over the samples, then clip, filter and order; all in one snapshot of the source when it offers one. */
export function buildTimeline(source: TimelineSource, opts: TimelineOptions = {}): Timeline {
  return source.consistent === undefined ? buildFrom(source, opts) : source.consistent(() => buildFrom(source, opts));
}

function buildFrom(source: TimelineSource, opts: TimelineOptions): Timeline {
  const thresholds = opts.thresholds ?? DEFAULT_THRESHOLDS;
  const ctx: DetectorContext = opts.for === undefined ? { thresholds } : { thresholds, focus: opts.for };
  const cluster = opts.cluster;
  const all = pollsOf(
    source,
    cluster,
    opts.since !== undefined ? opts.since - thresholds.warmup : undefined,
    opts.until,
  );
  const first = all[0];
  const last = all[all.length - 1];
  const kept = keptPart(source, cluster, opts.since, opts.until, rawStart(source, cluster));
  const since = opts.since ?? kept?.since ?? (first !== undefined ? pollTime(first) : 0n);
  const until = opts.until ?? (last !== undefined ? pollTime(last) : since);
  const from = since - thresholds.warmup;
  const polls = all.filter((p) => {
    const t = pollTime(p);
    return t >= from && t <= until;
  });

  // no event starts before the recording's first poll, nor before the first poll its detector read
  const recorded = source.polls({ cluster, limit: 1 })[0];
  const recordingStart = recorded === undefined ? undefined : pollTime(recorded);
  const scansFromStart = recordingStart !== undefined && from <= recordingStart;
  const events: TimelineEvent[] = [];
  const series: Series[] = [];
  const collection = collectionDetector(ctx);
  for (const p of polls) collection.poll(p);
  events.push(...collection.finish(until).map((e) => clipToRecording(e, recordingStart)));

  const okPolls = (resource: ResourceName): PollRow[] => {
    const ops = new Set<string>(RESOURCES[resource].operations);
    return polls.filter((p) => p.outcome === 'ok' && ops.has(p.operation));
  };
  const run = <R, F extends Frame<R>>(det: FrameDetector<R, F>, frames: Iterable<F>): void => {
    let first: bigint | undefined;
    for (const f of frames) {
      first ??= f.time;
      det.frame(f);
    }
    const floor = laterOf(recordingStart, scansFromStart ? first : undefined);
    const clipped = det.finish(until).map((e) => clipToRecording(e, floor));
    // read from the warm-up on, not from the recording's start: what was so at the first frame read began no later
    events.push(...(scansFromStart || first === undefined ? clipped : clipped.map((e) => markCutByWindow(e, first))));
    if (det.series !== undefined) series.push(...det.series());
  };
  const rowFrames = <R>(resource: ResourceName, ok: readonly PollRow[]): Iterable<Frame<R>> =>
    framesOf<R>(source.samples(resource, { since: from, until, cluster }), ok);
  const connPolls = okPolls('connections');
  if (connPolls.length > 0)
    run(
      connectionsDetector(ctx),
      mergeConnFanout(connectionFrames(source, { since: from, until, cluster }, connPolls)),
    );
  for (const [resource, make] of RESOURCE_DETECTORS) {
    const ok = okPolls(resource);
    if (ok.length > 0) run(make(ctx), rowFrames<never>(resource, ok));
  }
  const iceberg = icebergDetector(ctx);
  if (source.reconstructAnswer !== undefined) {
    source.readAhead?.(okPolls('iceberg-topics').map((p) => ({ id: Number(p.id), operation: p.operation })));
    for (const p of okPolls('iceberg-topics')) {
      const answer = source.reconstructAnswer(p.id).answer as { catalog?: IcebergCatalog } | undefined;
      if (answer?.catalog !== undefined) iceberg.catalog(answer.catalog, pollTime(p), p.id);
    }
  }
  const icebergPolls = okPolls('iceberg-topics');
  if (icebergPolls.length > 0) run(iceberg, rowFrames('iceberg-topics', icebergPolls));

  const min = severityRank(opts.minSeverity ?? 'info');
  const dated = markDetectedAt(events, polls);
  const merged =
    kept === undefined
      ? dated
      : mergeKeptEvents(dated, kept.reader.events(cluster, since, until).map(keptEvent), kept.before);
  const shown = merged.filter(
    (e) =>
      e.start <= until &&
      (e.end === null || e.end >= since) &&
      severityRank(e.severity) >= min &&
      (opts.for === undefined || eventConcerns(e, opts.for)),
  );
  shown.sort(compareEvents);
  const inWindow = polls.filter((p) => pollTime(p) >= since);
  return {
    ...(kept === undefined ? {} : { rollups: { resolution: kept.resolution, before: kept.before } }),
    cluster,
    since,
    until,
    events: shown,
    // with --for, the key series are those of the entity (or of what it is part of)
    series: series
      .filter((s) => opts.for === undefined || seriesConcerns(s, opts.for))
      .map((s) => clipSeries(s, since, until)),
    polls: { total: inWindow.length, failed: inWindow.filter((p) => p.outcome !== 'ok').length },
  };
}

/**
 * The polls started in [since, until] (either end open when undefined), ordered. Read with a
 * round's margin more on each side: the store answers the merged resources' reads of the window
 * (which take that margin) from this read instead of reading the polls again.
 */
function pollsOf(
  source: TimelineSource,
  cluster: string | undefined,
  since: bigint | undefined,
  until: bigint | undefined,
): PollRow[] {
  const read = source.polls({
    cluster,
    since: since === undefined ? undefined : instantBefore(since, ROUND_WINDOW_NS),
    until: until === undefined ? undefined : clampInstant(until + ROUND_WINDOW_NS),
  });
  return read
    .filter((p) => (since === undefined || p.startTime >= since) && (until === undefined || p.startTime <= until))
    .sort(comparePolls);
}

/** One column-wise frame per successful connection poll of `ok`: from the lean read when the source has it, else from rows. */
function connectionFrames(
  source: TimelineSource,
  q: { since: bigint; until: bigint; cluster: string | undefined },
  ok: readonly PollRow[],
): Iterable<ConnFrame> {
  if (source.connectionFrames !== undefined) {
    return padFrames(mapFrames(source.connectionFrames(q), connFrameOfStored), ok, emptyConnFrame);
  }
  return mapFrames(framesOf<KafkaConnection>(source.samples('connections', q), ok), connFrameOfRows);
}

function* mapFrames<A, B>(frames: Iterable<A>, fn: (a: A) => B): Generator<B> {
  for (const f of frames) yield fn(f);
}

function clipSeries(s: Series, since: bigint, until: bigint): Series {
  const out: Series =
    s.entity === undefined
      ? { name: s.name, unit: s.unit, times: [], values: [] }
      : { name: s.name, unit: s.unit, times: [], values: [], entity: s.entity };
  for (let i = 0; i < s.times.length; i++) {
    const t = s.times[i] as bigint;
    if (t < since || t > until) continue;
    out.times.push(t);
    out.values.push(s.values[i] as number);
  }
  return out;
}

/**
 * The part of a window before raw history (or, without `--since`, since the first rollup) that
 * the events kept with the rollups answer for; undefined when raw history covers the window.
 */
function keptPart(
  source: TimelineSource,
  cluster: string | undefined,
  since: bigint | undefined,
  until: bigint | undefined,
  rawFirst: bigint | undefined,
): { reader: RollupReader; since: bigint | undefined; before: bigint; resolution: number } | undefined {
  if (source.rollups === undefined || rawFirst === undefined) return undefined;
  if (since !== undefined && since >= rawFirst) return undefined;
  if (until !== undefined && until < (since ?? rawFirst)) return undefined;
  const reader = source.rollups();
  // only when raw history lost polls the rollups summarised
  const coverage = reader
    .coverage(cluster)
    .filter((c) => c.first !== undefined && c.firstPoll !== undefined && c.firstPoll < rawFirst);
  const finest = coverage[0];
  if (finest === undefined || (since !== undefined && finest.until <= since)) return undefined;
  return {
    reader,
    since: since === undefined ? finest.first : undefined,
    before: finest.until,
    resolution: finest.resolution,
  };
}
