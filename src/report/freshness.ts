/**
 * How fresh an as-of answer is. Every answer comes from recorded polls; it is stale when the
 * newest successful poll of one of its operations is older, at the instant asked (or now, for
 * "latest"), than twice that operation's schedule interval: the collector stopped, or the
 * operation keeps failing, and the answer may no longer hold.
 *
 * The schedule's interval is not stored with the polls: it is inferred from them, as the median
 * of the gaps between the scheduled times of the operation's most recent rounds (cron firings,
 * before jitter). With fewer than two rounds recorded (a single `collect --once`, an imported
 * answer) the collector's default schedule of the operation stands in for it.
 */
import type { OperationName } from '../api/schema/operations.ts';
import type { PollRow } from '../api/schema/resources.ts';

/** The collector's default schedule interval per operation (ns), used when the recording shows too few rounds. */
export const DEFAULT_INTERVAL_NS: Readonly<Record<OperationName, bigint>> = {
  ListKafkaConnections: 30_000_000_000n,
  GetShadowLink: 30_000_000_000n,
  ListShadowTopics: 30_000_000_000n,
  GetShadowTopic: 30_000_000_000n,
  GetUpgradeStatus: 60_000_000_000n,
  GetIcebergStatus: 60_000_000_000n,
};

/** An answer is stale when its newest poll is older than this many schedule intervals. */
export const STALE_AFTER_INTERVALS = 2n;

/** Recent rounds whose gaps give the interval. */
const ROUNDS = 16;
/** Polls read per operation to find them (fan-out calls and targets share a round's scheduled time). */
const RECENT_POLLS = 200;

/** What freshness reads (the store's HistoryReader has both; `recentPolls` is preferred when offered). */
export interface FreshnessReader {
  polls(q: { cluster?: string; operation?: OperationName; since?: bigint; until?: bigint; limit?: number }): PollRow[];
  recentPolls?(q: { cluster?: string; operation: OperationName; until: bigint; limit: number }): PollRow[];
}

/** The freshness of one operation behind an answer. */
export interface OperationFreshness {
  readonly operation: string;
  /** the newest successful poll of the operation among those that answered */
  readonly newest: PollRow;
  /** the schedule interval, ns */
  readonly intervalNs: bigint;
  /** `recorded`: inferred from the scheduled times of recent rounds; `default`: the collector's default schedule */
  readonly intervalFrom: 'recorded' | 'default';
  /** how old the newest poll is at the instant asked, ns (0 when it is later) */
  readonly ageNs: bigint;
  readonly stale: boolean;
}

/** The freshness of an as-of answer. */
export interface Freshness {
  /** the instant the answer is for (`--at`, or now) */
  readonly asOf: bigint;
  /** when the newest poll behind the answer was taken; undefined when nothing answered */
  readonly observedAt: bigint | undefined;
  /** nothing answered, or some operation's newest successful poll is older than twice its interval */
  readonly stale: boolean;
  /** per operation behind the answer, in the order first seen */
  readonly operations: readonly OperationFreshness[];
}

function median(xs: bigint[]): bigint {
  xs.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return xs[xs.length >> 1]!;
}

/** The schedule interval of an operation at `until`, inferred from the scheduled times of its recent rounds. */
export function scheduleInterval(
  reader: FreshnessReader,
  operation: OperationName,
  until: bigint,
  cluster: string | undefined,
): { intervalNs: bigint; intervalFrom: 'recorded' | 'default' } {
  const recent =
    reader.recentPolls !== undefined
      ? reader.recentPolls({ cluster, operation, until, limit: RECENT_POLLS })
      : reader.polls({ cluster, operation, until }).slice(-RECENT_POLLS).reverse();
  const scheduled: bigint[] = [];
  for (const p of recent) {
    if (scheduled.length > ROUNDS) break;
    if (!scheduled.includes(p.scheduledTime)) scheduled.push(p.scheduledTime);
  }
  scheduled.sort((a, b) => (a > b ? -1 : a < b ? 1 : 0));
  const gaps: bigint[] = [];
  for (let i = 1; i < scheduled.length; i++) gaps.push(scheduled[i - 1]! - scheduled[i]!);
  const positive = gaps.filter((g) => g > 0n);
  if (positive.length === 0)
    return { intervalNs: DEFAULT_INTERVAL_NS[operation] ?? 60_000_000_000n, intervalFrom: 'default' };
  return { intervalNs: median(positive), intervalFrom: 'recorded' };
}

