/** Reading poll rows: the `polls` resource, the latest successful polls as of T, and gaps. */
import type { SqlSession, SqlStatement } from '../sql-session.ts';
import type { OperationName } from '../../api/schema/operations.ts';
import type { PollRow } from '../../api/schema/resources.ts';
import type { cluster, poll } from '../schema/schema.ts';
import { bigOf, parseExtra } from '../encoding/sql-values.ts';
import type { RowOf, SafeIntegers } from '../schema/table-rows.ts';

/** Named parameters of the range query. */
interface RangeParams {
  cluster: number | null;
  op: string | null;
  since: bigint;
  until: bigint;
  limit: number;
}

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

type Poll = SafeIntegers<RowOf<typeof poll>>;

/** A raw (safeIntegers) row of POLL_COLUMNS. */
export type PollTuple = [
  id: Poll['id'],
  cluster: RowOf<typeof cluster>['name'],
  operation: Poll['operation'],
  target: Poll['target'],
  scheduledAt: Poll['scheduledAt'],
  startedAt: Poll['startedAt'],
  endedAt: Poll['endedAt'],
  outcome: Poll['outcome'],
  httpStatus: Poll['httpStatus'],
  message: Poll['message'],
  bytes: Poll['bytes'],
  rowsReturned: Poll['rowsReturned'],
  totalSize: Poll['totalSize'],
  fanoutCalls: Poll['fanoutCalls'],
  ok: Poll['ok'],
  round: Poll['round'],
  attempt: Poll['attempt'],
  kind: Poll['kind'],
  clusterId: Poll['clusterId'],
  extra: Poll['extra'],
];

/** Maps a raw (safeIntegers) row of POLL_COLUMNS. */
export function toInfo(r: PollTuple): PollInfo {
  const n = (v: bigint | null): number => (v === null ? 0 : Number(v));
  const b = (v: bigint | null): bigint => v ?? 0n;
  const operation = r[2];
  const ok = r[14] === 1n;
  const rowsReturned = b(r[11]);
  // a totalSize beyond 2^63-1 is NULL in its column, exact in the extra JSON
  const totalSize = r[12] === null && r[19] !== null ? (bigOf(parseExtra(r[19]), 'total_size') ?? 0n) : b(r[12]);
  const start = r[5];
  const end = r[6];
  const row: PollRow = {
    id: r[0],
    cluster: r[1],
    operation,
    target: r[3],
    scheduledTime: r[4],
    startTime: start,
    endTime: end,
    duration: end - start,
    outcome: r[7],
    httpStatus: n(r[8]),
    message: r[9] ?? '',
    bytes: r[10],
    rowsReturned,
    totalSize,
    fanoutCalls: n(r[13]),
    coverage: operation === 'ListKafkaConnections' && ok ? (rowsReturned < totalSize ? 'truncated' : 'complete') : '',
  };
  return {
    row,
    id: Number(r[0]),
    clusterId: Number(r[18]),
    ok,
    round: r[15],
    attempt: Number(r[16]),
    kind: r[17] ?? '',
    extra: r[19],
  };
}

/** Prepared poll queries. */
export class PollQueries {
  readonly #byId: SqlStatement<[number], PollTuple>;
  readonly #byIds: SqlStatement<[string], PollTuple>;
  readonly #round: SqlStatement<[number, string, string, bigint], PollTuple>;
  readonly #latestOkByTarget: SqlStatement<[{ cluster: number; op: string; at: bigint }], PollTuple>;
  /**
   * the last unbounded range of one cluster's polls (every operation), while `remember` is on: a
   * later range of the same cluster inside it is filtered from it instead of read again
   */
  #remembered: { clusterId: number; since: bigint; until: bigint; polls: readonly PollInfo[] } | undefined;
  #remember = false;
  /** the range query by what it is given: [cluster and operation, cluster only, operation only, neither] */
  readonly #ranges: readonly SqlStatement<[RangeParams], PollTuple>[];

