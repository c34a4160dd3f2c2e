/**
 * `fleet`: one line per recorded cluster as of an instant: its newest poll and that poll's age,
 * open connections, the worst shadow lag, the Iceberg and upgrade states, and its open timeline
 * events by severity; worst first. Pure over the history reader (shared by the CLI and the TUI).
 */
import { FinalizationState } from '../api/schema/enums.ts';
import { OPERATION_NAMES, type OperationName } from '../api/schema/operations.ts';
import type { KafkaConnection } from '../api/schema/connection.ts';
import type { IcebergStatus } from '../api/schema/iceberg.ts';
import type { PollRow, ShadowTopicRow } from '../api/schema/resources.ts';
import type { UpgradeStatus } from '../api/schema/upgrade.ts';
import { instantBefore } from '../api/time-text.ts';
import { isClosedConnection } from './connection-changes.ts';
import { shortEnum } from './format-units.ts';
import type { ReportReader } from './query.ts';
import { DEFAULT_THRESHOLDS, type Thresholds } from './timeline/thresholds.ts';
import { buildTimeline, type TimelineSource } from './timeline/timeline.ts';
import { followsSource } from './timeline/detectors/shadow-topics.ts';
import { pollTime, severityRank, type Severity } from './timeline/types.ts';

/** What the fleet view reads (the store's HistoryReader satisfies it). */
export interface FleetReader extends TimelineSource {
  clusters(): string[];
  stateAt: ReportReader['stateAt'];
  recentPolls(q: { cluster?: string; operation: OperationName; until: bigint; limit: number }): PollRow[];
  reconstructAnswer(pollId: bigint): { readonly answer?: unknown };
  /** the newest poll of each operation in one read (the store's HistoryReader offers it); else recentPolls, one each */
  newestPolls?(q: { cluster?: string; operations: readonly OperationName[]; until: bigint }): (PollRow | undefined)[];
  /**
   * the connections of stateAt('connections') as their slow fields (the store's HistoryReader
   * offers it): when present, open connections are counted from these instead of full rows
   */
  connectionVersionsAt?(
    at: bigint,
    opts: { cluster?: string },
  ): { readonly poll: PollRow | undefined; readonly versions: readonly Pick<KafkaConnection, 'state'>[] };
  /**
   * reads the stored rows of the small answers of these clusters' ranges ahead, for the rest of
   * the read transaction (the store's HistoryReader offers it): one read for every cluster's timeline
   */
  readAheadWindows?(
    ranges: readonly { readonly cluster: string; readonly since: bigint; readonly until: bigint }[],
  ): void;
}

/** The Iceberg state of a cluster from its newest GetIcebergStatus poll. */
export interface FleetIceberg {
  /** `ok` (catalog reachable), `unreachable`, `poll-failed` (the newest poll failed) or `unknown` (never polled) */
  readonly state: 'ok' | 'unreachable' | 'poll-failed' | 'unknown';
  /** the catalog's error code (unreachable) or the poll's outcome (poll-failed); '' otherwise */
  readonly detail: string;
  readonly topics: number;
  /** the largest commit lag of any partition (records), undefined without partitions */
  readonly maxCommitLag: bigint | undefined;
}

/** Open events of one severity count. */
export type SeverityCounts = Readonly<Record<Severity, number>>;

/** One cluster's line. */
export interface FleetLine {
  readonly cluster: string;
  /** start of the newest poll (any operation, ok or not) at or before `at`; undefined when none */
  readonly lastPoll: PollRow | undefined;
  /** `at` minus the newest poll's time, ns */
  readonly age: bigint | undefined;
  /** open connections in the newest ListKafkaConnections state; undefined when never observed */
  readonly openConnections: number | undefined;
  /**
   * the largest lag (records, source high watermark minus shadow high watermark) of a partition
   * of a shadow topic that still follows its source, in the newest state: the lag the timeline's
   * shadow.lag-high watches (a failed-over or promoted topic's lag is no lag)
   */
  readonly worstShadowLag: bigint | undefined;
  /** `link/topic/partition` of that lag */
  readonly worstShadowLagPartition: string | undefined;
  readonly iceberg: FleetIceberg;
  /** the upgrade finalization state (`FINALIZED`, `UPGRADE_IN_PROGRESS`, ...), undefined when never observed */
  readonly upgrade: string | undefined;
  /** intervals still open at `at`, by severity */
  readonly openEvents: SeverityCounts;
}

/** The fleet as of an instant. */
export interface Fleet {
  readonly at: bigint;
  /** how far before each cluster's newest poll the timeline looks for open events */
  readonly window: bigint;
  /** worst first: open error events, then open events in all, then name */
  readonly lines: readonly FleetLine[];
}

