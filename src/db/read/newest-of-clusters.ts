/**
 * The newest poll (ok or not) of each operation of each of several clusters at or before an
 * instant: what fleet's lines start from, in one statement for up to MAX_PAIRS (cluster,
 * operation) pairs instead of one statement per cluster (on PostgreSQL each a round trip).
 */
import type { PollRow } from '../../api/schema/resources.ts';
import type { SqlSession, SqlStatement } from '../sql-session.ts';
import { POLL_COLUMNS, POLL_FROM, toInfo, type PollTuple } from './poll-rows.ts';

/** (cluster, operation) pairs one statement reads. */
const MAX_PAIRS = 32;

/** The newest polls of many clusters' operations. */
export class NewestOfClusters {
  readonly #sqlite: SqlSession;
  /** the statements by the number of pairs */
  readonly #stmts = new Map<number, SqlStatement<unknown[], PollTuple>>();

  constructor(sqlite: SqlSession) {
    this.#sqlite = sqlite;
  }

  /** For each cluster id, the newest poll of each operation in the order given (undefined where none). */
  newest(clusterIds: readonly number[], operations: readonly string[], until: bigint): (PollRow | undefined)[][] {
    const pairs = clusterIds.flatMap((c) => operations.map((op) => [c, op] as const));
    const found = new Array<PollRow | undefined>(pairs.length).fill(undefined);
    for (let i = 0; i < pairs.length; i += MAX_PAIRS) {
      const part = pairs.slice(i, i + MAX_PAIRS);
      const rows = this.#stmt(part.length).all(...part.flatMap(([c, op]) => [c, op, until])) as unknown as [
        bigint,
        ...PollTuple,
      ][];
      for (const [place, ...poll] of rows) found[i + Number(place)] = toInfo(poll as PollTuple).row;
    }
    const n = operations.length;
    return clusterIds.map((_, k) => found.slice(k * n, k * n + n));
  }

  #stmt(n: number): SqlStatement<unknown[], PollTuple> {
    let s = this.#stmts.get(n);
    if (s === undefined) {
      // each pair's newest poll as its own LIMIT 1 (the index on cluster, operation and time), tagged with its place
      const one = (i: number): string =>
        `SELECT ${i} AS place, x${i}.* FROM (SELECT ${POLL_COLUMNS} FROM ${POLL_FROM}
         WHERE p.cluster_id = ? AND p.operation = ? AND p.started_at <= ?
         ORDER BY p.started_at DESC, p.id DESC LIMIT 1) AS x${i}`;
      s = this.#sqlite
        .prepare<unknown[], PollTuple>(Array.from({ length: n }, (_, i) => one(i)).join('\nUNION ALL\n'))
        .raw()
        .safeIntegers();
      this.#stmts.set(n, s);
    }
    return s;
  }
}
