/** Store maintenance: statistics, pruning whole polls older than T, and vacuum. */
import type { ResourceName } from '../../api/schema/resources.ts';
import { ConnectionIngest } from '../connections/ingest.ts';
import { StringDict } from '../encoding/dictionary.ts';
import { damaged, HistoryQueryError } from '../errors.ts';
import type { FlightrecDb } from '../engines/open.ts';
import { mergedSampleCounts } from '../read/merged-sample-count.ts';
import { sampleCountSql, sampleTableOf } from '../schema/per-poll-tables.ts';
import { GONE_BATCHES, planPrune, type PrunePlan } from './prune-plan.ts';
import { bytesOf, POLL_TABLES, RESOURCE_TABLES, ROLLUP_TABLES, SHARED_TABLES } from './table-bytes.ts';

/** A resource's share of the store, for `db stats`. */
export interface ResourceStats {
  /** distinct entities */
  readonly entities: number;
  /** samples as the readers give them: one per entity per round (sample-rounds.ts) */
  readonly samples: number;
  /** rows stored: more than samples where several operations report the resource */
  readonly storedRows: number;
  /** its own tables with their indexes (null when this SQLite build has no dbstat) */
  readonly bytes: number | null;
  /** bytes / samples (null without samples or bytes) */
  readonly bytesPerSample: number | null;
  /** the tables counted in `bytes` */
  readonly tables: readonly string[];
}

/** Bytes of a group of tables that hold no resource's samples. */
export interface TableGroupStats {
  /** with their indexes (null when this SQLite build has no dbstat) */
  readonly bytes: number | null;
  readonly tables: readonly string[];
}

/** Counts and sizes of a history database. */
export interface StoreStats {
  readonly polls: number;
  readonly failedPolls: number;
  /** distinct entities per resource */
  readonly entities: Record<string, number>;
  /** samples per resource, as the readers give them (one per entity per round) */
  readonly samples: Record<string, number>;
  /**
   * SQLite: the database file plus its WAL. PostgreSQL: the store's tables with their indexes
   * and TOAST, each partitioned table with all its partitions (pg_total_relation_size)
   */
  readonly fileBytes: number;
  /** per resource: samples, stored rows, its own tables' bytes and bytes per sample */
  readonly resources: Record<string, ResourceStats>;
  /** the poll log (every call attempt, raw bodies kept); `bytesPerPoll` null without polls or bytes */
  readonly pollLog: TableGroupStats & { readonly bytesPerPoll: number | null };
  /** the string dictionary every resource shares */
  readonly strings: TableGroupStats;
  /** summaries of pruned history and kept timeline events */
  readonly rollups: TableGroupStats;
  /**
   * what none of the above holds: the schema, the bookkeeping tables (cluster, meta, leases,
   * maintenance log, migrations) and, on SQLite, free pages and the WAL (null without dbstat)
   */
  readonly overheadBytes: number | null;
  /** the engine holding the history */
  readonly engine: 'sqlite' | 'postgres';
}

/** What a prune removed. */
export interface PruneResult {
  readonly polls: number;
  readonly connectionBatches: number;
  readonly connections: number;
  readonly versions: number;
  readonly documents: number;
}

/**
 * The SQL counting the distinct entities of each resource stored per poll; its samples are
 * counted from its per-poll table (src/db/schema/per-poll-tables.ts).
 */
