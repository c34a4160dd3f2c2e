/**
 * What a prune would remove, computed with reads only (so a dry run changes nothing, not even
 * the file's bytes): the same selection as `Maintenance.prune` (whole polls older than T; a
 * connection batch goes only when none of its polls is at or after T), with the samples per
 * resource, an estimate of the bytes, the time range, and the operations whose newest poll
 * would go (nothing would be left of them).
 */
import type { SqlSession } from '../sql-session.ts';
import type { StoreSession } from '../engines/store-engine.ts';
import { ByteReader } from '../encoding/bytes.ts';
import { readHeadEntry } from '../connections/codec.ts';
import { PER_POLL_TABLE_LIST } from '../schema/per-poll-tables.ts';

/** An operation of a cluster whose every poll a prune would remove. */
export interface EmptiedOperation {
  readonly cluster: string;
  readonly operation: string;
  /** its newest poll's start, ns since the epoch */
  readonly newest: bigint;
}

/** What a prune at `olderThan` would remove. */
export interface PrunePlan {
  readonly olderThan: bigint;
  readonly polls: number;
  readonly connectionBatches: number;
  readonly connections: number;
  readonly versions: number;
  readonly documents: number;
  /** samples (stored rows) per resource */
  readonly samples: Readonly<Record<string, number>>;
  /** an estimate of the bytes the removed rows take in the file (each table's size times the share of its rows that go) */
  readonly bytes: number;
  /** the oldest and newest start of the polls that would go (undefined when none would) */
  readonly from?: bigint;
  readonly to?: bigint;
  /** operations whose newest poll would go */
  readonly emptied: readonly EmptiedOperation[];
}

/** Batches with no poll at or after T: the ones a prune removes. */
export const GONE_BATCHES = `SELECT b.id FROM conn_batch b WHERE NOT EXISTS
  (SELECT 1 FROM conn_frame f JOIN poll p ON p.id = f.poll WHERE f.batch = b.id AND p.started_at >= ?)`;

