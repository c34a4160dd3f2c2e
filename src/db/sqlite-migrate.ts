/**
 * Applying the committed drizzle migrations to an SQLite database, as drizzle-orm's
 * better-sqlite3 migrator does (the same `__drizzle_migrations` table, the same rows, one
 * transaction), without drizzle's SQLite dialect, session and query builders: every command,
 * reads too, compiled those modules at start for the one call a writer makes (issue 36). The
 * migration files are read by drizzle's own reader (`drizzle-orm/migrator`: fs and crypto only),
 * so the hashes and the statement breaks stay drizzle's; test/db/sqlite-migrate.test.ts holds
 * the result to drizzle's migrator's.
 */
import type Database from 'better-sqlite3';
import { readMigrationFiles } from 'drizzle-orm/migrator';

// drizzle's statement, byte for byte (SQLite keeps its text in sqlite_schema)
const CREATE_TABLE = `
\t\t\tCREATE TABLE IF NOT EXISTS "__drizzle_migrations" (
\t\t\t\tid SERIAL PRIMARY KEY,
\t\t\t\thash text NOT NULL,
\t\t\t\tcreated_at numeric
\t\t\t)
\t\t`;

/** Applies the migrations of `migrationsFolder` newer than the last one recorded, in one transaction. */
export function applyMigrations(sqlite: Database.Database, migrationsFolder: string): void {
  const migrations = readMigrationFiles({ migrationsFolder });
  sqlite.prepare(CREATE_TABLE).run();
  const last = sqlite
    .prepare('SELECT id, hash, created_at FROM "__drizzle_migrations" ORDER BY created_at DESC LIMIT 1')
    .raw()
    .get() as unknown[] | undefined;
  sqlite.prepare('BEGIN').run();
  try {
    for (const migration of migrations) {
      if (last !== undefined && Number(last[2]) >= migration.folderMillis) continue;
      for (const statement of migration.sql) sqlite.prepare(statement).run();
      sqlite
        .prepare('INSERT INTO "__drizzle_migrations" ("hash", "created_at") VALUES(?, ?)')
        .run(migration.hash, migration.folderMillis);
    }
    sqlite.prepare('COMMIT').run();
  } catch (err) {
    sqlite.prepare('ROLLBACK').run();
    throw err;
  }
}
