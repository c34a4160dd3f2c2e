/**
 * The timeline's detectors run live: fed the polls of one cluster as they are stored, step by
 * step, through the same reads and the same frames as `buildTimeline` (the poll log to the
 * collection detector; lean connection frames, their fan-out merged; the rows of the other
 * resources; the Iceberg catalog from the answer), and asked after each step what they know.
 * The EventTracker turns that into transitions. A step takes the polls stored since the last one
 * that started before its horizon (a time before which every poll of the cluster is stored), so
 * rounds are never cut. To bound memory on a long recording, the detectors are started again
 * every `rebaseAfterNs` of recorded time on the last warm-up of history.
 */
import type { ResourceName, PollRow } from '../api/schema/resources.ts';
import { RESOURCES } from '../api/schema/resources.ts';
import type { KafkaConnection } from '../api/schema/connection.ts';
import {
  connFrameOfRows,
  connFrameOfStored,
  emptyConnFrame,
  mergeConnFanout,
  type ConnFrame,
} from '../report/timeline/conn-frame.ts';
import type { DetectorContext, FrameDetector, PollDetector } from '../report/timeline/detector.ts';
import { collectionDetector } from '../report/timeline/detectors/collection.ts';
import { connectionsDetector } from '../report/timeline/detectors/connections.ts';
import { icebergDetector, type IcebergCatalog, type IcebergDetector } from '../report/timeline/detectors/iceberg.ts';
import { comparePolls, framesOf, padFrames } from '../report/timeline/frames.ts';
import { clipToRecording, laterOf } from '../report/timeline/recording-start.ts';
import type { Thresholds } from '../report/timeline/thresholds.ts';
import { RESOURCE_DETECTORS, type TimelineSource } from '../report/timeline/timeline.ts';
import { pollTime, type Frame, type TimelineEvent } from '../report/timeline/types.ts';
import { EventTracker, type LiveTransition } from './event-tracker.ts';

/** What the live timeline reads (the store's HistoryReader satisfies it). */
export type LiveSource = Omit<TimelineSource, 'rollups'>;

/** Options of a LiveTimeline. */
export interface LiveTimelineOptions {
  readonly cluster: string;
  readonly thresholds: Thresholds;
  /**
   * when the collector started, ns: history before it is read as a warm-up (from a warm-up
   * before it), and what had ended by then is not announced; default: from the first poll
   */
  readonly startNs?: bigint;
  /** recorded time after which the detectors start again on the last warm-up (default 6 h) */
  readonly rebaseAfterNs?: bigint;
}

/** Default recorded time between two rebases: 6 hours. */
export const DEFAULT_REBASE_AFTER_NS = 6n * 3600n * 1_000_000_000n;

const MAX_TIME = 2n ** 63n - 1n;

interface Fed<D> {
  readonly det: D;
  /** time of the first frame fed */
  first: bigint | undefined;
}

/** One generation of detectors, from `from` on. */
interface Generation {
  readonly from: bigint;
  /** the newest poll time when it was made (its first poll for the first one) */
  readonly madeAt: bigint;
  readonly collection: PollDetector;
  readonly connections: Fed<FrameDetector<unknown, ConnFrame>>;
  readonly resources: readonly (readonly [ResourceName, Fed<FrameDetector<never>>])[];
  readonly iceberg: Fed<IcebergDetector>;
}

/** The last poll fed: the next step starts after it. */
interface Cursor {
  readonly time: bigint;
  readonly id: bigint;
}

/** The live timeline of one cluster; see the module comment. */
export class LiveTimeline {
  readonly #o: LiveTimelineOptions;
  readonly #source: LiveSource;
  readonly #ctx: DetectorContext;
  readonly #tracker: EventTracker;
  #gen: Generation | undefined;
  #cursor: Cursor | undefined;
  #recordingStart: bigint | undefined;
  /** time of the newest poll fed */
  #until: bigint | undefined;
  /** polls of the warm-up were fed and not looked at yet */
  #warming = false;

