/**
 * The successful polls of the small operations (every one but ListKafkaConnections) in a time
 * range of each of several clusters, by id and operation: what a reader of many clusters' windows
 * (fleet) reads the stored rows of ahead, in one statement for up to MAX_RANGES clusters.
 */
import type { SqlSession, SqlStatement } from '../sql-session.ts';
import type { ExpectedPoll } from './small-rows-ahead.ts';

/** Cluster ranges one statement reads. */
const MAX_RANGES = 32;

/** One cluster's range, times in ns since the epoch (both ends included). */
export interface ClusterRange {
  readonly clusterId: number;
  readonly since: bigint;
  readonly until: bigint;
}

/** The polls of many clusters' ranges, a statement per MAX_RANGES of them. */
export class WindowPolls {
  readonly #sqlite: SqlSession;
  /** the statements by the number of ranges */
  readonly #stmts = new Map<number, SqlStatement<unknown[], [bigint, string]>>();

  constructor(sqlite: SqlSession) {
    this.#sqlite = sqlite;
  }

  /** The small operations' successful polls of the ranges, oldest first per range (ranges in the order given). */
  smallPolls(ranges: readonly ClusterRange[]): ExpectedPoll[] {
    const out: ExpectedPoll[] = [];
    for (let i = 0; i < ranges.length; i += MAX_RANGES) {
      const part = ranges.slice(i, i + MAX_RANGES);
      const rows = this.#stmt(part.length).all(...part.flatMap((r) => [r.clusterId, r.since, r.until]));
      for (const [id, operation] of rows) out.push({ id: Number(id), operation });
    }
    return out;
  }

  #stmt(n: number): SqlStatement<unknown[], [bigint, string]> {
    let s = this.#stmts.get(n);
    if (s === undefined) {
      // each range on the (cluster, operation, time) index, tagged with its place to keep the order
      const one = (i: number): string =>
        `SELECT ${i} AS place, p.id, p.operation, p.started_at FROM poll p
         WHERE p.cluster_id = ? AND p.started_at BETWEEN ? AND ? AND p.ok = 1
           AND p.operation <> 'ListKafkaConnections'`;
      s = this.#sqlite
        .prepare<unknown[], [bigint, string]>(
          `SELECT x.id, x.operation FROM (${Array.from({ length: n }, (_, i) => one(i)).join('\nUNION ALL\n')}) AS x
           ORDER BY x.place, x.started_at, x.id`,
        )
        .raw()
        .safeIntegers();
      this.#stmts.set(n, s);
    }
    return s;
  }
}
