/**
 * The newest polls of one operation at or before an instant, newest first and bounded: what a
 * reader needs to tell how fresh an answer is (the newest successful poll, and the recent
 * scheduled times from which the schedule's interval is inferred) without reading the history.
 */
import type { SqlSession, SqlStatement } from '../sql-session.ts';
import type { PollRow } from '../../api/schema/resources.ts';
import { POLL_COLUMNS, POLL_FROM, toInfo, type PollTuple } from './poll-rows.ts';

/** At most this many polls per call. */
export const MAX_RECENT_POLLS = 1000;

/** At most this many operations per newestOfEach call. */
const MAX_OPERATIONS = 32;

/** A prepared query for the newest polls of (cluster, operation) at or before T. */
export class RecentPolls {
  readonly #sqlite: SqlSession;
  readonly #newest: SqlStatement<[number, string, bigint, number], PollTuple>;
  /** newestOfEach's statements, by the number of operations */
  readonly #each = new Map<number, SqlStatement<unknown[], PollTuple>>();

  constructor(sqlite: SqlSession) {
    this.#sqlite = sqlite;
    this.#newest = sqlite
      .prepare<[number, string, bigint, number], PollTuple>(
        `SELECT ${POLL_COLUMNS} FROM ${POLL_FROM}
         WHERE p.cluster_id = ? AND p.operation = ? AND p.started_at <= ?
         ORDER BY p.started_at DESC, p.id DESC LIMIT ?`,
      )
      .raw()
      .safeIntegers();
  }

  /** Up to `limit` (at most 1000) polls, ok or not, newest first. */
  newest(clusterId: number, operation: string, until: bigint, limit: number): PollRow[] {
    const n = Math.max(0, Math.min(MAX_RECENT_POLLS, Math.floor(limit)));
    return this.#newest.all(clusterId, operation, until, n).map((r) => toInfo(r).row);
  }

  /** The newest poll (ok or not) of each operation, in the order given, undefined where none: one statement for all. */
  newestOfEach(clusterId: number, operations: readonly string[], until: bigint): (PollRow | undefined)[] {
    const n = operations.length;
    if (n === 0) return [];
    if (n > MAX_OPERATIONS) throw new RangeError(`at most ${MAX_OPERATIONS} operations at once, not ${n}`);
    let stmt = this.#each.get(n);
    if (stmt === undefined) {
      // each operation's newest poll as its own LIMIT 1 (the index on cluster, operation and time), tagged with its place
      const one = (i: number): string =>
        `SELECT ${i} AS place, x${i}.* FROM (SELECT ${POLL_COLUMNS} FROM ${POLL_FROM}
         WHERE p.cluster_id = ? AND p.operation = ? AND p.started_at <= ?
         ORDER BY p.started_at DESC, p.id DESC LIMIT 1) AS x${i}`;
      stmt = this.#sqlite
        .prepare<unknown[], PollTuple>(Array.from({ length: n }, (_, i) => one(i)).join('\nUNION ALL\n'))
        .raw()
        .safeIntegers();
      this.#each.set(n, stmt);
    }
    const out = new Array<PollRow | undefined>(n).fill(undefined);
    const rows = stmt.all(...operations.flatMap((op) => [clusterId, op, until])) as unknown as [bigint, ...PollTuple][];
    for (const [place, ...poll] of rows) out[Number(place)] = toInfo(poll as PollTuple).row;
    return out;
  }
}
