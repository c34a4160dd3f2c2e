/**
 * One poll round: one operation of one cluster, fired once by its schedule (or by a test).
 * It makes the call(s) the operation needs (per shadow link and topic; the connections
 * fan-out), retries what is worth retrying, and hands every attempt to the recorder.
 */
import { CallError, type CallOptions, type CallResult } from '../api/client/index.ts';
import type { OperationName, RequestOf, ResponseOf } from '../api/schema/operations.ts';
import type { PollCoverage, PollFailure, PollRecord, PollSuccess } from '../db/poll-record.ts';
import { onAbort } from './abort-waiters.ts';
import { QueueAbortedError, type CallQueue } from './call-queue.ts';
import { answerRows } from './answer-rows.ts';
import type { ClusterConfig } from './config.ts';
import {
  CoverageTracker,
  firstPageSize,
  isTruncated,
  learnFromConnections,
  learnListing,
  learnFromMembers,
  planNodeSlices,
  planShardSlices,
  slicePageSize,
  type RoundCoverage,
  type Slice,
  type Topology,
} from './fanout.ts';
import { backoffDelayMs, shouldRetry, type RetryPolicy, type Sleep } from './retry.ts';

/** What the poller needs of a client (ConnectClient satisfies it). */
export interface AdminCaller {
  call<N extends OperationName>(op: N, request: RequestOf<N>, opts?: CallOptions): Promise<CallResult<ResponseOf<N>>>;
  close(): Promise<void> | void;
}

/** A cluster as the poller sees it: its config, its client, its one-call-at-a-time queue, what it learnt. */
export interface ClusterRuntime {
  readonly config: ClusterConfig;
  readonly client: AdminCaller;
  readonly queue: CallQueue;
  readonly topology: Topology;
}

/** The injected world of a round: recorder, clock, retry policy, sleep, randomness, stop signals. */
export interface RoundDeps {
  /**
   * stores one attempt; must not throw (the collector's recorder catches store failures). A
   * promise: the store is behind (records handed over and not yet written past their budget), and
   * the round's next call waits for it
   */
  readonly record: (record: PollRecord) => void | Promise<void>;
  /** the current time in nanoseconds since the epoch */
  readonly nowNs: () => bigint;
  /** a monotonic clock (ns) timing each call: its end is its start plus the time measured (nowNs stands still during calls) */
  readonly callClockNs?: () => bigint;
  readonly retry: RetryPolicy;
  readonly sleep: Sleep;
  /** a number in [0, 1) */
  readonly random: () => number;
  /** soft stop: once aborted no new call or retry starts */
  readonly stopping: AbortSignal;
  /** hard stop: aborting it cancels the call in flight */
  readonly abort: AbortSignal;
  /** a new unique round id */
  readonly roundId: () => string;
}

/** A target whose last attempt failed. */
export interface RoundFailure {
  readonly target: string;
  readonly code: string;
  readonly kind: string;
  readonly httpStatus?: number;
  readonly message: string;
}

/** What one round did. */
export interface RoundResult {
  readonly cluster: string;
  readonly operation: OperationName;
  readonly round: string;
  readonly scheduledAt: bigint;
  /** targets polled (links, topics; 1 for the cluster-wide operations) */
  readonly targets: number;
  /** call attempts made, retries included */
  readonly calls: number;
  /** attempts that failed, retried ones included */
  readonly failedCalls: number;
  /** targets that ended in failure after retries */
  readonly failures: readonly RoundFailure[];
  /** ListKafkaConnections only: the distinct rows gathered against totalSize */
  readonly coverage?: RoundCoverage;
  /** true when a stop request cut the round short */
  readonly stopped: boolean;
  /** true when the round did not run: another collector holds the cluster's lease */
  readonly standby?: boolean;
  readonly startedAt: bigint;
  readonly endedAt: bigint;
}

interface RoundState {
  readonly rt: ClusterRuntime;
  readonly deps: RoundDeps;
  readonly round: string;
  readonly scheduledAt: bigint;
  targets: number;
  calls: number;
  failedCalls: number;
  failures: RoundFailure[];
  coverage?: RoundCoverage;
  stopped: boolean;
}

/** The PollFailure of a failed call (no secret can be in it: the client redacts server text). */
export function failureOf(err: CallError): PollFailure {
  const raw = err.body;
  const transport =
    err.transportCode !== undefined && !err.message.includes(err.transportCode) ? ` (${err.transportCode})` : '';
  const retryAfter = err.retryAfterMs === undefined ? '' : ` (Retry-After: ${formatSeconds(err.retryAfterMs)})`;
  return {
    ok: false,
    code: err.code,
    kind: err.kind,
    ...(err.httpStatus === undefined ? {} : { httpStatus: err.httpStatus }),
    message: `${err.message}${transport}${retryAfter}`,
    details: err.details,
    ...(err.path === undefined ? {} : { path: err.path }),
    ...(raw === undefined ? {} : { raw }),
    bytes: err.size ?? raw?.length ?? 0,
  };
}