/** Plans a prune at `olderThan` on an open database (read-only is enough). */
export function planPrune(session: StoreSession, olderThan: bigint): PrunePlan {
  const sqlite = session.sqlite;
  const one = (sql: string, ...params: unknown[]): number =>
    Number(
      sqlite
        .prepare(sql)
        .pluck()
        .get(...params) ?? 0,
    );
  const tables = new Set(
    sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[],
  );
  return sqlite
    .transaction((): PrunePlan => {
      const gone = JSON.stringify(sqlite.prepare(GONE_BATCHES).pluck().all(olderThan) as number[]);
      // the polls that go: older than T and not part of a batch that stays
      const goingPolls = `SELECT id FROM poll WHERE started_at < ? AND NOT EXISTS
      (SELECT 1 FROM conn_frame f WHERE f.poll = poll.id AND f.batch NOT IN (SELECT value FROM json_each(?)))`;
      const removed: Record<string, number> = {};
      const rows = (table: string, column: string): number =>
        tables.has(table)
          ? one(`SELECT count(*) FROM ${table} WHERE ${column} IN (${goingPolls})`, olderThan, gone)
          : 0;
      const polls = one(`SELECT count(*) FROM (${goingPolls}) AS going`, olderThan, gone);
      removed.poll = polls;
      const samples: Record<string, number> = {
        connections: one(
          `SELECT coalesce(sum(rows), 0) FROM conn_frame WHERE poll IN (${goingPolls})`,
          olderThan,
          gone,
        ),
      };
      // per-poll tables (their poll-id column cascades from poll); connection samples are counted above
      for (const t of PER_POLL_TABLE_LIST) {
        removed[t.table] = rows(t.table, t.key);
        if (t.samples === 'rows' && t.resource !== undefined) samples[t.resource] = removed[t.table]!;
      }
      const connectionBatches = one('SELECT count(*) FROM json_each(?)', gone);
      removed.conn_batch = connectionBatches;
      removed.conn_chunk = tables.has('conn_chunk')
        ? one('SELECT count(*) FROM conn_chunk WHERE batch IN (SELECT value FROM json_each(?))', gone)
        : 0;
      // what only the removed polls referenced, as prune finds it once they are gone
      let connections = 0;
      let versions = 0;
      for (const cid of sqlite.prepare('SELECT id FROM cluster').pluck().all() as number[]) {
        const first = sqlite
          .prepare(
            `SELECT min(f.poll) FROM conn_frame f JOIN conn_batch b ON b.id = f.batch
           WHERE b.cluster_id = ? AND b.id NOT IN (SELECT value FROM json_each(?))`,
          )
          .pluck()
          .get(cid, gone) as number | null;
        const horizon = first ?? Number.MAX_SAFE_INTEGER;
        // prune seals open batches first, moving their entities' last poll forward: those stay
        const stay = JSON.stringify(sealedLater(sqlite, cid, gone, horizon));
        versions += one(
          'SELECT count(*) FROM conn_version WHERE to_poll IS NOT NULL AND to_poll <= ? AND entity IN (SELECT id FROM conn_entity WHERE cluster_id = ?)',
          horizon,
          cid,
        );
        connections += one(
          'SELECT count(*) FROM conn_entity WHERE cluster_id = ? AND last_poll < ? AND id NOT IN (SELECT value FROM json_each(?))',
          cid,
          horizon,
          stay,
        );
      }
      removed.conn_version = versions;
      removed.conn_entity = connections;
      const documents = one(
        `SELECT count(*) FROM doc WHERE id NOT IN (
         SELECT configurations FROM link_sample WHERE poll NOT IN (${goingPolls})
         UNION SELECT synced_properties FROM link_sample WHERE poll NOT IN (${goingPolls})
         UNION SELECT sr_status FROM link_sample WHERE poll NOT IN (${goingPolls}))`,
        olderThan,
        gone,
        olderThan,
        gone,
        olderThan,
        gone,
      );
      removed.doc = documents;
      const range = sqlite
        .prepare(`SELECT min(started_at), max(started_at) FROM poll WHERE id IN (${goingPolls})`)
        .raw()
        .safeIntegers()
        .get(olderThan, gone) as [bigint | null, bigint | null];
      const emptied = (
        sqlite
          .prepare(
            `SELECT c.name, p.operation, max(p.started_at) FROM poll p JOIN cluster c ON c.id = p.cluster_id
           GROUP BY p.cluster_id, c.name, p.operation HAVING max(p.started_at) < ? ORDER BY c.name, p.operation`,
          )
          .raw()
          .safeIntegers()
          .all(olderThan) as [string, string, bigint][]
      ).map(([cluster, operation, newest]) => ({ cluster, operation, newest }));
      return {
        olderThan,
        polls,
        connectionBatches,
        connections,
        versions,
        documents,
        samples,
        bytes: estimateBytes(session, removed),
        ...(range[0] === null || range[1] === null ? {} : { from: range[0], to: range[1] }),
        emptied,
      };
    })
    .deferred();
}

/**
 * Entities listed in the open (unsealed) batches a prune keeps, whose last poll sealing will
 * move to `horizon` or later (the store records an entity's last poll when its batch is sealed).
 */
export function sealedLater(sqlite: SqlSession, clusterId: number, gone: string, horizon: number): number[] {
  const frames = sqlite
    .prepare(
      `SELECT f.poll, f.head FROM conn_frame f JOIN conn_batch b ON b.id = f.batch
       WHERE b.cluster_id = ? AND b.sealed = 0 AND f.head IS NOT NULL AND b.id NOT IN (SELECT value FROM json_each(?))`,
    )
    .all(clusterId, gone) as { poll: number; head: Buffer }[];
  const out = new Set<number>();
  for (const f of frames) {
    if (f.poll < horizon) continue;
    const r = new ByteReader(f.head);
    const count = r.u32At(f.head.length - 4);
    for (let i = 0; i < count; i++) out.add(readHeadEntry(r).entity);
  }
  return [...out];
}

/** Each table's pages (with its indexes) times the share of its rows that go; 0 when the file's page statistics are not available. */
function estimateBytes({ sqlite, engine }: StoreSession, removed: Readonly<Record<string, number>>): number {
  let sizes: ReadonlyMap<string, number> | undefined;
  try {
    sizes = engine.tableBytes();
  } catch {
    return 0;
  }
  let total = 0;
  for (const [tbl, bytes] of sizes ?? []) {
    const gone = removed[tbl];
    if (gone === undefined || gone === 0) continue;
    const all = Number(
      sqlite
        .prepare(`SELECT count(*) FROM "${tbl.replace(/"/g, '""')}"`)
        .pluck()
        .get(),
    );
    if (all > 0) total += (bytes * Math.min(gone, all)) / all;
  }
  return Math.round(total);
}