  constructor(source: LiveSource, opts: LiveTimelineOptions) {
    this.#source = source;
    this.#o = opts;
    this.#ctx = { thresholds: opts.thresholds };
    this.#tracker = new EventTracker(opts.cluster);
  }

  /** Every event announced so far, in its latest state. */
  get announced(): TimelineEvent[] {
    return this.#tracker.announced;
  }

  /** Reads the polls stored before `horizon` (ns) not read yet; returns what changed. */
  step(horizon: bigint): LiveTransition[] {
    const src = this.#source;
    const run = <T>(fn: () => T): T => (src.consistent === undefined ? fn() : src.consistent(fn));
    const out: LiveTransition[] = [];
    const fed = run(() => {
      let polls = this.#unread(horizon);
      if (polls.length === 0) return false;
      this.#gen ??= this.#newGeneration(pollTime(polls[0]!));
      // the history before the collector started is a warm-up, looked at once at its end: what
      // had ended by then is not news
      const start = this.#o.startNs;
      const at = start === undefined ? 0 : polls.findIndex((p) => pollTime(p) >= start);
      const warm = at < 0 ? polls : polls.slice(0, at);
      if (warm.length > 0) {
        this.#feed(this.#gen, warm);
        this.#warming = true;
        polls = polls.slice(warm.length);
      }
      if (this.#warming && polls.length > 0) {
        this.#warming = false;
        out.push(...this.#tracker.look(this.#snapshot(this.#until!), this.#until!, true));
      }
      if (polls.length > 0) {
        const until = this.#feed(this.#gen, polls);
        out.push(...this.#tracker.look(this.#snapshot(until), until));
      }
      return true;
    });
    const until = this.#until;
    if (
      fed &&
      !this.#warming &&
      until !== undefined &&
      until - this.#gen!.madeAt >= (this.#o.rebaseAfterNs ?? DEFAULT_REBASE_AFTER_NS)
    )
      out.push(...run(() => this.#rebase(until)));
    return out;
  }

  /** Reads every poll stored; the last look, with the events still ongoing at the newest poll. */
  finish(): LiveTransition[] {
    const out = this.step(MAX_TIME);
    if (this.#warming && this.#until !== undefined) {
      this.#warming = false;
      out.push(...this.#tracker.look(this.#snapshot(this.#until), this.#until, true));
    }
    return out;
  }

  /** The polls stored before `horizon` and after the last one fed, in time order. */
  #unread(horizon: bigint): PollRow[] {
    const src = this.#source;
    const cluster = this.#o.cluster;
    this.#recordingStart ??= firstPollTime(src, cluster);
    if (this.#recordingStart === undefined) return [];
    const after = this.#cursor;
    let since = after?.time;
    if (since === undefined) {
      const start = this.#o.startNs;
      since =
        start === undefined ? this.#recordingStart : laterOf(this.#recordingStart, start - this.#o.thresholds.warmup)!;
    }
    if (horizon <= since) return [];
    return src
      .polls({ cluster, since, until: horizon - 1n })
      .filter((p) => after === undefined || isAfter(p, after))
      .sort(comparePolls);
  }

  #newGeneration(from: bigint, madeAt = from): Generation {
    const ctx = this.#ctx;
    return {
      from,
      madeAt,
      collection: collectionDetector(ctx),
      connections: { det: connectionsDetector(ctx) as FrameDetector<unknown, ConnFrame>, first: undefined },
      resources: RESOURCE_DETECTORS.map(
        ([resource, make]) => [resource, { det: make(ctx), first: undefined }] as const,
      ),
      iceberg: { det: icebergDetector(ctx), first: undefined },
    };
  }

  /** Feeds polls (sorted, whole rounds) to every detector of a generation, as buildTimeline does; returns the newest poll's time. */
  #feed(gen: Generation, polls: readonly PollRow[]): bigint {
    const src = this.#source;
    const cluster = this.#o.cluster;
    for (const p of polls) gen.collection.poll(p);
    const since = pollTime(polls[0]!);
    const until = pollTime(polls[polls.length - 1]!);
    const okPolls = (resource: ResourceName): PollRow[] => {
      const ops = new Set<string>(RESOURCES[resource].operations);
      return polls.filter((p) => p.outcome === 'ok' && ops.has(p.operation));
    };
    const feed = <F extends Frame<unknown>>(fed: Fed<{ frame(f: F): void }>, frames: Iterable<F>): void => {
      for (const f of frames) {
        fed.first ??= f.time;
        fed.det.frame(f);
      }
    };
    const connPolls = okPolls('connections');
    if (connPolls.length > 0) {
      const frames =
        src.connectionFrames === undefined
          ? mapFrames(
              framesOf<KafkaConnection>(src.samples('connections', { since, until, cluster }), connPolls),
              connFrameOfRows,
            )
          : padFrames(
              mapFrames(src.connectionFrames({ since, until, cluster }), connFrameOfStored),
              connPolls,
              emptyConnFrame,
            );
      feed(gen.connections, mergeConnFanout(onlyPolls(frames, connPolls)));
    }
    for (const [resource, fed] of gen.resources) {
      const ok = okPolls(resource);
      if (ok.length > 0)
        feed(fed, onlyPolls(framesOf<never>(src.samples(resource, { since, until, cluster }), ok), ok));
    }
    const iceberg = okPolls('iceberg-topics');
    if (iceberg.length > 0) {
      if (src.reconstructAnswer !== undefined) {
        for (const p of iceberg) {
          const answer = src.reconstructAnswer(p.id).answer as { catalog?: IcebergCatalog } | undefined;
          if (answer?.catalog !== undefined) gen.iceberg.det.catalog(answer.catalog, pollTime(p), p.id);
        }
      }
      feed(
        gen.iceberg,
        onlyPolls(framesOf(src.samples('iceberg-topics', { since, until, cluster }), iceberg), iceberg),
      );
    }
    const last = polls[polls.length - 1]!;
    if (gen === this.#gen) {
      this.#cursor = { time: until, id: last.id };
      this.#until = until;
    }
    return until;
  }

  /** Every event the current generation knows, clipped to the recording as buildTimeline clips them. */
  #snapshot(until: bigint): TimelineEvent[] {
    const gen = this.#gen!;
    const start = this.#recordingStart;
    const scansFromStart = start !== undefined && gen.from <= start;
    const events = gen.collection.finish(until).map((e) => clipToRecording(e, start));
    const add = (fed: Fed<{ finish(until: bigint): TimelineEvent[] }>): void => {
      if (fed.first === undefined) return;
      const floor = laterOf(start, scansFromStart ? fed.first : undefined);
      for (const e of fed.det.finish(until)) events.push(clipToRecording(e, floor));
    };
    add(gen.connections);
    for (const [, fed] of gen.resources) add(fed);
    add(gen.iceberg);
    return events;
  }

  /** Starts a new generation on the last warm-up of history and hands the announced events over to it. */
  #rebase(until: bigint): LiveTransition[] {
    const from = until - this.#o.thresholds.warmup;
    const gen = this.#newGeneration(from, until);
    const polls = this.#source.polls({ cluster: this.#o.cluster, since: from, until }).sort(comparePolls);
    if (polls.length > 0) this.#feed(gen, polls);
    this.#gen = gen;
    return this.#tracker.rebase(this.#snapshot(until), until);
  }
}

function firstPollTime(src: LiveSource, cluster: string): bigint | undefined {
  const first = src.polls({ cluster, limit: 1 })[0];
  return first === undefined ? undefined : pollTime(first);
}

function isAfter(p: PollRow, c: Cursor): boolean {
  const t = pollTime(p);
  return t > c.time || (t === c.time && p.id > c.id);
}

/** The frames of the given polls only (a range read also yields polls fed in an earlier step). */
function* onlyPolls<F extends { readonly poll: PollRow }>(
  frames: Iterable<F>,
  polls: readonly PollRow[],
): Generator<F> {
  const ids = new Set(polls.map((p) => p.id));
  for (const f of frames) if (ids.has(f.poll.id)) yield f;
}

function* mapFrames<A, B>(frames: Iterable<A>, fn: (a: A) => B): Generator<B> {
  for (const f of frames) yield fn(f);
}