/** Options of fleetStatus. */
export interface FleetOptions {
  /** the clusters to show (default: every recorded one) */
  readonly clusters?: readonly string[];
  readonly at: bigint;
  /** default 6 h */
  readonly window?: bigint;
  readonly thresholds?: Thresholds;
  /** false: skip the timeline (open events all zero), for a quick listing such as the TUI's */
  readonly events?: boolean;
}

/** The default look-back for open events. */
export const DEFAULT_FLEET_WINDOW = 6n * 3_600_000_000_000n;

/** The newest poll of each operation on a cluster at or before `at` (one read each). */
function newestPolls(reader: FleetReader, cluster: string, at: bigint): Map<OperationName, PollRow | undefined> {
  if (reader.newestPolls !== undefined) {
    const polls = reader.newestPolls({ cluster, operations: OPERATION_NAMES, until: at });
    return new Map(OPERATION_NAMES.map((operation, i) => [operation, polls[i]]));
  }
  return new Map(
    OPERATION_NAMES.map((operation) => [operation, reader.recentPolls({ cluster, operation, until: at, limit: 1 })[0]]),
  );
}

/** The newest of the newest polls, the first operation's on a tie. */
function newestOf(newest: ReadonlyMap<OperationName, PollRow | undefined>): PollRow | undefined {
  let best: PollRow | undefined;
  for (const p of newest.values()) {
    if (p !== undefined && (best === undefined || pollTime(p) > pollTime(best))) best = p;
  }
  return best;
}

function icebergOf(reader: FleetReader, poll: PollRow | undefined): FleetIceberg {
  if (poll === undefined) return { state: 'unknown', detail: '', topics: 0, maxCommitLag: undefined };
  if (poll.outcome !== 'ok') return { state: 'poll-failed', detail: poll.outcome, topics: 0, maxCommitLag: undefined };
  const answer = reader.reconstructAnswer(poll.id).answer as IcebergStatus | undefined;
  let maxCommitLag: bigint | undefined;
  for (const t of answer?.topics ?? []) {
    for (const p of t.partitions)
      if (maxCommitLag === undefined || p.commitLag > maxCommitLag) maxCommitLag = p.commitLag;
  }
  const reachable = answer?.catalog?.reachable ?? true;
  return {
    state: reachable ? 'ok' : 'unreachable',
    detail: reachable ? '' : (answer?.catalog?.errorCode ?? ''),
    topics: answer?.topics.length ?? 0,
    maxCommitLag,
  };
}

function worstLag(rows: readonly object[]): { lag: bigint | undefined; partition: string | undefined } {
  let lag: bigint | undefined;
  let partition: string | undefined;
  for (const t of rows as readonly ShadowTopicRow[]) {
    if (!followsSource(t.status.state)) continue;
    for (const p of t.status.partitionInformation) {
      const behind = p.sourceHighWatermark - p.highWatermark;
      const l = behind > 0n ? behind : 0n;
      if (lag === undefined || l > lag) {
        lag = l;
        partition = `${t.shadowLinkName}/${t.name}/${p.partitionId}`;
      }
    }
  }
  return { lag, partition };
}

function openEventsOf(
  reader: FleetReader,
  cluster: string,
  at: bigint,
  last: bigint | undefined,
  opts: FleetOptions,
): SeverityCounts {
  const counts: Record<Severity, number> = { info: 0, warn: 0, error: 0 };
  if (last === undefined || opts.events === false) return counts;
  const since = eventsSince(at, last, opts);
  const t = buildTimeline(reader, { cluster, since, until: at, thresholds: opts.thresholds });
  for (const e of t.events) if (e.type === 'interval' && e.end === null) counts[e.severity]++;
  return counts;
}

/** Where a cluster's look-back for open events starts: from its newest poll back, so a recording that ended long before `at` still shows what was open. */
function eventsSince(at: bigint, last: bigint, opts: FleetOptions): bigint {
  return instantBefore(last < at ? last : at, opts.window ?? DEFAULT_FLEET_WINDOW);
}

/** Connections not closed in the connection state as of `at`; undefined when none was recorded. */
function openConnections(reader: FleetReader, cluster: string, at: bigint): number | undefined {
  if (reader.connectionVersionsAt !== undefined) {
    const state = reader.connectionVersionsAt(at, { cluster });
    return state.poll === undefined ? undefined : state.versions.filter((c) => !isClosedConnection(c)).length;
  }
  const conns = reader.stateAt('connections', at, { cluster });
  return conns.poll === undefined
    ? undefined
    : (conns.rows as KafkaConnection[]).filter((c) => !isClosedConnection(c)).length;
}

/** One cluster's line as of `at`. */
export function fleetLine(reader: FleetReader, cluster: string, opts: FleetOptions): FleetLine {
  const newest = newestPolls(reader, cluster, opts.at);
  return lineOf(reader, cluster, opts, newest, icebergOf(reader, newest.get('GetIcebergStatus')));
}

