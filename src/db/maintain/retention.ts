/**
 * Retention's side of the store: pruning raw history in small transactions that a collector
 * can run between polls. Each step removes at most a given number of polls of one cluster older
 * than a cut-off (sealed connection batches whole, the open batch never), and never the newest
 * poll of an operation. What only the removed polls referenced (connection identities, superseded
 * versions, shadow link documents) goes in a separate cleanup step, which spares what the
 * writer may still hold in its caches (the connections of its last batches, unless they appear in
 * no remaining batch); after removing documents it bumps `doc_generation`, and the writer drops
 * its document cache (and only that one: its string and connection caches stay warm).
 */
import type { SqlSession, SqlStatement } from '../sql-session.ts';
import { OPERATION_NAMES } from '../../api/schema/operations.ts';
import { recordMaintenance, type MaintenanceEntry } from './maintenance-log.ts';
import type { FlightrecDb } from '../engines/open.ts';
import type { BackgroundCheckpoint, PartitionDrop, StoreSession } from '../engines/store-engine.ts';
import { PER_POLL_TABLE_LIST, sampleCountSql } from '../schema/per-poll-tables.ts';
import { sealedLater } from './prune-plan.ts';
import { pruneRollupRows, ROLLUP_TABLES, type RollupTable } from '../rollups/rollup-tables.ts';

/** What one step removed. */
export interface RetentionStep {
  readonly polls: number;
  /** stored rows: connection samples plus the rows of the other per-poll tables */
  readonly samples: number;
  /** bytes of the file's pages freed by the step */
  readonly bytes: number;
  /** true when the step hit its bound: more is older than the cut-off */
  readonly more: boolean;
}

/** Batches of a cluster whose connections the writer may hold in its caches (its last four, and the open one). */
const RECENT_BATCHES = 6;

/** How long the maintenance log keeps what retention wrote in it: 400 days. */
const LOG_KEEP_NS = 400n * 86_400_000_000_000n;

const NOTHING: RetentionStep = { polls: 0, samples: 0, bytes: 0, more: false };

/** Raw-history pruning in bounded steps over one database (the current one, when a store reopens its file). */
export class RetentionPruner {
  readonly #db: () => FlightrecDb;
  readonly #rollupTables: readonly RollupTable[];
  /** prepared statements per connection (compiling a step's SQL each time would cost more than the step) */
  readonly #statements = new WeakMap<SqlSession, Map<string, SqlStatement>>();
  /** where each cluster's cleanup resumes */
  #stay: { key: string; json: string } | undefined;
  readonly #cleanupAt = new Map<string, { phase: 'versions' | 'entities' | 'documents'; from: number }>();

  /** `db` gives the database to work on (a function: a recording store may open a new file). */
  constructor(db: FlightrecDb | (() => FlightrecDb), rollupTables: readonly RollupTable[] = ROLLUP_TABLES) {
    this.#db = typeof db === 'function' ? db : () => db;
    this.#rollupTables = rollupTables;
  }

