/** The better-sqlite3 handle of an SQLite store, for the tests that read or set its pragmas. */
import Database from 'better-sqlite3';
import type { FlightrecDb } from '../../src/db/index.ts';

/** `db`'s better-sqlite3 connection; throws when `db` is not an SQLite store. */
export function sqliteOf(db: Pick<FlightrecDb, 'sqlite'>): Database.Database {
  if (!(db.sqlite instanceof Database)) throw new Error('not an SQLite store');
  return db.sqlite;
}