/** One cluster's line as of `at`, its newest polls and Iceberg state read. */
function lineOf(
  reader: FleetReader,
  cluster: string,
  opts: FleetOptions,
  newest: ReadonlyMap<OperationName, PollRow | undefined>,
  iceberg: FleetIceberg,
): FleetLine {
  const at = opts.at;
  const lastPoll = newestOf(newest);
  const last = lastPoll === undefined ? undefined : pollTime(lastPoll);
  // the timeline first: the connection versions it loads include those of the newest state, read next
  const openEvents = openEventsOf(reader, cluster, at, last, opts);
  const open = openConnections(reader, cluster, at);
  const shadow = reader.stateAt('shadow-topics', at, { cluster });
  const lag = shadow.poll === undefined ? { lag: undefined, partition: undefined } : worstLag(shadow.rows);
  const upgrade = reader.stateAt('upgrade', at, { cluster }).rows[0] as UpgradeStatus | undefined;
  return {
    cluster,
    lastPoll,
    age: last === undefined ? undefined : at - last,
    openConnections: open,
    worstShadowLag: lag.lag,
    worstShadowLagPartition: lag.partition,
    iceberg,
    upgrade: upgrade === undefined ? undefined : shortEnum(FinalizationState, upgrade.state),
    openEvents,
  };
}

/** Orders lines worst first: open error events, then all open events, then name. */
export function compareFleetLines(a: FleetLine, b: FleetLine): number {
  const total = (l: FleetLine): number => l.openEvents.error + l.openEvents.warn + l.openEvents.info;
  return (
    b.openEvents.error - a.openEvents.error ||
    total(b) - total(a) ||
    (a.cluster < b.cluster ? -1 : a.cluster > b.cluster ? 1 : 0)
  );
}

/** The fleet as of `at`: one line per cluster, worst first; all read in one snapshot when the reader offers one. */
export function fleetStatus(reader: FleetReader, opts: FleetOptions): Fleet {
  const build = (): Fleet => {
    const clusters = opts.clusters ?? reader.clusters();
    const newest = clusters.map((c) => newestPolls(reader, c, opts.at));
    readAhead(reader, clusters, newest, opts);
    // every cluster's newest Iceberg answer: what reconstructing them reads besides their rows in one go
    const icebergPolls = newest.map((n) => n.get('GetIcebergStatus'));
    reader.readAhead?.(
      icebergPolls
        .filter((p): p is PollRow => p !== undefined && p.outcome === 'ok')
        .map((p) => ({ id: Number(p.id), operation: p.operation })),
    );
    const icebergs = icebergPolls.map((p) => icebergOf(reader, p));
    const lines = clusters.map((c, i) => lineOf(reader, c, opts, newest[i]!, icebergs[i]!)).sort(compareFleetLines);
    return { at: opts.at, window: opts.window ?? DEFAULT_FLEET_WINDOW, lines };
  };
  // one read transaction: on PostgreSQL one BEGIN and COMMIT for every read, not one pair per read
  return reader.consistent === undefined ? build() : reader.consistent(build);
}

/**
 * Announces to the reader the ranges every cluster's line reads the small answers of (its
 * timeline's, from the warm-up and a round's margin before the look-back, up to `at`), so that
 * it reads them in one go; what falls outside is read as before.
 */
function readAhead(
  reader: FleetReader,
  clusters: readonly string[],
  newest: readonly ReadonlyMap<OperationName, PollRow | undefined>[],
  opts: FleetOptions,
): void {
  if (reader.readAheadWindows === undefined || opts.events === false) return;
  const before = (opts.thresholds ?? DEFAULT_THRESHOLDS).warmup + READ_AHEAD_MARGIN;
  const ranges = [];
  for (let i = 0; i < clusters.length; i++) {
    const last = newestOf(newest[i]!);
    if (last === undefined) continue;
    const since = eventsSince(opts.at, pollTime(last), opts);
    ranges.push({ cluster: clusters[i]!, since: instantBefore(since, before), until: opts.at });
  }
  reader.readAheadWindows(ranges);
}

/** Read ahead before a timeline's warm-up: more than the margin of the rounds it merges (10 s). */
const READ_AHEAD_MARGIN = 5n * 60_000_000_000n;

/** The highest severity with an open event, or undefined when none is open. */
export function worstOpenSeverity(counts: SeverityCounts): Severity | undefined {
  let worst: Severity | undefined;
  for (const s of ['info', 'warn', 'error'] as const) {
    if (counts[s] > 0 && (worst === undefined || severityRank(s) > severityRank(worst))) worst = s;
  }
  return worst;
}
