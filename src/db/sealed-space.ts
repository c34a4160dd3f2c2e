/**
 * What follows a committed batch seal, the one big write of a cluster's connection history: on
 * SQLite a passive WAL checkpoint; on PostgreSQL a VACUUM of the day partition of `conn_frame`
 * whose head frames the seal cleared. PostgreSQL leaves the space of the cleared heads (their
 * TOAST) in the table until a VACUUM; run here, the next batch's heads reuse it, where waiting
 * for autovacuum let the table grow by every sealed batch's heads in between.
 */
import type Database from 'better-sqlite3';
import { pollIdDay } from './pg/partitions.ts';
import { PgSyncDatabase } from './pg/sync-database.ts';

/** The conn_frame partition holding the frames of poll `pollId` (`conn_frame_dYYYYMMDD`). */
export function framePartitionOf(pollId: bigint): string {
  const day = pollIdDay(pollId);
  return `conn_frame_d${new Date(day * 86_400_000).toISOString().slice(0, 10).replace(/-/g, '')}`;
}

/**
 * Reclaims what the seal in poll `pollId`'s write left behind (outside any transaction). Never
 * throws: the poll is stored, and a failed clean-up is redone by the next seal or autovacuum.
 */
export function reclaimSealedSpace(sqlite: Database.Database, pollId: bigint): void {
  try {
    if (!(sqlite instanceof PgSyncDatabase)) {
      sqlite.pragma('wal_checkpoint(PASSIVE)');
      return;
    }
    // the day's partition, or the DEFAULT one when no day partition was ready for the poll
    for (const name of [framePartitionOf(pollId), 'conn_frame_default']) {
      try {
        sqlite.exec(`VACUUM (SKIP_LOCKED) "${name}"`);
        return;
      } catch (err) {
        if ((err as { code?: unknown }).code !== '42P01') return; // not "no such table": leave it to autovacuum
      }
    }
  } catch {
    // a checkpoint SQLite cannot do now is done by a later one
  }
}
