/**
 * Poll ids a copy writes explicitly into a PostgreSQL store. There a new poll's id is
 * `(UTC day << 32) + nextval('flightrec_poll_seq')` (drizzle/pg/0000); a copy keeping a source's
 * ids (recorded today by a collector on another PostgreSQL database, say) must leave that
 * sequence past them, or the next poll a collector records into the target gets the same id.
 * And since the poll key is (cluster_id, id), such a duplicate of another cluster would not even
 * be refused: the sequence is advanced in the transaction that writes the ids, under its lock.
 */
import type { SqlSession } from '../../sql-session.ts';

/** The server's UTC day number, as flightrec_poll_id() computes it. */
const TODAY = 'floor(extract(epoch from clock_timestamp()) / 86400)::bigint';

/** The first poll id of the server's next UTC day: kept ids stay below it (no future day). */
const NEXT_DAY_FIRST_ID = `SELECT (${TODAY} + 1) << 32`;

/**
 * Moves flightrec_poll_seq past the sequence part of today's highest poll id (the server's UTC
 * day: ids of later days are never kept), never back. Run after writing polls with explicit ids.
 */
const ADVANCE = `SELECT setval('flightrec_poll_seq', greatest(m.top & 4294967295, s.last_value))
  FROM (SELECT max(id) AS top FROM poll WHERE id >= (${TODAY} << 32) AND id < ((${TODAY} + 1) << 32)) AS m
  CROSS JOIN flightrec_poll_seq s WHERE m.top IS NOT NULL`;

/** The lowest poll id of the server's next UTC day: a copy renumbers source ids from that day on (a clock ahead). */
export function nextDayFirstPollId(sqlite: SqlSession): bigint {
  return sqlite.prepare(NEXT_DAY_FIRST_ID).pluck().safeIntegers().get() as bigint;
}

/** Leaves the poll id sequence past every id of today's polls, so that new polls never take a copied id. */
export function advancePollIdSequence(sqlite: SqlSession): void {
  sqlite.prepare(ADVANCE).safeIntegers().all();
}