  constructor(sqlite: SqlSession) {
    const sel = `SELECT ${POLL_COLUMNS} FROM ${POLL_FROM}`;
    this.#byId = sqlite.prepare<[number], PollTuple>(`${sel} WHERE p.id = ?`).raw().safeIntegers();
    this.#byIds = sqlite
      .prepare<[string], PollTuple>(`${sel} WHERE p.id IN (SELECT value FROM json_each(?))`)
      .raw()
      .safeIntegers();
    this.#round = sqlite
      .prepare<[number, string, string, bigint], PollTuple>(
        `${sel} WHERE p.cluster_id = ? AND p.round = ? AND p.operation = ? AND p.ok = 1 AND p.started_at <= ?
         ORDER BY p.started_at, p.id`,
      )
      .raw()
      .safeIntegers();
    // every target the operation was polled with (an index skip-scan, one probe per target), and
    // for each its latest successful poll as of @at: one statement, where a probe per target and
    // per poll was one round trip each on PostgreSQL
    this.#latestOkByTarget = sqlite
      .prepare<[{ cluster: number; op: string; at: bigint }], PollTuple>(
        `WITH RECURSIVE t(target) AS (
           SELECT (SELECT target FROM poll WHERE cluster_id = @cluster AND operation = @op ORDER BY target LIMIT 1)
           UNION ALL
           SELECT (SELECT q.target FROM poll q WHERE q.cluster_id = @cluster AND q.operation = @op AND q.target > t.target
                   ORDER BY q.target LIMIT 1)
           FROM t WHERE t.target IS NOT NULL)
         SELECT ${POLL_COLUMNS} FROM t
         JOIN poll p ON p.cluster_id = @cluster AND p.id = (
           SELECT l.id FROM poll l WHERE l.cluster_id = @cluster AND l.operation = @op AND l.target = t.target
             AND l.ok = 1 AND l.started_at <= @at ORDER BY l.started_at DESC, l.id DESC LIMIT 1)
         JOIN cluster c ON c.id = p.cluster_id
         ORDER BY t.target`,
      )
      .raw()
      .safeIntegers();
    // one statement per combination of the optional filters: `(col = @x OR @x IS NULL)` kept both
    // engines off the (cluster, operation, time) index, every range scanning every cluster's polls
    const range = (where: string): SqlStatement<[RangeParams], PollTuple> =>
      sqlite
        .prepare<[RangeParams], PollTuple>(
          `${sel} WHERE ${where} p.started_at BETWEEN @since AND @until ORDER BY p.started_at, p.id LIMIT @limit`,
        )
        .raw()
        .safeIntegers();
    this.#ranges = [
      range('p.cluster_id = @cluster AND p.operation = @op AND'),
      range('p.cluster_id = @cluster AND'),
      range('p.operation = @op AND'),
      range(''),
    ];
  }

  /** One poll, or undefined. */
  byId(id: number): PollInfo | undefined {
    const r = this.#byId.get(id);
    return r === undefined ? undefined : toInfo(r);
  }

  /** Several polls by id (any order). */
  byIds(ids: readonly number[]): Map<number, PollInfo> {
    const out = new Map<number, PollInfo>();
    if (ids.length === 0) return out;
    for (const r of this.#byIds.all(JSON.stringify(ids))) {
      const info = toInfo(r);
      out.set(info.id, info);
    }
    return out;
  }

  /** The successful calls of `last`'s round that started at or before `at`, oldest first. */
  roundOf(last: PollInfo, at: bigint): PollInfo[] {
    const rows = this.#round.all(last.clusterId, last.round, last.row.operation, at);
    return rows.map(toInfo);
  }

  /** For every target an operation was ever polled with on a cluster, its latest successful poll at or before `at` (by target). */
  latestOkByTarget(clusterId: number, op: OperationName, at: bigint): PollInfo[] {
    return this.#latestOkByTarget.all({ cluster: clusterId, op, at }).map(toInfo);
  }

  /**
   * Lets range() answer a cluster's ranges from the last unbounded one it read (on), or forgets it
   * and stops (off). On only inside one read transaction: its snapshot is what makes it the same.
   */
  rememberRanges(on: boolean): void {
    this.#remember = on;
    this.#remembered = undefined;
  }

  /** Polls in a time range, oldest first. */
  range(q: { clusterId?: number; operation?: string; since: bigint; until: bigint; limit: number }): PollInfo[] {
    const known = this.#remembered;
    if (
      known !== undefined &&
      q.limit < 0 &&
      q.clusterId === known.clusterId &&
      q.since >= known.since &&
      q.until <= known.until
    ) {
      return known.polls.filter(
        (p) =>
          (q.operation === undefined || p.row.operation === q.operation) &&
          p.row.startTime >= q.since &&
          p.row.startTime <= q.until,
      );
    }
    const params: RangeParams = {
      cluster: q.clusterId ?? null,
      op: q.operation ?? null,
      since: q.since,
      until: q.until,
      limit: q.limit,
    };
    // a statement binds the names it has (both engines ignore the others)
    const rows = this.#ranges[(params.cluster === null ? 2 : 0) + (params.op === null ? 1 : 0)]!.all(params);
    const polls = rows.map(toInfo);
    if (this.#remember && q.clusterId !== undefined && q.operation === undefined && q.limit < 0)
      this.#remembered = { clusterId: q.clusterId, since: q.since, until: q.until, polls };
    return polls;
  }
}