/**
 * The freshness of an answer at `asOf` given the polls it came from (`answered`: each the newest
 * successful poll of its operation and target at or before `asOf`).
 */
export function freshnessOf(
  reader: FreshnessReader,
  answered: readonly PollRow[],
  asOf: bigint,
  cluster: string | undefined,
): Freshness {
  const newest = new Map<string, PollRow>();
  for (const p of answered) {
    const seen = newest.get(p.operation);
    if (seen === undefined || p.startTime > seen.startTime) newest.set(p.operation, p);
  }
  const operations: OperationFreshness[] = [];
  let observedAt: bigint | undefined;
  for (const [operation, poll] of newest) {
    const { intervalNs, intervalFrom } = scheduleInterval(reader, operation as OperationName, asOf, cluster);
    const ageNs = asOf > poll.startTime ? asOf - poll.startTime : 0n;
    operations.push({
      operation,
      newest: poll,
      intervalNs,
      intervalFrom,
      ageNs,
      stale: ageNs > STALE_AFTER_INTERVALS * intervalNs,
    });
    if (observedAt === undefined || poll.startTime > observedAt) observedAt = poll.startTime;
  }
  return { asOf, observedAt, stale: operations.length === 0 || operations.some((o) => o.stale), operations };
}

/** The operations of a list of polls, computed once per list. */
const OPERATIONS_OF = new WeakMap<readonly PollRow[], Set<string>>();

/**
 * The freshness of everything recorded, at `asOf`: per operation its newest successful poll at
 * or before `asOf`, among `polls` (every recorded poll, oldest first). For a screen header.
 */
export function freshnessOfRecording(
  reader: FreshnessReader,
  polls: readonly PollRow[],
  asOf: bigint,
  cluster: string | undefined,
): Freshness {
  let operations = OPERATIONS_OF.get(polls);
  if (operations === undefined) OPERATIONS_OF.set(polls, (operations = new Set(polls.map((p) => p.operation))));
  const newest = new Map<string, PollRow>();
  // from the newest poll at or before asOf backwards, until every operation has its newest success
  let lo = 0;
  let hi = polls.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (polls[mid]!.startTime <= asOf) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo - 1; i >= 0 && newest.size < operations.size; i--) {
    const p = polls[i]!;
    if (p.outcome === 'ok' && !newest.has(p.operation)) newest.set(p.operation, p);
  }
  return freshnessOf(reader, [...newest.values()], asOf, cluster);
}

/**
 * The freshness of everything recorded at `asOf`, read through the reader: per operation ever
 * polled, its newest successful poll at or before `asOf` (for `summary`'s "now").
 */
export function freshnessAt(
  reader: FreshnessReader,
  operations: readonly OperationName[],
  asOf: bigint,
  cluster: string | undefined,
): Freshness {
  const newest: PollRow[] = [];
  for (const operation of operations) {
    const recent =
      reader.recentPolls !== undefined
        ? reader.recentPolls({ cluster, operation, until: asOf, limit: RECENT_POLLS })
        : reader.polls({ cluster, operation, until: asOf }).slice(-RECENT_POLLS).reverse();
    if (recent.length === 0) continue;
    let ok = recent.find((p) => p.outcome === 'ok');
    // failing for longer than the recent polls: the last success is further back
    ok ??= reader
      .polls({ cluster, operation, until: asOf })
      .filter((p) => p.outcome === 'ok')
      .at(-1);
    if (ok !== undefined) newest.push(ok);
  }
  return freshnessOf(reader, newest, asOf, cluster);
}