function formatSeconds(ms: number): string {
  return `${Number.isInteger(ms / 1000) ? ms / 1000 : (ms / 1000).toFixed(3)}s`;
}

/**
 * The pause before the next attempt: the back-off of the policy, or longer when the server
 * asked for it with Retry-After, never more than the policy's maxDelayMs.
 */
export function retryDelayMs(err: CallError, attempt: number, policy: RetryPolicy, random: () => number): number {
  const backoff = backoffDelayMs(err.code, attempt, policy, random);
  if (err.retryAfterMs === undefined) return backoff;
  return Math.min(policy.maxDelayMs, Math.max(backoff, err.retryAfterMs));
}

/**
 * Calls one operation for one target, retrying retryable failures with back-off; records every
 * attempt. Returns the last result, or undefined when a stop request came before any attempt.
 */
async function callWithRetry<N extends OperationName>(
  s: RoundState,
  op: N,
  request: RequestOf<N>,
  target: string,
  coverageOf?: (res: CallResult<ResponseOf<N>>, callNo: number) => PollCoverage,
): Promise<CallResult<ResponseOf<N>> | undefined> {
  const { rt, deps } = s;
  for (let attempt = 1; ; attempt++) {
    if (deps.stopping.aborted) {
      s.stopped = true;
      return undefined;
    }
    const t = { start: 0n, end: 0n };
    let res: CallResult<ResponseOf<N>>;
    try {
      res = await rt.queue.run(async () => {
        t.start = deps.nowNs();
        const callClock = deps.callClockNs;
        const began = callClock?.();
        // a signal of this call's own, joined to the collector's through its one listener there
        // (abort-waiters.ts): the client listens on it, not on the signal every cluster shares
        const call = new AbortController();
        const stopWaiting = onAbort(deps.abort, () => call.abort());
        try {
          return await rt.client.call(op, request, { signal: call.signal });
        } finally {
          stopWaiting();
          t.end = callClock === undefined || began === undefined ? deps.nowNs() : t.start + (callClock() - began);
        }
      }, deps.stopping);
    } catch (err) {
      if (err instanceof QueueAbortedError) {
        s.stopped = true;
        return undefined;
      }
      const message = `the client failed: ${err instanceof Error ? err.message : String(err)}`;
      res = {
        ok: false,
        error: new CallError({ operation: op, code: 'internal', kind: 'transport', message, elapsedMs: 0 }),
      };
      if (t.start === 0n) t.start = deps.nowNs();
      if (t.end === 0n) t.end = deps.nowNs();
    }
    s.calls++;
    const outcome: PollSuccess<N> | PollFailure = res.ok
      ? { ok: true, answer: res.value, raw: res.body, bytes: res.bytes }
      : failureOf(res.error);
    const coverage = coverageOf?.(res, s.calls);
    const record: PollRecord<N> = {
      cluster: rt.config.name,
      operation: op,
      target,
      request,
      round: s.round,
      attempt,
      scheduledAt: s.scheduledAt,
      startedAt: t.start,
      endedAt: t.end,
      outcome,
      ...(coverage === undefined ? {} : { coverage }),
      // secrets the client already removed from an error answer
      ...(res.ok || res.error.redactions === undefined ? {} : { redactions: res.error.redactions }),
    };
    const behind = deps.record(record);
    if (behind !== undefined) await behind;
    if (res.ok) return res;
    s.failedCalls++;
    const { code, kind } = res.error;
    const retry = shouldRetry(code, attempt, deps.retry, kind) && !deps.stopping.aborted;
    if (!retry || !(await deps.sleep(retryDelayMs(res.error, attempt, deps.retry, deps.random), deps.stopping))) {
      if (deps.stopping.aborted) s.stopped = true;
      s.failures.push({
        target,
        code,
        kind,
        ...(res.error.httpStatus === undefined ? {} : { httpStatus: res.error.httpStatus }),
        message: outcome.ok ? '' : outcome.message,
      });
      return res;
    }
  }
}

type ConnectionsAnswer = ResponseOf<'ListKafkaConnections'>;