const ENTITY_COUNTS: Readonly<Partial<Record<ResourceName, string>>> = {
  connections: 'SELECT count(*) FROM conn_entity',
  'shadow-links': 'SELECT count(DISTINCT name) FROM link_sample',
  'shadow-tasks': 'SELECT count(*) FROM (SELECT DISTINCT link, name, broker_id, shard FROM shadow_task_sample) AS d',
  'shadow-topics': 'SELECT count(*) FROM (SELECT DISTINCT link, name FROM shadow_topic_sample) AS d',
  'shadow-partitions': `SELECT count(*) FROM (SELECT DISTINCT t.link, t.name, p.partition_id FROM shadow_partition_sample p
               JOIN shadow_topic_sample t ON t.poll = p.poll AND t.pos = p.topic_pos) AS d`,
  upgrade: 'SELECT count(*) > 0 FROM upgrade_sample',
  'upgrade-members': 'SELECT count(DISTINCT node_id) FROM upgrade_member_sample',
  'iceberg-topics': 'SELECT count(DISTINCT topic) FROM iceberg_topic_sample',
  'iceberg-partitions': `SELECT count(*) FROM (SELECT DISTINCT t.topic, p.partition FROM iceberg_partition_sample p
               JOIN iceberg_topic_sample t ON t.poll = p.poll AND t.pos = p.topic_pos) AS d`,
};

/**
 * The maintenance role of the history store (the reader cannot prune or vacuum): counts and
 * sizes, what a prune would remove (reads only), the prune itself and vacuum.
 */
export interface HistoryMaintenance {
  /** Counts and sizes for `db stats`. */
  stats(): StoreStats;
  /** Size of the database file plus its WAL, in bytes. */
  fileBytes(): number;
  /** What prune(olderThan) would remove, read-only: counts, samples, bytes, time range, operations left empty. */
  planPrune(olderThan: bigint): PrunePlan;
  /** Deletes whole polls older than T and what they alone referenced (needs a writable database). */
  prune(olderThan: bigint): PruneResult;
  /** Rebuilds the file to reclaim free pages (needs a writable database). */
  vacuum(): void;
}

/**
 * Opens the maintenance role over an open database (read-only is enough for stats and plans).
 * Stats read in one read transaction; damaged stored data there is a CorruptDataError.
 */
export function openHistoryMaintenance(db: FlightrecDb): HistoryMaintenance {
  const m = new Maintenance(db);
  const read = <T>(fn: () => T): T => {
    try {
      return db.sqlite.transaction(fn).deferred();
    } catch (err) {
      throw damaged(err);
    }
  };
  return {
    stats: () => read(() => m.stats()),
    fileBytes: () => m.fileBytes(),
    planPrune: (olderThan) => read(() => m.planPrune(olderThan)),
    prune: (olderThan) => m.prune(olderThan),
    vacuum: () => m.vacuum(),
  };
}

/** Statistics, prune and vacuum over one database. */
export class Maintenance implements HistoryMaintenance {
  readonly #db: FlightrecDb;
  readonly #onPrune: () => void;

  constructor(db: FlightrecDb, onPrune: () => void = () => {}) {
    this.#db = db;
    this.#onPrune = onPrune;
  }

  /** Counts and sizes. */
  stats(): StoreStats {
    const sqlite = this.#db.sqlite;
    const one = (sql: string): number => Number(sqlite.prepare(sql).pluck().get());
    const sizes = this.#db.engine.tableBytes();
    const group = (tables: readonly string[]): TableGroupStats => ({
      bytes: sizes === undefined ? null : bytesOf(sizes, tables),
      tables,
    });
    const merged = mergedSampleCounts(sqlite);
    const entities: Record<string, number> = {};
    const samples: Record<string, number> = {};
    const resources: Record<string, ResourceStats> = {};
    let measured = 0;
    for (const [name, sql] of Object.entries(ENTITY_COUNTS) as [ResourceName, string][]) {
      const tables = RESOURCE_TABLES[name as keyof typeof RESOURCE_TABLES];
      const table = sampleTableOf(name);
      const storedRows = table === undefined ? 0 : one(sampleCountSql(table));
      const n =
        name === 'shadow-topics' ? merged.topics : name === 'shadow-partitions' ? merged.partitions : storedRows;
      const { bytes } = group(tables);
      measured += bytes ?? 0;
      const e = one(sql);
      entities[name] = e;
      samples[name] = n;
      resources[name] = {
        entities: e,
        samples: n,
        storedRows,
        bytes,
        bytesPerSample: bytes === null || n === 0 ? null : bytes / n,
        tables,
      };
    }
    const polls = one('SELECT count(*) FROM poll');
    const pollLog = group(POLL_TABLES);
    const strings = group(SHARED_TABLES);
    const rollups = group(ROLLUP_TABLES);
    const fileBytes = this.fileBytes();
    measured += (pollLog.bytes ?? 0) + (strings.bytes ?? 0) + (rollups.bytes ?? 0);
    return {
      polls,
      failedPolls: one('SELECT count(*) FROM poll WHERE ok = 0'),
      entities,
      samples,
      fileBytes,
      resources,
      pollLog: { ...pollLog, bytesPerPoll: pollLog.bytes === null || polls === 0 ? null : pollLog.bytes / polls },
      strings,
      rollups,
      overheadBytes: sizes === undefined ? null : Math.max(0, fileBytes - measured),
      engine: this.#db.engine.name,
    };
  }

