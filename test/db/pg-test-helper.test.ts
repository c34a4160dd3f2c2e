/**
 * The tests' PostgreSQL helper: a fresh database per call on the configured server, dropped
 * afterwards, and never a database other than a `flightrec_t_` one touched.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/index.ts';
import {
  databaseUrl,
  describeWithServer,
  dropTestDatabase,
  freshPgTarget,
  pgAvailable,
  TEST_DB_PREFIX,
} from '../helpers/pg.ts';

async function databaseExists(serverUrl: string, name: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const r = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    return r.rowCount === 1;
  } finally {
    await client.end();
  }
}

describe('the test databases', () => {
  it('refuses to drop a database that is not a test database', async () => {
    for (const name of ['postgres', 'test', 'root', 'flightrec_t_"x', 'flightrec_t_', 'flightrec_T_AB'])
      await expect(dropTestDatabase('postgres://127.0.0.1:1/postgres', name)).rejects.toThrow(/not a test database/);
  });

  it('puts the database name in the server URL, keeping user, host, port and query', () => {
    expect(databaseUrl('postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable', 'flightrec_t_ab')).toBe(
      'postgres://postgres@127.0.0.1:5432/flightrec_t_ab?sslmode=disable',
    );
  });

  it('gives PGlite targets without a server, on PostgreSQL with one', async () => {
    const t = await freshPgTarget();
    expect(t.target).toMatch(pgAvailable().url === undefined ? /^pglite:\/\// : /^postgres(ql)?:\/\//);
    await t.drop();
  });
});

describeWithServer('fresh databases on the server', () => {
  it('creates flightrec_t_<random>, a new one each time, and drops it', async () => {
    const server = pgAvailable().url!;
    const a = await freshPgTarget();
    const b = await freshPgTarget();
    const nameOf = (url: string): string => new URL(url).pathname.slice(1);
    expect(nameOf(a.target)).toMatch(new RegExp(`^${TEST_DB_PREFIX}[0-9a-f]{12}$`));
    expect(nameOf(a.target)).not.toBe(nameOf(b.target));
    expect(await databaseExists(server, nameOf(a.target))).toBe(true);
    // a connection left open on it does not keep it alive
    const open = new pg.Client({ connectionString: a.target });
    open.on('error', () => {});
    await open.connect();
    await a.drop();
    await a.drop();
    expect(await databaseExists(server, nameOf(a.target))).toBe(false);
    expect(await databaseExists(server, nameOf(b.target))).toBe(true);
    await open.end().catch(() => {});
    // b is left to the helper's afterAll
  });

  it('gives migrated databases as copies of one migrated once: each opens read-only, each its own', async () => {
    const server = pgAvailable().url!;
    const a = await freshPgTarget({ migrated: true });
    const b = await freshPgTarget({ migrated: true });
    expect(a.target).not.toBe(b.target);
    for (const t of [a, b]) openDatabase(t.target, { readonly: true }).close();
    await a.drop();
    expect(await databaseExists(server, new URL(a.target).pathname.slice(1))).toBe(false);
    openDatabase(b.target, { readonly: true }).close();
  }, 60_000);
});
