/** Fakes for collector unit tests: a scripted client, an in-memory writer, a manual clock. */
import { CallError, type CallResult } from '../../../src/api/client/index.ts';
import type { OperationName } from '../../../src/api/schema/operations.ts';
import { KafkaConnection } from '../../../src/api/schema/connection.ts';
import { defaultMessage } from '../../../src/api/wire/defaults.ts';
import {
  StoreRefusedError,
  type HistoryWriter,
  type PollRecord,
  type StoredPoll,
} from '../../../src/db/poll-record.ts';
import type { AdminCaller, ClusterRuntime, RoundDeps } from '../../../src/collector/poller.ts';
import { createCallQueue } from '../../../src/collector/call-queue.ts';
import { defaultCluster, type ClusterConfig } from '../../../src/collector/config.ts';
import { emptyTopology } from '../../../src/collector/fanout.ts';
import { DEFAULT_RETRY } from '../../../src/collector/retry.ts';

/** A successful call result. */
export function ok<T>(value: T): CallResult<T> {
  return { ok: true, value, httpStatus: 200, elapsedMs: 1, bytes: 2, body: Buffer.from('{}') };
}

/** A failed call result. */
export function fail(
  op: string,
  code: CallError['code'],
  httpStatus?: number,
  message = `${code} from fake`,
): CallResult<never> {
  return {
    ok: false,
    error: new CallError({
      operation: op,
      code,
      kind: 'connect',
      message,
      elapsedMs: 1,
      ...(httpStatus === undefined ? {} : { httpStatus }),
    }),
  };
}

/** One call the fake client received. */
export interface FakeCall {
  readonly op: OperationName;
  readonly request: Record<string, unknown>;
}

/** A scripted client that records calls and checks they never overlap. */
export function fakeClient(
  script: (
    op: OperationName,
    request: Record<string, unknown>,
    n: number,
    signal?: AbortSignal,
  ) => CallResult<unknown> | Promise<CallResult<unknown>>,
): AdminCaller & { calls: FakeCall[]; maxActive: number; closed: boolean } {
  let active = 0;
  const state = {
    calls: [] as FakeCall[],
    maxActive: 0,
    closed: false,
    async call(op: OperationName, request: unknown, opts?: { signal?: AbortSignal }) {
      active++;
      state.maxActive = Math.max(state.maxActive, active);
      state.calls.push({ op, request: request as Record<string, unknown> });
      try {
        await new Promise((r) => setTimeout(r, 1));
        return await script(op, request as Record<string, unknown>, state.calls.length, opts?.signal);
      } finally {
        active--;
      }
    },
    close() {
      state.closed = true;
    },
  };
  return state as never;
}

/** A HistoryWriter that keeps records in memory; `failing` makes writePoll throw. */
export function memoryWriter(): HistoryWriter & { records: PollRecord[]; failing: boolean; closed: boolean } {
  const w = {
    records: [] as PollRecord[],
    failing: false,
    closed: false,
    writePoll(record: PollRecord): bigint {
      if (w.failing) throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
      w.records.push(record);
      return BigInt(w.records.length);
    },
    storePoll(record: PollRecord): StoredPoll {
      if (w.failing) throw new StoreRefusedError('database or disk is full', 'SQLITE_FULL');
      return { id: w.writePoll(record) };
    },
    close() {
      w.closed = true;
    },
  };
  return w;
}

/** A cluster runtime around a fake client. */
export function runtime(client: AdminCaller, patch: Partial<ClusterConfig> = {}): ClusterRuntime {
  return {
    config: { ...defaultCluster('test', 'http://127.0.0.1:1'), ...patch },
    client,
    queue: createCallQueue(),
    topology: emptyTopology(),
  };
}

/** Round deps with a manual clock (1 ms per reading) and a sleep that only notes its delays. */
export function deps(records: PollRecord[], patch: Partial<RoundDeps> = {}): RoundDeps & { slept: number[] } {
  let t = 1_767_225_600_000_000_000n;
  let n = 0;
  const slept: number[] = [];
  return {
    record: (r) => void records.push(r),
    nowNs: () => (t += 1_000_000n),
    retry: DEFAULT_RETRY,
    sleep: async (ms) => {
      slept.push(ms);
      return true;
    },
    random: () => 0.5,
    stopping: new AbortController().signal,
    abort: new AbortController().signal,
    roundId: () => `r${++n}`,
    slept,
    ...patch,
  };
}

/** A connection row with every other field at its default. */
export function connection(
  uid: string,
  nodeId: number,
  shardId: number,
): ReturnType<typeof defaultMessage<typeof KafkaConnection>> {
  return { ...defaultMessage(KafkaConnection), uid, nodeId, shardId };
}

/** A connections endpoint over `rows` that returns at most `cap` rows (and at most pageSize) and honours node_id / shard_id slices. */
export function connectionsServer(rows: { uid: string; nodeId: number; shardId: number }[], cap: number) {
  return (request: Record<string, unknown>): CallResult<unknown> => {
    const filter = String(request.filter ?? '');
    const node = /node_id = (\d+)/.exec(filter)?.[1];
    const shard = /shard_id = (\d+)/.exec(filter)?.[1];
    const match = rows.filter(
      (r) => (node === undefined || r.nodeId === Number(node)) && (shard === undefined || r.shardId === Number(shard)),
    );
    const page = Number(request.pageSize ?? 0);
    return ok({
      connections: match
        .slice(0, page > 0 ? Math.min(cap, page) : cap)
        .map((r) => connection(r.uid, r.nodeId, r.shardId)),
      totalSize: BigInt(match.length),
    });
  };
}
