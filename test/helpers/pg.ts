/**
 * PostgreSQL for the tests. `FLIGHTREC_TEST_PG` names a server (for example
 * `postgres://postgres@127.0.0.1:5432/postgres`, what `.ci/run` sets); each test database is a
 * fresh `flightrec_t_<random>` on it, dropped after the file's tests (passed or failed). Without
 * the variable the tests run on PGlite (PostgreSQL in WebAssembly, hosted in-process by the
 * engine); the tests that need several connections at once (concurrent collectors, standby
 * take-over) are skipped, with the reason printed.
 */
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, vi } from 'vitest';
import { openDatabase } from '../../src/db/index.ts';

/** The environment variable naming the PostgreSQL server the tests may use. */
export const TEST_PG_ENV = 'FLIGHTREC_TEST_PG';

/** Only databases with this prefix are ever created or dropped by the tests. */
export const TEST_DB_PREFIX = 'flightrec_t_';
const TEST_DB_NAME = /^flightrec_t_[0-9a-z_]{1,40}$/;
/** Migrating the template: seconds on a server, up to a minute on PGlite on a busy machine. */
const PREPARE_TIMEOUT_MS = 180_000;
/** A test's time-out when its PostgreSQL runs on PGlite. */
const PGLITE_TEST_TIMEOUT_MS = 300_000;

