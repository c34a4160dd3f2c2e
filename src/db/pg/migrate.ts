/**
 * PostgreSQL migrations: the committed drizzle-kit migrations of `drizzle/pg`, applied under a
 * session advisory lock so that collectors starting together never race, after a version check
 * that refuses (and never touches) a database migrated by a newer flightrec.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import type { PoolClient } from 'pg';

/** The lock key of migrations (any constant shared by every flightrec). */
const MIGRATION_LOCK = 7_262_917_301;

/** A connection migrations run on. */
export type MigrationClient = (
  { readonly kind: 'pg'; readonly client: PoolClient } | { readonly kind: 'pglite'; readonly client: PGlite }
) & {
  query(sql: string, params?: readonly unknown[]): Promise<Record<string, unknown>[]>;
};

/** Thrown when the database was migrated by a newer flightrec (nothing was changed). */
export class PgSchemaTooNewError extends Error {
  override readonly name = 'PgSchemaTooNewError';
}

interface Journal {
  readonly entries: readonly { readonly when: number; readonly tag: string }[];
}

async function applied(c: MigrationClient): Promise<{ count: number; last: number }> {
  const exists = await c.query(`SELECT to_regclass('drizzle.__drizzle_migrations') IS NOT NULL AS present`);
  if (exists[0]?.['present'] !== true) return { count: 0, last: 0 };
  const rows = await c.query(
    'SELECT count(*)::int AS n, coalesce(max(created_at), 0)::text AS last FROM drizzle.__drizzle_migrations',
  );
  return { count: Number(rows[0]?.['n'] ?? 0), last: Number(rows[0]?.['last'] ?? 0) };
}

async function runMigrator(c: MigrationClient, folder: string): Promise<void> {
  if (c.kind === 'pg') {
    const { drizzle } = await import('drizzle-orm/node-postgres');
    const { migrate } = await import('drizzle-orm/node-postgres/migrator');
    await migrate(drizzle(c.client), { migrationsFolder: folder });
  } else {
    const { drizzle } = await import('drizzle-orm/pglite');
    const { migrate } = await import('drizzle-orm/pglite/migrator');
    await migrate(drizzle(c.client), { migrationsFolder: folder });
  }
}

/**
 * Checks the schema version and (unless read-only) applies the missing migrations under the
 * migration lock. Returns how many migrations the database had and how many this flightrec has.
 */
export async function migratePostgres(
  c: MigrationClient,
  folder: string,
  readonly: boolean,
): Promise<{ applied: number; supported: number }> {
  const journal = JSON.parse(readFileSync(join(folder, 'meta', '_journal.json'), 'utf8')) as Journal;
  const supported = journal.entries.length;
  const ourLast = journal.entries.at(-1)?.when ?? 0;
  const check = async () => {
    const found = await applied(c);
    if (found.count > supported || found.last > ourLast) {
      throw new PgSchemaTooNewError(
        `written by a newer flightrec (schema version ${found.count}, this flightrec supports up to ${supported}); upgrade flightrec to read it. The database was not modified.`,
      );
    }
    return found;
  };
  if (readonly) return { applied: (await check()).count, supported };
  await c.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
  try {
    const found = await check();
    if (found.count < supported) await runMigrator(c, folder);
    await c.query('SELECT flightrec_ensure_partitions(2)').catch(() => undefined);
    return { applied: found.count, supported };
  } finally {
    await c.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
  }
}