  /** Size of the database file plus its WAL, in bytes; on PostgreSQL, of the store's tables (see StoreStats). */
  fileBytes(): number {
    return this.#db.engine.storeBytes();
  }

  #writable(what: string): void {
    if (this.#db.readonly)
      throw new HistoryQueryError(`${what} needs the database open for writing (${this.#db.path} is read-only)`);
  }

  /**
   * Deletes every poll older than `olderThan` with what only it referenced, in one transaction.
   * Connection polls go a sealed batch at a time: a batch with any poll at or after T is kept whole.
   */
  prune(olderThan: bigint): PruneResult {
    this.#writable('prune');
    const sqlite = this.#db.sqlite;
    const run = (sql: string, ...params: unknown[]): number => sqlite.prepare(sql).run(...params).changes;
    const result = sqlite
      .transaction((): PruneResult => {
        new ConnectionIngest(this.#db, new StringDict(sqlite)).sealOpenBatches();
        const batches = sqlite.prepare(GONE_BATCHES).pluck().all(olderThan) as number[];
        const gone = JSON.stringify(batches);
        const polls = run(
          `DELETE FROM poll WHERE started_at < ? AND NOT EXISTS
           (SELECT 1 FROM conn_frame f WHERE f.poll = poll.id AND f.batch NOT IN (SELECT value FROM json_each(?)))`,
          olderThan,
          gone,
        );
        const connectionBatches = run('DELETE FROM conn_batch WHERE id IN (SELECT value FROM json_each(?))', gone);
        let connections = 0;
        let versions = 0;
        for (const cid of sqlite.prepare('SELECT id FROM cluster').pluck().all() as number[]) {
          const first = sqlite
            .prepare('SELECT min(f.poll) FROM conn_frame f JOIN conn_batch b ON b.id = f.batch WHERE b.cluster_id = ?')
            .pluck()
            .get(cid) as number | null;
          const horizon = first ?? Number.MAX_SAFE_INTEGER;
          versions += run(
            `DELETE FROM conn_version WHERE to_poll IS NOT NULL AND to_poll <= ? AND entity IN
             (SELECT id FROM conn_entity WHERE cluster_id = ?)`,
            horizon,
            cid,
          );
          connections += run('DELETE FROM conn_entity WHERE cluster_id = ? AND last_poll < ?', cid, horizon);
        }
        const documents = run(
          `DELETE FROM doc WHERE id NOT IN (SELECT configurations FROM link_sample UNION SELECT synced_properties FROM link_sample
           UNION SELECT sr_status FROM link_sample)`,
        );
        run(
          `INSERT INTO meta (key, value) VALUES ('prune_generation', 1) ON CONFLICT (key) DO UPDATE SET value = meta.value + 1`,
        );
        return { polls, connectionBatches, connections, versions, documents };
      })
      .immediate();
    this.#onPrune();
    return result;
  }

  /** What `prune(olderThan)` would remove, with reads only (a dry run: nothing changes). */
  planPrune(olderThan: bigint): PrunePlan {
    return planPrune(this.#db, olderThan);
  }

  /** VACUUM, then truncate the WAL. */
  vacuum(): void {
    this.#writable('vacuum');
    this.#db.engine.vacuum();
  }
}