async function connectionsRound(s: RoundState): Promise<void> {
  const cfg = s.rt.config.connections;
  const topo = s.rt.topology;
  const tracker = new CoverageTracker();
  s.targets = 1;
  const call = async (slice: Slice | undefined, pageSize = cfg.pageSize): Promise<ConnectionsAnswer | undefined> => {
    const request: RequestOf<'ListKafkaConnections'> = {
      filter: slice?.filter ?? cfg.filter,
      orderBy: cfg.orderBy,
      pageSize,
    };
    const res = await callWithRetry(s, 'ListKafkaConnections', request, '', (r, callNo) => ({
      rowsReturned: r.ok ? r.value.connections.length : 0,
      totalSize: r.ok ? r.value.totalSize : 0n,
      fanoutCalls: callNo,
      slice: slice?.clause ?? '',
    }));
    if (res === undefined || !res.ok) return undefined;
    learnFromConnections(topo, res.value.connections);
    tracker.add(res.value.connections, res.value.totalSize, slice?.clause ?? '', pageSize);
    return res.value;
  };
  const firstPage = cfg.fanout ? firstPageSize(cfg.pageSize, topo.listing) : cfg.pageSize;
  const first = await call(undefined, firstPage);
  if (first !== undefined)
    learnListing(topo.listing, cfg.pageSize, firstPage, first.connections.length, first.totalSize);
  if (first !== undefined && cfg.fanout && isTruncated(first.connections.length, first.totalSize)) {
    // each slice asks for as many rows as the wider call said match (slicePageSize)
    const nodePage = slicePageSize(cfg.pageSize, first.totalSize);
    for (const slice of planNodeSlices(cfg.filter, topo.brokers)) {
      if (s.calls >= cfg.maxCalls || s.stopped) break;
      const part = await call(slice, nodePage);
      if (part === undefined || !isTruncated(part.connections.length, part.totalSize)) continue;
      const shardPage = slicePageSize(cfg.pageSize, part.totalSize);
      for (const shard of planShardSlices(cfg.filter, slice.nodeId, topo.shards.get(slice.nodeId) ?? [])) {
        if (s.calls >= cfg.maxCalls || s.stopped) break;
        await call(shard, shardPage);
      }
    }
  }
  if (first !== undefined) {
    s.coverage = tracker.result();
    // a probe lists no brokers to learn from: a round it left incomplete (a broker no slice asked
    // for, say) makes the next round's first call a full page again
    if (!s.coverage.complete && firstPage !== cfg.pageSize) topo.listing.cutAt = undefined;
  }
}

async function perTarget<N extends OperationName>(
  s: RoundState,
  op: N,
  targets: readonly RoundTarget<N>[],
): Promise<CallResult<ResponseOf<N>>[]> {
  s.targets = targets.length;
  const out: CallResult<ResponseOf<N>>[] = [];
  for (const t of targets) {
    // the rows each answer carried (ROWS of `query polls`); one call, no fan-out
    const res = await callWithRetry(s, op, t.request, t.target, (r) => ({
      rowsReturned: r.ok ? answerRows(op, r.value) : 0,
      totalSize: 0n,
      fanoutCalls: 0,
      slice: '',
    }));
    if (res === undefined) break;
    out.push(res);
  }
  return out;
}

/** One call of a round: its target ('' | link name | `link/topic`) and its request. */
export interface RoundTarget<N extends OperationName> {
  readonly target: string;
  readonly request: RequestOf<N>;
}

/** The calls of each operation on a cluster, by config. */
const TARGETS: { readonly [N in OperationName]: (cluster: ClusterConfig) => RoundTarget<N>[] } = {
  ListKafkaConnections: ({ connections: { filter, orderBy, pageSize } }) => [
    { target: '', request: { filter, orderBy, pageSize } },
  ],
  GetShadowLink: (cluster) => cluster.shadowLinks.map((l) => ({ target: l.name, request: { name: l.name } })),
  ListShadowTopics: (cluster) =>
    cluster.shadowLinks.map((l) => ({ target: l.name, request: { shadowLinkName: l.name } })),
  GetShadowTopic: (cluster) =>
    cluster.shadowLinks.flatMap((l) =>
      l.topics.map((t) => ({ target: `${l.name}/${t}`, request: { name: t, shadowLinkName: l.name } })),
    ),
  GetUpgradeStatus: () => [{ target: '', request: {} }],
  GetIcebergStatus: (cluster) => [{ target: '', request: { topicsFilter: [...cluster.icebergTopics] } }],
};

/** The calls an operation makes on a cluster, by config: one per link, per topic, or one. */
export function targetsOf<N extends OperationName>(op: N, cluster: ClusterConfig): RoundTarget<N>[] {
  return TARGETS[op](cluster);
}

/**
 * Runs one round of `op` on a cluster: every call it needs, one at a time through the
 * cluster's queue, each attempt recorded. Never throws for a failed call.
 */
export async function runRound(
  rt: ClusterRuntime,
  op: OperationName,
  deps: RoundDeps,
  scheduledAt: bigint = deps.nowNs(),
): Promise<RoundResult> {
  const startedAt = deps.nowNs();
  const s: RoundState = {
    rt,
    deps,
    round: deps.roundId(),
    scheduledAt,
    targets: 0,
    calls: 0,
    failedCalls: 0,
    failures: [],
    stopped: false,
  };
  if (op === 'ListKafkaConnections') {
    await connectionsRound(s);
  } else if (op === 'GetUpgradeStatus') {
    const results = await perTarget(s, op, targetsOf(op, rt.config));
    for (const r of results) if (r.ok) learnFromMembers(rt.topology, r.value.members);
  } else {
    await perTarget(s, op, targetsOf(op, rt.config));
  }
  return {
    cluster: rt.config.name,
    operation: op,
    round: s.round,
    scheduledAt,
    targets: s.targets,
    calls: s.calls,
    failedCalls: s.failedCalls,
    failures: s.failures,
    ...(s.coverage === undefined ? {} : { coverage: s.coverage }),
    stopped: s.stopped,
    startedAt,
    endedAt: deps.nowNs(),
  };
}
