/**
 * Poll ids a copy writes explicitly into a PostgreSQL store. There a new poll's id is
 * `(UTC day << 32) + nextval('flightrec_poll_seq')` (drizzle/pg/0000); a copy keeping a source's
 * ids (recorded today by a collector on another PostgreSQL database, say) must leave that
 * sequence past them, or the next poll a collector records into the target gets the same id.
 * And since the poll key is (cluster_id, id), such a duplicate of another cluster would not even
 * be refused: the sequence is advanced in the transaction that writes the ids, under its lock.
 */
import type Database from 'better-sqlite3';

/** The server's UTC day, as the first poll id of the next day: kept ids stay below it (no future day). */
const NEXT_DAY_FIRST_ID = 'SELECT (floor(extract(epoch from clock_timestamp()) / 86400)::bigint + 1) << 32';

/**
 * Moves flightrec_poll_seq past the sequence part of every poll id of today (the server's UTC
 * day, and later ones); never back. Run after writing polls with explicit ids.
 */
const ADVANCE = `SELECT setval('flightrec_poll_seq', greatest(max(p.id & 4294967295), s.last_value))
  FROM poll p CROSS JOIN flightrec_poll_seq s
  WHERE p.id >= (floor(extract(epoch from clock_timestamp()) / 86400)::bigint << 32)
  GROUP BY s.last_value`;

/** The lowest poll id of the server's next UTC day: a copy renumbers source ids from that day on (a clock ahead). */
export function nextDayFirstPollId(sqlite: Database.Database): bigint {
  return sqlite.prepare(NEXT_DAY_FIRST_ID).pluck().safeIntegers().get() as bigint;
}

/** Leaves the poll id sequence past every id of today's polls, so that new polls never take a copied id. */
export function advancePollIdSequence(sqlite: Database.Database): void {
  sqlite.prepare(ADVANCE).safeIntegers().all();
}