  get #sqlite(): SqlSession {
    return this.#db().sqlite;
  }

  #prepare(sql: string): SqlStatement {
    const sqlite = this.#sqlite;
    let cache = this.#statements.get(sqlite);
    if (cache === undefined) {
      cache = new Map();
      this.#statements.set(sqlite, cache);
    }
    let stmt = cache.get(sql);
    if (stmt === undefined) {
      stmt = sqlite.prepare(sql);
      cache.set(sql, stmt);
    }
    return stmt;
  }

  /** The names of the recorded clusters. */
  clusters(): string[] {
    return this.#prepare('SELECT name FROM cluster ORDER BY id').pluck().all() as string[];
  }

  /** Bytes of the pages in use (the file size less its free pages; the WAL's newer pages counted). */
  usedBytes(): number {
    return this.#usedBytes();
  }

  #usedBytes(): number {
    return this.#db().engine.usedBytes();
  }

  /** The start of the oldest poll (ns), undefined without polls. */
  oldestPoll(): bigint | undefined {
    return (
      (this.#prepare('SELECT min(started_at) FROM poll').pluck().safeIntegers().get() as bigint | null) ?? undefined
    );
  }

  /**
   * Removes, in one transaction, up to about `maxPolls` polls of `cluster` that started before
   * `cutoff`: sealed connection batches whose every poll is older (a batch goes whole), then other
   * polls, oldest first. An operation's newest poll always stays.
   */
  step(cluster: string, cutoff: bigint, maxPolls: number): RetentionStep {
    const sqlite = this.#sqlite;
    const cid = this.#prepare('SELECT id FROM cluster WHERE name = ?').pluck().get(cluster) as number | undefined;
    if (cid === undefined) return NOTHING;
    return sqlite
      .transaction((): RetentionStep => {
        const before = this.#usedBytes();
        const newest = this.#prepare('SELECT max(started_at) FROM poll WHERE cluster_id = ? AND operation = ?')
          .pluck()
          .safeIntegers();
        const cutOf = (op: string): bigint => {
          const n = newest.get(cid, op) as bigint | null;
          return n !== null && n < cutoff ? n : cutoff;
        };
        // whole sealed batches, oldest first (their frames' polls are ListKafkaConnections polls)
        const batchLimit = Math.max(1, Math.floor(maxPolls / 8));
        const batches = this.#prepare(
          `SELECT b.id FROM conn_batch b JOIN poll p ON p.id = b.last_poll
             WHERE b.cluster_id = ? AND b.sealed = 1 AND p.started_at < ? ORDER BY b.id LIMIT ?`,
        )
          .pluck()
          .all(cid, cutOf('ListKafkaConnections'), batchLimit + 1) as number[];
        const goneBatches = batches.slice(0, batchLimit);
        const polls: number[] = [];
        if (goneBatches.length > 0) {
          polls.push(
            ...(this.#prepare('SELECT poll FROM conn_frame WHERE batch IN (SELECT value FROM json_each(?))')
              .pluck()
              .all(JSON.stringify(goneBatches)) as number[]),
          );
        }
        let more = batches.length > batchLimit;
        // other polls (failed ones of ListKafkaConnections too), each operation by its index
        const others = this.#prepare(
          `SELECT id FROM poll WHERE cluster_id = ? AND operation = ? AND started_at < ?
             AND NOT EXISTS (SELECT 1 FROM conn_frame f WHERE f.poll = poll.id) ORDER BY started_at LIMIT ?`,
        );
        for (const op of OPERATION_NAMES) {
          const room = maxPolls - polls.length;
          if (room <= 0) {
            more = true;
            break;
          }
          const ids = others.pluck().all(cid, op, cutOf(op), room + 1) as number[];
          if (ids.length > room) more = true;
          polls.push(...ids.slice(0, room));
        }
        if (polls.length === 0 && goneBatches.length === 0) return NOTHING;
        const list = JSON.stringify(polls);
        // the stored samples of every per-poll table (connection samples: the rows of their frames)
        let samples = 0;
        for (const t of PER_POLL_TABLE_LIST) {
          if (t.samples === 'none') continue;
          const going = `${t.key} IN (SELECT value FROM json_each(?))`;
          samples += Number(this.#prepare(sampleCountSql(t.table, going)).pluck().get(list));
        }
        // per-poll rows (samples, frames, raw bodies) cascade from poll; chunks from conn_batch
        const removed = this.#prepare('DELETE FROM poll WHERE id IN (SELECT value FROM json_each(?))').run(
          list,
        ).changes;
        if (goneBatches.length > 0) {
          this.#prepare('DELETE FROM conn_batch WHERE id IN (SELECT value FROM json_each(?))').run(
            JSON.stringify(goneBatches),
          );
        }
        return { polls: removed, samples, bytes: Math.max(0, before - this.#usedBytes()), more };
      })
      .immediate();
  }

  /**
   * One bounded step of removing what no remaining poll of `cluster` references, resumed where the
   * last step stopped: superseded versions (ended before the oldest remaining connection batch),
   * then connection identities last listed before it (not those of the cluster's newest batches,
   * which the writer may hold, nor those listed in an open batch), `maxRows` ids of the table at a
   * time (the work of a step is bounded however few rows match), then the shadow link documents no
   * sample names (bumping `doc_generation`, so the writer drops its document cache). `more` is
   * false once the whole cycle is done.
   */
  cleanup(cluster: string, maxRows: number): RetentionStep {
    const sqlite = this.#sqlite;
    const cid = this.#prepare('SELECT id FROM cluster WHERE name = ?').pluck().get(cluster) as number | undefined;
    if (cid === undefined) return NOTHING;
    const window = Math.max(64, Math.floor(maxRows));
    return sqlite
      .transaction((): RetentionStep => {
        const before = this.#usedBytes();
        const at = this.#cleanupAt.get(cluster) ?? { phase: 'versions', from: 0 };
        const first = this.#prepare('SELECT min(first_poll) FROM conn_batch WHERE cluster_id = ?').pluck().get(cid) as
          number | null;
        const horizon = first ?? Number.MAX_SAFE_INTEGER;
        const done = (): RetentionStep => ({
          polls: 0,
          samples: 0,
          bytes: Math.max(0, before - this.#usedBytes()),
          more: true,
        });
        if (at.phase === 'versions') {
          const from = Math.max(at.from, Number(this.#prepare('SELECT min(id) FROM conn_version').pluck().get() ?? 0));
          this.#prepare(
            `DELETE FROM conn_version WHERE id >= ? AND id < ? AND to_poll IS NOT NULL AND to_poll <= ?
               AND (SELECT cluster_id FROM conn_entity e WHERE e.id = conn_version.entity) = ?`,
          ).run(from, from + window, horizon, cid);
          const last = this.#prepare('SELECT max(id) FROM conn_version').pluck().get() as number | null;
          this.#cleanupAt.set(
            cluster,
            last === null || from + window > last
              ? { phase: 'entities', from: 0 }
              : { phase: 'versions', from: from + window },
          );
          return done();
        }
        if (at.phase === 'entities') {
          // the writer remembers the connections of its last four batches (and the open one)
          const recent = this.#prepare(
            'SELECT first_poll FROM conn_batch WHERE cluster_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?',
          )
            .pluck()
            .get(cid, RECENT_BATCHES - 1) as number | undefined;
          const entityHorizon = Math.min(horizon, recent ?? horizon);
          const stay = this.#openBatchEntities(cid, entityHorizon);
          const from = Math.max(at.from, Number(this.#prepare('SELECT min(id) FROM conn_entity').pluck().get() ?? 0));
          this.#prepare(
            `DELETE FROM conn_entity WHERE id >= ? AND id < ? AND cluster_id = ? AND last_poll < ?
               AND id NOT IN (SELECT value FROM json_each(?))`,
          ).run(from, from + window, cid, entityHorizon, stay);
          const last = this.#prepare('SELECT max(id) FROM conn_entity').pluck().get() as number | null;
          this.#cleanupAt.set(
            cluster,
            last === null || from + window > last
              ? { phase: 'documents', from: 0 }
              : { phase: 'entities', from: from + window },
          );
          return done();
        }
        this.#cleanupAt.delete(cluster);
        const docs = this.#prepare(
          `DELETE FROM doc WHERE id NOT IN (SELECT configurations FROM link_sample
             UNION SELECT synced_properties FROM link_sample
             UNION SELECT sr_status FROM link_sample)`,
        ).run().changes;
        if (docs > 0) {
          this.#prepare(
            `INSERT INTO meta (key, value) VALUES ('doc_generation', 1)
             ON CONFLICT (key) DO UPDATE SET value = meta.value + 1`,
          ).run();
        }
        return { polls: 0, samples: 0, bytes: Math.max(0, before - this.#usedBytes()), more: false };
      })
      .immediate();
  }

  /** The entities listed in the cluster's open batches (JSON), decoded again only when those batches changed. */
  #openBatchEntities(cid: number, horizon: number): string {
    const open = this.#prepare('SELECT id, frames FROM conn_batch WHERE cluster_id = ? AND sealed = 0').raw().all(cid);
    const key = `${cid} ${horizon} ${JSON.stringify(open)}`;
    if (this.#stay?.key !== key)
      this.#stay = { key, json: JSON.stringify(sealedLater(this.#sqlite, cid, '[]', horizon)) };
    return this.#stay.json;
  }

  /** True when raw history is partitioned by day (PostgreSQL): `dropPartitions` can then remove whole days. */
  partitioned(): boolean {
    return this.#db().engine.partitions !== undefined;
  }

  /**
   * Drops, in one transaction, the day partitions of the days whose every poll `step` would
   * remove at `cutoff` (PostgreSQL only; nothing on SQLite), with the connection batches they
   * touch. What only those polls referenced is left to `cleanup`. First makes the partitions of
   * today and the next days that are missing.
   */
  dropPartitions(cutoff: bigint): PartitionDrop {
    const partitions = this.#db().engine.partitions;
    if (partitions === undefined) return { days: [], batches: 0, batchPolls: 0 };
    partitions.ensure();
    return partitions.dropExpired(cutoff);
  }

  /** Removes up to about `maxRows` rollup rows older than `cutoff` in one transaction. */
  pruneRollups(cutoff: bigint, maxRows: number): RetentionStep {
    const sqlite = this.#sqlite;
    return sqlite
      .transaction((): RetentionStep => {
        const before = this.#usedBytes();
        const rows = pruneRollupRows(sqlite, cutoff, maxRows, this.#rollupTables);
        return { polls: 0, samples: rows, bytes: Math.max(0, before - this.#usedBytes()), more: rows > 0 };
      })
      .immediate();
  }

  /**
   * Writes what pruning and the rollups put in the write-ahead log back into the database (SQLite;
   * PASSIVE: never waits for a reader), so that the next poll's checkpoint (at a batch seal) does
   * not copy it on the poll's time. On a file it runs on a connection of another thread (its
   * writes and syncs would hold up a poll falling due: tens to hundreds of ms on a busy disk), and
   * the promise settles, never rejecting, when it is done or given up; elsewhere (an in-memory
   * database; PostgreSQL, where it is a no-op) it runs here.
   */
  checkpoint(): void | Promise<BackgroundCheckpoint> {
    const engine = this.#db().engine;
    if (engine.checkpointInBackground !== undefined) return engine.checkpointInBackground();
    engine.passiveCheckpoint();
  }

  /** Appends an entry to the maintenance log, and forgets the entries older than 400 days before it. */
  log(entry: MaintenanceEntry): void {
    recordMaintenance(this.#sqlite, entry);
    this.#prepare('DELETE FROM maintenance_log WHERE at < ?').run(entry.at - LOG_KEEP_NS);
  }
}

/** Bytes of the pages in use, as the store's connection sees them (SQLite: the file less its free pages). */
export function usedBytes(db: StoreSession): number {
  return db.engine.usedBytes();
}