/** The server the tests may use, or why there is none. */
export function pgAvailable(): { url?: string; reason?: string } {
  const url = process.env[TEST_PG_ENV]?.trim();
  if (url === undefined || url === '')
    return {
      reason: `${TEST_PG_ENV} is not set (run .ci/run, or set it to a server URL such as postgres://postgres@127.0.0.1:5432/postgres)`,
    };
  if (!/^postgres(ql)?:\/\//.test(url)) return { reason: `${TEST_PG_ENV} is not a postgres:// URL` };
  return { url };
}

/** A database made for one test (or one file), and how to remove it. */
export interface PgTarget {
  /** what `--db` and openDatabase take: a postgres:// URL, or a pglite:// target */
  readonly target: string;
  /** `postgres` on a real server, `pglite` in-process */
  readonly kind: 'postgres' | 'pglite';
  /** drops the database (or removes the PGlite directory); safe to call twice */
  drop(): Promise<void>;
}

const pending = new Set<PgTarget>();
afterAll(async () => {
  // every database this file made, even when its tests failed or forgot to drop it
  const all = [...pending];
  pending.clear();
  const failures: unknown[] = [];
  // together: a DROP DATABASE takes most of a second
  await Promise.all(all.map((t) => t.drop().catch((err: unknown) => failures.push(err))));
  if (failures.length > 0) throw new AggregateError(failures, 'dropping the test databases failed');
});

/** The URL of database `name` on the server `serverUrl` (same user, host, port and query). */
export function databaseUrl(serverUrl: string, name: string): string {
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

function quoted(name: string): string {
  if (!TEST_DB_NAME.test(name))
    throw new Error(`refusing to touch database ${JSON.stringify(name)}: not a test database`);
  return `"${name}"`;
}

async function onServer<T>(serverUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Drops a test database (only a `flightrec_t_` one), closing the connections still on it. */
export async function dropTestDatabase(serverUrl: string, name: string): Promise<void> {
  const id = quoted(name);
  await onServer(serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${id} WITH (FORCE)`));
}

/**
 * A fresh, empty PostgreSQL database: `flightrec_t_<random>` on the server of FLIGHTREC_TEST_PG,
 * or, without it, a PGlite target (`pglite://memory`, or a directory with `persistent`, which
 * survives a close and a reopen as a file does). With `migrated`, the schema is already there
 * (a copy of a database migrated once per test file): for tests of recording, not of migrating.
 * Dropped after the file's tests at the latest.
 */
export async function freshPgTarget(opts: { persistent?: boolean; migrated?: boolean } = {}): Promise<PgTarget> {
  const { url } = pgAvailable();
  let target: PgTarget;
  if (url === undefined) {
    if (opts.persistent !== true && opts.migrated !== true) {
      target = { target: 'pglite://memory', kind: 'pglite', drop: () => Promise.resolve() };
    } else {
      const dir = mkdtempSync(join(tmpdir(), 'flightrec-pglite-'));
      if (opts.migrated === true) cpSync(await pgliteTemplate(), dir, { recursive: true });
      target = {
        target: `pglite://${dir}`,
        kind: 'pglite',
        drop: () => {
          pending.delete(target);
          rmSync(dir, { recursive: true, force: true });
          return Promise.resolve();
        },
      };
    }
  } else {
    const name = `${TEST_DB_PREFIX}${randomBytes(6).toString('hex')}`;
    const id = quoted(name);
    if (opts.migrated === true) await copyOf(url, await serverTemplate(), id);
    else await onServer(url, (c) => c.query(`CREATE DATABASE ${id}`));
    let dropped = false;
    target = {
      target: databaseUrl(url, name),
      kind: 'postgres',
      drop: async () => {
        if (dropped) return;
        dropped = true;
        pending.delete(target);
        await dropTestDatabase(url, name);
      },
    };
  }
  pending.add(target);
  return target;
}

/**
 * Migrated templates, made once per test file: a fresh database that the store has opened for
 * writing (migrations applied, partitions made), copied for every `migrated` target. Migrating
 * takes seconds (tens of seconds on PGlite); a copy takes a fraction of one.
 */
let serverTemplateName: Promise<string> | undefined;
let pgliteTemplateDir: Promise<string> | undefined;

function migrateOnce(target: string): void {
  openDatabase(target).close();
}

function serverTemplate(): Promise<string> {
  serverTemplateName ??= (async () => {
    const t = await freshPgTarget();
    migrateOnce(t.target);
    return new URL(t.target).pathname.slice(1);
  })();
  return serverTemplateName;
}

function pgliteTemplate(): Promise<string> {
  pgliteTemplateDir ??= (async () => {
    const t = await freshPgTarget({ persistent: true });
    migrateOnce(t.target);
    return t.target.slice('pglite://'.length);
  })();
  return pgliteTemplateDir;
}

/** CREATE DATABASE id TEMPLATE template, waiting for the template's last connection to go. */
async function copyOf(url: string, template: string, id: string): Promise<void> {
  const source = quoted(template);
  for (let attempt = 0; ; attempt++) {
    try {
      await onServer(url, (c) => c.query(`CREATE DATABASE ${id} TEMPLATE ${source}`));
      return;
    } catch (err) {
      // 55006: the template is being accessed by other users (a closed connection not yet gone)
      if ((err as { code?: string }).code !== '55006' || attempt >= 50) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

const said = new Set<string>();

/**
 * For `describe.skipIf(needsServer('...'))`: true when no PostgreSQL server is configured, and
 * then says once on stderr which tests are skipped and why (vitest prints it with the file).
 */
export function needsServer(what: string): boolean {
  const { url, reason } = pgAvailable();
  if (url !== undefined) return false;
  const line = `skipped: ${what} needs a PostgreSQL server (several connections at once; PGlite has one): ${reason}`;
  if (!said.has(line)) {
    said.add(line);
    console.warn(line);
  }
  return true;
}

/** A describe block that runs only against a real server; otherwise skipped, the reason in its title and on stderr. */
export function describeWithServer(title: string, fn: () => void): void {
  const skip = needsServer(title);
  const reason = pgAvailable().reason ?? '';
  describe.skipIf(skip)(skip ? `${title} [skipped: needs a PostgreSQL server; ${reason}]` : title, fn);
}

/** The engines a store test runs on: SQLite (a file) and PostgreSQL (the server, or PGlite). */
export interface EngineUnderTest {
  /** `sqlite`, `postgres` (a real server) or `pglite` */
  readonly name: 'sqlite' | 'postgres' | 'pglite';
  /** A fresh, empty database target (a file path or a URL), removed after the file's tests. */
  target(): Promise<string>;
  /** Makes what target() copies (the migrated template), before the tests and outside their time-outs. */
  prepare(): Promise<void>;
  /**
   * How many runs of a property that opens a fresh database many times per run (a CLI command
   * each) to make on this engine, given the count on SQLite: an open on PostgreSQL starts a
   * worker thread and a connection (about a second here, several on PGlite), so fewer.
   */
  propertyRuns(onSqlite: number): number;
}

const suiteDirs: string[] = [];
afterAll(() => {
  for (const d of suiteDirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function sqliteEngine(): EngineUnderTest {
  return {
    name: 'sqlite',
    propertyRuns: (n) => n,
    prepare: () => Promise.resolve(),
    target: () => {
      const dir = mkdtempSync(join(tmpdir(), 'flightrec-db-'));
      suiteDirs.push(dir);
      return Promise.resolve(join(dir, 'history.db'));
    },
  };
}

function postgresEngine(): EngineUnderTest {
  const server = pgAvailable().url !== undefined;
  return {
    name: server ? 'postgres' : 'pglite',
    propertyRuns: (n) => Math.max(1, Math.ceil(n / (server ? 5 : 15))),
    prepare: async () => {
      if (server) await serverTemplate();
      else await pgliteTemplate();
    },
    target: async () => (await freshPgTarget({ persistent: true, migrated: true })).target,
  };
}

/** The engines every store test runs on. */
export const ENGINES: readonly EngineUnderTest[] = [sqliteEngine(), postgresEngine()];

/**
 * Runs the same tests on every engine: `describe(title + ' (engine)')` once per engine, `fn`
 * given the engine whose `target()` makes a fresh database. The tests stay written once.
 */
export function forEachEngine(title: string, fn: (engine: EngineUnderTest) => void): void {
  // PGlite starts a PostgreSQL in WebAssembly at every open (seconds each on a busy machine):
  // the same tests, with more time
  if (ENGINES.some((e) => e.name === 'pglite')) vi.setConfig({ testTimeout: PGLITE_TEST_TIMEOUT_MS });
  for (const engine of ENGINES)
    describe(`${title} (${engine.name})`, () => {
      beforeAll(() => engine.prepare(), PREPARE_TIMEOUT_MS);
      fn(engine);
    });
}
