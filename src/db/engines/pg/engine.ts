/**
 * The PostgreSQL engine: a history database on a server (`postgres://`), or in-process PGlite
 * (`pglite://`, for tests), reached through the synchronous bridge (sync-database.ts). Its
 * session's methods are the PostgreSQL side of what the engines do differently.
 */
import { PG_CHUNK_GROUP_BYTES } from '../../connections/chunk.ts';
import type { SqlStatement } from '../../sql-session.ts';
import type { EngineSession, FlightrecDb, OpenOptions, StoreEngine } from '../store-engine.ts';
import { advancePollIdSequence, nextDayFirstPollId } from './copied-poll-ids.ts';
import { displayDbTarget } from './display.ts';
import { openPostgres } from './open-postgres.ts';
import { bridgeEngineOf } from './open-target.ts';
import { dropExpiredDays, ensureDayPartitions } from './partition-retention.ts';
import { framePartitionOf } from './partitions.ts';
import { redactDbTexts, redactSecrets } from './redact.ts';
import { PgStatement, type PgSyncDatabase } from './sync-database.ts';
import { isDbUrl, parseDbTarget, parseDbTargetText } from './target.ts';

/** Why `db check` checks no page on PostgreSQL. */
export const PG_PAGES_NOTE =
  "not checked: PostgreSQL's own pages and indexes (SQLite's integrity_check has no PostgreSQL equivalent " +
  'that a reader may run; use data checksums, pg_amcheck and the server logs)';

/**
 * Each table of the store's schema (not a partition) with its pg_total_relation_size (indexes and
 * TOAST included), summed over its partition tree for a partitioned one.
 */
const TABLE_BYTES = `SELECT c.relname::text AS tbl, CASE WHEN c.relkind = 'p'
  THEN (SELECT coalesce(sum(pg_total_relation_size(p.relid)), 0) FROM pg_partition_tree(c.oid::regclass) p)
  ELSE pg_total_relation_size(c.oid) END AS bytes
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND NOT c.relispartition`;

/**
 * A VACUUM of the day partition of `conn_frame` whose head frames the seal in poll `pollId`'s
 * write cleared: PostgreSQL leaves the space of the cleared heads (their TOAST) in the table
 * until a VACUUM; run here, the next batch's heads reuse it, where waiting for autovacuum let
 * the table grow by every sealed batch's heads in between. Never throws: the poll is stored, and
 * a failed clean-up is redone by the next seal or autovacuum.
 */
function vacuumSealedFrames(handle: PgSyncDatabase, pollId: bigint): void {
  // the day's partition, or the DEFAULT one when no day partition was ready for the poll
  for (const name of [framePartitionOf(pollId), 'conn_frame_default']) {
    try {
      handle.exec(`VACUUM (SKIP_LOCKED) "${name}"`);
      return;
    } catch (err) {
      if ((err as { code?: unknown }).code !== '42P01') return; // not "no such table": leave it to autovacuum
    }
  }
}

/** The PostgreSQL side of what the engines do differently, on the bridge handle `handle`. */
function postgresSession(handle: PgSyncDatabase): EngineSession {
  const tableBytes = (): Map<string, number> =>
    new Map(
      (handle.prepare(TABLE_BYTES).all() as { tbl: string; bytes: unknown }[]).map((r) => [r.tbl, Number(r.bytes)]),
    );
  // the size of the store's tables
  const storeBytes = (): number => [...tableBytes().values()].reduce((sum, b) => sum + b, 0);
  return {
    name: 'postgres',
    label: 'PostgreSQL',
    connectionLayout: 'packed-records',
    chunkGroupBytes: PG_CHUNK_GROUP_BYTES,
    // the database's size in whole pages of 8 KiB: the server keeps no free-page count a reader may ask
    usedBytes: () =>
      Math.ceil(Number(handle.prepare('SELECT pg_database_size(current_database())').pluck().get()) / 8192) * 8192,
    storeBytes,
    tableBytes,
    scopeCluster: (clusterId) => handle.scopeCluster(typeof clusterId === 'function' ? clusterId() : clusterId),
    prefetches: true,
    prefetch: (stmt: SqlStatement<never[]>, ...args: unknown[]) =>
      stmt instanceof PgStatement && stmt.prefetch(...args),
    afterSeal: (pollId) => vacuumSealedFrames(handle, pollId),
    // the server writes its log back itself
    deferCheckpoints: () => undefined,
    checkpoint: () => undefined,
    vacuum: () => void handle.exec('VACUUM (ANALYZE)'),
    // the server owns the cache
    cacheKiB: () => undefined,
    integrityCheck: () => ({ note: PG_PAGES_NOTE }),
    partitions: {
      ensure: () => void ensureDayPartitions(handle),
      dropExpired: (cutoff) => dropExpiredDays(handle, cutoff),
    },
    pollIds: {
      nextDayFirstId: () => nextDayFirstPollId(handle),
      advancePastKept: () => advancePollIdSequence(handle),
    },
  };
}

/** Opens a PostgreSQL (or PGlite) history database. */
function openPostgresDb(text: string, opts: OpenOptions): FlightrecDb {
  const target = parseDbTarget(text, opts.passwordFile === undefined ? {} : { passwordFile: opts.passwordFile });
  if (target.kind === 'sqlite') throw new Error(`not a PostgreSQL target: ${displayDbTarget(target)}`);
  const shown = displayDbTarget(target);
  const readonly = opts.readonly ?? false;
  const opened = openPostgres({
    engine: bridgeEngineOf(target),
    shown,
    readonly,
    redact: (m) => redactSecrets(m, target),
  });
  return {
    path: shown,
    target: text,
    engine: postgresSession(opened.handle),
    sqlite: opened.handle,
    readonly,
    keepRawAnswers: opts.keepRawAnswers ?? false,
    schemaVersion: opened.schemaVersion,
    close: () => {
      opened.handle.close();
    },
  };
}

/** The PostgreSQL engine: `postgres://`, `postgresql://` and `pglite://` targets. */
export const postgresEngine: StoreEngine = {
  name: 'postgres',
  label: 'PostgreSQL',
  file: false,
  claims: isDbUrl,
  shown: (text) => displayDbTarget(parseDbTargetText(text)),
  redact: redactDbTexts,
  databaseName: (text) => {
    const target = parseDbTargetText(text);
    return target.kind === 'postgres' ? target.database : undefined;
  },
  access: (text) => {
    const target = parseDbTargetText(text);
    return target.kind === 'postgres'
      ? { passwordInUrl: target.password !== undefined, tls: `sslmode=${target.sslmode}` }
      : undefined;
  },
  // PGlite runs in the process that opened it: one connection
  writesFromOwnThread: (text) => parseDbTargetText(text).kind === 'postgres',
  open: openPostgresDb,
};
