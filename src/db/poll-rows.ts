/** Reading poll rows: the `polls` resource, the latest successful polls as of T, and gaps. */
import type Database from 'better-sqlite3';
import type { OperationName } from '../api/schema/operations.ts';
import type { PollRow } from '../api/schema/resources.ts';
import { bigOf, parseExtra } from './sql-values.ts';

/** A poll row with what the store needs besides the public PollRow. */
export interface PollInfo {
  readonly row: PollRow;
  readonly id: number;
  readonly clusterId: number;
  readonly ok: boolean;
  readonly round: string;
  readonly attempt: number;
  readonly kind: string;
  readonly extra: string | null;
}

/** Selected columns of a poll, in the order `toInfo` reads them. */
export const POLL_COLUMNS = `p.id, c.name, p.operation, p.target, p.scheduled_at, p.started_at, p.ended_at, p.outcome,
  p.http_status, p.message, p.bytes, p.rows_returned, p.total_size, p.fanout_calls, p.ok, p.round, p.attempt, p.kind,
  p.cluster_id, p.extra`;
/** FROM clause matching POLL_COLUMNS. */
export const POLL_FROM = 'poll p JOIN cluster c ON c.id = p.cluster_id';

/** Maps a raw (safeIntegers) row of POLL_COLUMNS. */
export function toInfo(r: unknown[]): PollInfo {
  const n = (v: unknown): number => (v === null ? 0 : Number(v as bigint));
  const b = (v: unknown): bigint => (v === null ? 0n : (v as bigint));
  const operation = r[2] as string;
  const ok = r[14] === 1n;
  const rowsReturned = b(r[11]);
  // a totalSize beyond 2^63-1 is NULL in its column, exact in the extra JSON
  const totalSize = r[12] === null && r[19] !== null ? (bigOf(parseExtra(r[19]), 'total_size') ?? 0n) : b(r[12]);
  const start = r[5] as bigint;
  const end = r[6] as bigint;
  const row: PollRow = {
    id: r[0] as bigint,
    cluster: r[1] as string,
    operation,
    target: r[3] as string,
    scheduledTime: r[4] as bigint,
    startTime: start,
    endTime: end,
    duration: end - start,
    outcome: r[7] as string,
    httpStatus: n(r[8]),
    message: (r[9] as string | null) ?? '',
    bytes: r[10] as bigint,
    rowsReturned,
    totalSize,
    fanoutCalls: n(r[13]),
    coverage: operation === 'ListKafkaConnections' && ok ? (rowsReturned < totalSize ? 'truncated' : 'complete') : '',
  };
  return {
    row,
    id: Number(r[0] as bigint),
    clusterId: Number(r[18] as bigint),
    ok,
    round: r[15] as string,
    attempt: Number(r[16] as bigint),
    kind: (r[17] as string | null) ?? '',
    extra: r[19] as string | null,
  };
}

/** Prepared poll queries. */
export class PollQueries {
  readonly #byId: Database.Statement;
  readonly #byIds: Database.Statement;
  readonly #latestOk: Database.Statement;
  readonly #round: Database.Statement;
  readonly #nextTarget: Database.Statement;
  readonly #range: Database.Statement;
  readonly #any: Database.Statement;

  constructor(sqlite: Database.Database) {
    const sel = `SELECT ${POLL_COLUMNS} FROM ${POLL_FROM}`;
    this.#byId = sqlite.prepare(`${sel} WHERE p.id = ?`).raw().safeIntegers();
    this.#byIds = sqlite.prepare(`${sel} WHERE p.id IN (SELECT value FROM json_each(?))`).raw().safeIntegers();
    this.#latestOk = sqlite
      .prepare(
        `${sel} WHERE p.cluster_id = ? AND p.operation = ? AND p.target = ? AND p.ok = 1 AND p.started_at <= ?
         ORDER BY p.started_at DESC, p.id DESC LIMIT 1`,
      )
      .raw()
      .safeIntegers();
    this.#round = sqlite
      .prepare(
        `${sel} WHERE p.cluster_id = ? AND p.round = ? AND p.operation = ? AND p.ok = 1 AND p.started_at <= ?
         ORDER BY p.started_at, p.id`,
      )
      .raw()
      .safeIntegers();
    this.#nextTarget = sqlite
      .prepare('SELECT target FROM poll WHERE cluster_id = ? AND operation = ? AND target > ? ORDER BY target LIMIT 1')
      .pluck();
    this.#any = sqlite.prepare('SELECT 1 FROM poll WHERE cluster_id = ? AND operation = ? AND target = ? LIMIT 1');
    this.#range = sqlite
      .prepare(
        `${sel} WHERE (@cluster IS NULL OR p.cluster_id = @cluster) AND (@op IS NULL OR p.operation = @op)
         AND p.started_at BETWEEN @since AND @until ORDER BY p.started_at, p.id LIMIT @limit`,
      )
      .raw()
      .safeIntegers();
  }

  /** One poll, or undefined. */
  byId(id: number): PollInfo | undefined {
    const r = this.#byId.get(id) as unknown[] | undefined;
    return r === undefined ? undefined : toInfo(r);
  }

  /** Several polls by id (any order). */
  byIds(ids: readonly number[]): Map<number, PollInfo> {
    const out = new Map<number, PollInfo>();
    if (ids.length === 0) return out;
    for (const r of this.#byIds.all(JSON.stringify(ids)) as unknown[][]) {
      const info = toInfo(r);
      out.set(info.id, info);
    }
    return out;
  }

  /** The latest successful poll of (cluster, operation, target) at or before `at`. */
  latestOk(clusterId: number, op: OperationName, target: string, at: bigint): PollInfo | undefined {
    const r = this.#latestOk.get(clusterId, op, target, at) as unknown[] | undefined;
    return r === undefined ? undefined : toInfo(r);
  }

  /** The successful calls of `last`'s round that started at or before `at`, oldest first. */
  roundOf(last: PollInfo, at: bigint): PollInfo[] {
    const rows = this.#round.all(last.clusterId, last.round, last.row.operation, at) as unknown[][];
    return rows.map(toInfo);
  }

  /** Every target an operation was ever polled with on a cluster (an index skip-scan). */
  targets(clusterId: number, op: OperationName): string[] {
    const out: string[] = [];
    if (this.#any.get(clusterId, op, '') !== undefined) out.push('');
    let t = this.#nextTarget.get(clusterId, op, '') as string | undefined;
    while (t !== undefined) {
      out.push(t);
      t = this.#nextTarget.get(clusterId, op, t) as string | undefined;
    }
    return out;
  }

  /** Polls in a time range, oldest first. */
  range(q: { clusterId?: number; operation?: string; since: bigint; until: bigint; limit: number }): PollInfo[] {
    const rows = this.#range.all({
      cluster: q.clusterId ?? null,
      op: q.operation ?? null,
      since: q.since,
      until: q.until,
      limit: q.limit,
    }) as unknown[][];
    return rows.map(toInfo);
  }
}
