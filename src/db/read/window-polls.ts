/**
 * The successful polls in a time range of each of several clusters, by id and operation: those
 * of the small operations (every one but ListKafkaConnections), whose stored rows a reader of
 * many clusters' windows (fleet) reads ahead, and those of ListKafkaConnections, whose frames it
 * reads ahead; in one statement for up to MAX_RANGES clusters.
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
  /** the statements by the number of ranges and operations (small or connections) */
  readonly #stmts = new Map<string, SqlStatement<unknown[], [bigint, string]>>();

  constructor(sqlite: SqlSession) {
    this.#sqlite = sqlite;
  }

  /** The small operations' successful polls of the ranges, oldest first per range (ranges in the order given). */
  smallPolls(ranges: readonly ClusterRange[]): ExpectedPoll[] {
    const out: ExpectedPoll[] = [];
    for (const [id, operation] of this.#polls(ranges, false)) out.push({ id: Number(id), operation });
    return out;
  }

  /** The successful ListKafkaConnections polls of the ranges, oldest first per range (ranges in the order given). */
  connectionPolls(ranges: readonly ClusterRange[]): number[] {
    return this.#polls(ranges, true).map(([id]) => Number(id));
  }

  #polls(ranges: readonly ClusterRange[], connections: boolean): [bigint, string][] {
    const out: [bigint, string][] = [];
    for (let i = 0; i < ranges.length; i += MAX_RANGES) {
      const part = ranges.slice(i, i + MAX_RANGES);
      for (const r of this.#stmt(part.length, connections).all(...part.flatMap((x) => [x.clusterId, x.since, x.until])))
        out.push(r);
    }
    return out;
  }

  #stmt(n: number, connections: boolean): SqlStatement<unknown[], [bigint, string]> {
    const key = `${n}${connections ? 'c' : 's'}`;
    let s = this.#stmts.get(key);
    if (s === undefined) {
      // each range on the (cluster, operation, time) index, tagged with its place to keep the order
      const op = connections ? `= 'ListKafkaConnections'` : `<> 'ListKafkaConnections'`;
      const one = (i: number): string =>
        `SELECT ${i} AS place, p.id, p.operation, p.started_at FROM poll p
         WHERE p.cluster_id = ? AND p.started_at BETWEEN ? AND ? AND p.ok = 1
           AND p.operation ${op}`;
      s = this.#sqlite
        .prepare<unknown[], [bigint, string]>(
          `SELECT x.id, x.operation FROM (${Array.from({ length: n }, (_, i) => one(i)).join('\nUNION ALL\n')}) AS x
           ORDER BY x.place, x.started_at, x.id`,
        )
        .raw()
        .safeIntegers();
      this.#stmts.set(key, s);
    }
    return s;
  }
}
