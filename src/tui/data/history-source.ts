/**
 * The browser's data source over a history database: the reader for states and histories,
 * src/report for the timeline and diffs. Reads are cached per instant; `refresh` picks up
 * polls a collector wrote since.
 */
import type { KafkaConnection } from '../../api/schema/connection.ts';
import type { IcebergStatus } from '../../api/schema/iceberg.ts';
import type { PollRow, ResourceName } from '../../api/schema/resources.ts';
import type { HistoryReader } from '../../db/index.ts';
import { diffStates, type DiffResult } from '../../report/diff.ts';
import { freshnessOfRecording, type Freshness } from '../../report/freshness.ts';
import { buildTimeline, type Timeline } from '../../report/timeline/timeline.ts';
import { DEFAULT_THRESHOLDS, type Thresholds } from '../../report/timeline/thresholds.ts';
import { pollTime as pollInstant, type TimelineEvent } from '../../report/timeline/types.ts';
import { classifyConnections } from './connection-changes.ts';
import { timelineInWorker, type TimelineTask } from './timeline-thread.ts';
import { connectionDetail, memberVersionSteps, partitionLagSparks } from './histories.ts';
import { Lru } from './lru.ts';
import { buildOverview } from './overview.ts';
import type {
  BrowseSource,
  ConnectionChanges,
  ConnectionDetail,
  Gap,
  OverviewData,
  StateAt,
  VersionStep,
} from './source.ts';

/** Collection gaps: no polls for much longer than usual, or an operation failing (truncation is not a gap). */
const GAP_KINDS = /^(collection\.gap|api\.(unavailable|timeout|refused|error))$/;

/** A BrowseSource over a history reader. */
export class HistorySource implements BrowseSource {
  readonly cluster: string;
  readonly database: string;
  readonly thresholds: Thresholds;
  readonly thresholdsFrom: string | undefined;
  readonly launcher: string | undefined;
  readonly #reader: HistoryReader;
  #pollList: PollRow[] = [];
  #pollIndex: Map<bigint, PollRow> | undefined;
  #instantList: bigint[] = [];
  #states = new Lru<string, StateAt>(24);
  #changes = new Lru<bigint, ConnectionChanges>(4);
  #details = new Lru<string, ConnectionDetail | undefined>(4);
  #diffs = new Lru<string, DiffResult>(4);
  #catalogs = new Lru<bigint, IcebergStatus['catalog'] | undefined>(8);
  #fresh = new Lru<bigint, Freshness>(8);
  #timelineCache: Timeline | undefined;
  #members: Map<number, VersionStep[]> | undefined;

  readonly #workerPath: string | undefined;
  readonly #passwordFile: string | undefined;
  readonly #clusterOpt: { readonly cluster?: string };
  #pending: Promise<void> | undefined;
  #task: TimelineTask | undefined;
  #closed = false;

  /**
   * Wraps a reader; `cluster` names the recorded cluster (undefined: the only one). With
   * `workerPath` (the database file or URL; `passwordFile` for a URL) the timeline is computed
   * in a worker thread.
   */
  constructor(
    reader: HistoryReader,
    opts: {
      database: string;
      cluster?: string;
      workerPath?: string;
      passwordFile?: string | undefined;
      /** the timeline's thresholds (`browse --config`); default: the defaults */
      thresholds?: Thresholds;
      /** the config file they come from */
      thresholdsFrom?: string;
      /** how the user starts flightrec, for suggested commands; default `flightrec` */
      launcher?: string;
    },
  ) {
    this.#reader = reader;
    this.database = opts.database;
    this.thresholds = opts.thresholds ?? DEFAULT_THRESHOLDS;
    this.thresholdsFrom = opts.thresholdsFrom;
    this.launcher = opts.launcher;
    this.#workerPath = opts.workerPath;
    this.#passwordFile = opts.passwordFile;
    const clusters = reader.clusters();
    this.cluster = opts.cluster ?? clusters[0] ?? '(none recorded)';
    // several clusters without a choice are refused by the caller; the reader picks the only one itself
    this.#clusterOpt = opts.cluster === undefined ? {} : { cluster: opts.cluster };
    this.#readPolls();
  }

  #readPolls(): void {
    const polls = this.#reader.polls({ ...this.#clusterOpt });
    const times = [...new Set(polls.map(pollInstant))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    this.#pollList = polls;
    this.#pollIndex = undefined;
    this.#instantList = times;
  }

  /** Every recorded poll (ok or not), oldest first. */
  polls(): readonly PollRow[] {
    return this.#pollList;
  }

  poll(id: bigint): PollRow | undefined {
    this.#pollIndex ??= new Map(this.#pollList.map((p) => [p.id, p]));
    return this.#pollIndex.get(id);
  }

  instants(): readonly bigint[] {
    return this.#instantList;
  }

