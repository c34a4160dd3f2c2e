/**
 * Migrating a PostgreSQL history database: the committed drizzle/pg migrations applied under a
 * session advisory lock (collectors starting together never race), after a version check that
 * refuses, untouched, a database written by a newer flightrec; then today's and the next days'
 * partitions made ready. Works on a checked-out `pg` client and on PGlite.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import { DatabaseOpenError, DatabaseVersionError } from '../../errors.ts';

/** A connection to PostgreSQL: a checked-out `pg` pool client (or client), or a PGlite instance. */
export type PgClient = pg.ClientBase | PGlite;

/** What both clients answer to `query`. */
interface Queryable {
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
}

/** Runs one statement on either client; its rows. */
export async function pgRows<T>(client: PgClient, text: string, params: unknown[] = []): Promise<T[]> {
  const q: Queryable = client;
  return (await q.query(text, params)).rows as T[];
}

/** The session advisory lock key held while migrating ('flightr' 0x01). */
export const MIGRATION_LOCK_KEY = '7380389782208410113';

/** Days ahead of today whose partitions are made (at open and at each retention pass). */
export const DAYS_AHEAD = 2;

let cachedFolder: string | undefined;

/** The committed PostgreSQL migrations folder (drizzle/pg), found from the package root (source or dist/). */
export function pgMigrationsFolder(): string {
  if (cachedFolder !== undefined) return cachedFolder;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'drizzle', 'pg', 'meta', '_journal.json'))) {
      cachedFolder = join(dir, 'drizzle', 'pg');
      return cachedFolder;
    }
    const up = dirname(dir);
    if (up === dir)
      throw new Error('flightrec: cannot find the drizzle/pg/ migrations folder above the installed code');
    dir = up;
  }
}

interface Journal {
  readonly entries: readonly { readonly when: number }[];
}

/** The schema version a migrations folder brings: its migration count and the newest one's timestamp. */
export function pgJournalVersion(folder: string = pgMigrationsFolder()): { supported: number; lastWhen: number } {
  const journal = JSON.parse(readFileSync(join(folder, 'meta', '_journal.json'), 'utf8')) as Journal;
  return { supported: journal.entries.length, lastWhen: journal.entries.at(-1)?.when ?? 0 };
}

/** The schema version of a database: migrations applied (0: none), the newest one's timestamp, and whether it holds a poll table. */
export async function pgSchemaVersion(
  client: PgClient,
): Promise<{ applied: number; lastWhen: number; hasPoll: boolean }> {
  const [state] = await pgRows<{ migrations: boolean; poll: boolean }>(
    client,
    "SELECT to_regclass('drizzle.__drizzle_migrations') IS NOT NULL AS migrations, to_regclass('poll') IS NOT NULL AS poll",
  );
  if (state?.migrations !== true) return { applied: 0, lastWhen: 0, hasPoll: state?.poll === true };
  const [row] = await pgRows<{ n: string; last: string }>(
    client,
    'SELECT count(*)::text AS n, coalesce(max(created_at), 0)::text AS last FROM drizzle.__drizzle_migrations',
  );
  return { applied: Number(row?.n ?? 0), lastWhen: Number(row?.last ?? 0), hasPoll: state.poll };
}

/** Throws when a database's schema is newer than `folder`'s (read-only opens call it too). */
export async function checkPgVersion(
  client: PgClient,
  folder: string = pgMigrationsFolder(),
  label = 'PostgreSQL database',
): Promise<{ applied: number; supported: number }> {
  const found = await pgSchemaVersion(client);
  const { supported, lastWhen } = pgJournalVersion(folder);
  if (found.applied > supported || found.lastWhen > lastWhen) {
    throw new DatabaseVersionError(
      label,
      found.applied,
      supported,
      `history database ${label} was written by a newer flightrec (schema version ${found.applied}, this flightrec supports up to ${supported}); ` +
        'upgrade flightrec to read it. The database was not modified.',
    );
  }
  if (found.applied === 0 && found.hasPoll) {
    throw new DatabaseOpenError(
      label,
      'it holds a table named poll but no flightrec migrations: not a flightrec history (left untouched)',
    );
  }
  return { applied: found.applied, supported };
}

async function applyMigrations(client: PgClient, folder: string): Promise<void> {
  if ('waitReady' in client) {
    const [{ drizzle }, { migrate }] = await Promise.all([
      import('drizzle-orm/pglite'),
      import('drizzle-orm/pglite/migrator'),
    ]);
    await migrate(drizzle(client), { migrationsFolder: folder });
  } else {
    const [{ drizzle }, { migrate }] = await Promise.all([
      import('drizzle-orm/node-postgres'),
      import('drizzle-orm/node-postgres/migrator'),
    ]);
    await migrate(drizzle(client as pg.PoolClient), { migrationsFolder: folder });
  }
}

/**
 * Brings a database to this flightrec's schema (a no-op when it is there), under a session
 * advisory lock; refuses a newer one untouched; makes the next days' partitions ready.
 * Returns the migrations applied now and the schema version.
 */
export async function migratePostgres(
  client: PgClient,
  folder: string = pgMigrationsFolder(),
  label = 'PostgreSQL database',
): Promise<{ applied: number; version: number }> {
  await pgRows(client, 'SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
  try {
    const before = await checkPgVersion(client, folder, label);
    if (before.applied < before.supported) await applyMigrations(client, folder);
    await pgRows(client, 'SELECT flightrec_ensure_partitions($1)', [DAYS_AHEAD]);
    return { applied: before.supported - before.applied, version: before.supported };
  } finally {
    await pgRows(client, 'SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
  }
}
