/**
 * PostgreSQL keys every row by cluster (the schema is ready to be sharded by cluster); the store's
 * child rows (samples, frames, chunks, strings) take their `cluster_id` from a setting of the
 * write transaction, which this names. On SQLite it does nothing.
 */
import type Database from 'better-sqlite3';
import { PgSyncDatabase } from './pg/sync-database.ts';

/** Names the cluster whose rows the current write transaction inserts (PostgreSQL only). */
export function scopeCluster(sqlite: Database.Database, clusterId: number | (() => number)): void {
  if (!(sqlite instanceof PgSyncDatabase)) return;
  sqlite.scopeCluster(typeof clusterId === 'function' ? clusterId() : clusterId);
}