  refresh(): readonly bigint[] | undefined {
    const before = this.#pollList.length;
    this.#readPolls();
    if (this.#pollList.length === before) return undefined;
    this.#timelineCache = undefined;
    this.#members = undefined;
    this.#details.clear();
    this.#diffs.clear();
    this.#fresh.clear();
    return this.#instantList;
  }

  /** True once the timeline has been computed (it is computed after the first frame). */
  timelineReady(): boolean {
    return this.#timelineCache !== undefined;
  }

  prepareTimeline(): Promise<void> {
    if (this.#timelineCache !== undefined || this.#closed) return Promise.resolve();
    if (this.#pending !== undefined) return this.#pending;
    const polls = this.#pollList.length;
    // after close() the database is gone: nothing may read it any more
    const sync = (): void => {
      if (!this.#closed) this.#fullTimeline();
    };
    let started: Promise<void>;
    if (this.#workerPath === undefined) started = new Promise<void>((resolve) => setTimeout(() => resolve(sync()), 0));
    else {
      const task = timelineInWorker(this.#workerPath, this.#clusterOpt.cluster, this.#passwordFile, this.thresholds);
      this.#task = task;
      started = task.result.then(
        (t) => {
          // a refresh since the start makes this result stale: recompute on the next use
          if (this.#pollList.length === polls) this.#timelineCache ??= t;
        },
        () => sync(),
      );
    }
    this.#pending = started.finally(() => {
      this.#pending = undefined;
      this.#task = undefined;
    });
    return this.#pending;
  }

  /** Stops background work; call before closing the database. */
  close(): void {
    this.#closed = true;
    this.#task?.stop();
  }

  #fullTimeline(): Timeline {
    this.#timelineCache ??= buildTimeline(this.#reader, { ...this.#clusterOpt, thresholds: this.thresholds });
    return this.#timelineCache;
  }

  timeline(): readonly TimelineEvent[] {
    return this.#fullTimeline().events;
  }

  /** The key series of the timeline (connection counts, lags), when already computed. */
  seriesIfReady(): Timeline['series'] | undefined {
    return this.#timelineCache?.series;
  }

  gapAt(at: bigint): Gap | undefined {
    const events = this.#timelineCache?.events;
    if (events === undefined) return undefined;
    for (const e of events) {
      if (e.type !== 'interval' || !GAP_KINDS.test(e.kind)) continue;
      if (e.start <= at && (e.end === null || at < e.end))
        return { start: e.start, end: e.end ?? undefined, reason: e.description };
    }
    return undefined;
  }

  freshness(asOf: bigint): Freshness {
    return this.#fresh.get(asOf, () =>
      freshnessOfRecording(this.#reader, this.#pollList, asOf, this.#clusterOpt.cluster),
    );
  }

  stateAt<R = object>(resource: ResourceName, at: bigint): StateAt<R> {
    return this.#states.get(`${resource}@${at}`, () => {
      const s = this.#reader.stateAt(resource, at, this.#clusterOpt);
      return { poll: s.poll, rows: s.rows };
    }) as StateAt<R>;
  }

  connectionChanges(at: bigint): ConnectionChanges {
    return this.#changes.get(at, () => {
      const cur = this.#reader.stateAt('connections', at, this.#clusterOpt);
      const first = cur.polls[0] ?? cur.poll;
      if (first === undefined) return { kinds: new Map(), gone: [] };
      const start = pollInstant(first);
      let previous: PollRow | undefined;
      for (const p of this.#pollList) {
        if (p.operation !== 'ListKafkaConnections' || p.outcome !== 'ok') continue;
        if (pollInstant(p) >= start) break;
        previous = p;
      }
      const prevRows =
        previous === undefined
          ? undefined
          : (this.stateAt<KafkaConnection>('connections', pollInstant(previous)).rows as KafkaConnection[]);
      const { kinds, gone, counts } = classifyConnections(cur.rows as KafkaConnection[], prevRows);
      return previous === undefined ? { kinds, gone, counts } : { kinds, gone, counts, previous };
    });
  }

  overview(at: bigint): OverviewData {
    return buildOverview(this, at);
  }

  connection(uid: string, at: bigint): ConnectionDetail | undefined {
    return this.#details.get(`${uid}@${at}`, () => {
      const samples = this.#reader.entityHistory('connections', { uid }, this.#clusterOpt).map((s) => ({
        at: pollInstant(s.poll),
        row: s.row as KafkaConnection,
      }));
      return connectionDetail(samples, at);
    });
  }

  partitionLags(link: string, topic: string, at: bigint): ReadonlyMap<string, string> {
    const idx = this.#instantList.findIndex((t) => t > at);
    const end = idx < 0 ? this.#instantList.length - 1 : idx - 1;
    const since = this.#instantList[Math.max(0, end - 59)] ?? at;
    const samples = [...this.#reader.samples('shadow-partitions', { since, until: at, ...this.#clusterOpt })];
    return partitionLagSparks(samples, link, topic, since, at);
  }

  memberVersions(): ReadonlyMap<number, readonly VersionStep[]> {
    if (this.#members === undefined) {
      const first = this.#instantList[0];
      const last = this.#instantList[this.#instantList.length - 1];
      const samples =
        first === undefined || last === undefined
          ? []
          : [...this.#reader.samples('upgrade-members', { since: first, until: last, ...this.#clusterOpt })];
      this.#members = memberVersionSteps(samples);
    }
    return this.#members;
  }

  icebergCatalog(at: bigint): IcebergStatus['catalog'] | undefined {
    const poll = this.stateAt('iceberg-topics', at).poll;
    if (poll === undefined) return undefined;
    return this.#catalogs.get(poll.id, () => {
      const answer = this.#reader.reconstructAnswer(poll.id).answer as IcebergStatus | undefined;
      return answer?.catalog;
    });
  }

  diff(from: bigint, to: bigint): DiffResult {
    // states and configuration entity by entity; moving values show as the totals of the panel
    return this.#diffs.get(`${from}-${to}`, () =>
      diffStates(this.#reader, { from, to, ...this.#clusterOpt, only: ['state', 'config'] }),
    );
  }
}
