/**
 * PostgreSQL for the tests. The run's global setup (test/global-setup.ts, test/helpers/pg-probe.ts)
 * chooses the server: `FLIGHTREC_TEST_PG` when set (a URL, or `pglite`), else a local server on
 * 127.0.0.1:5432 when one answers, and sets the variable for the test files. Each test database is
 * a fresh `flightrec_t_<random>` on it, dropped after the file's tests (passed or failed). Without
 * a server the tests run on PGlite (PostgreSQL in WebAssembly, hosted in-process by the engine);
 * the tests that need several connections at once (concurrent collectors, standby take-over) are
 * skipped, with the reason printed.
 */
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { beforeAll, describe, inject, vi } from 'vitest';
import { openDatabase } from '../../src/db/index.ts';
import { onFileEnd } from './cleanup.ts';
import { PG_RUN_KEY, pgliteTemplateDirOf, serverTemplateNameOf } from './pg-run.ts';
import { LOCAL_PG, TEST_PG_ENV } from './pg-probe.ts';

export { TEST_PG_ENV } from './pg-probe.ts';

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
      reason: `no PostgreSQL server answered on ${LOCAL_PG.host}:${LOCAL_PG.port} and ${TEST_PG_ENV} is not set (set it to a server URL such as postgres://postgres@127.0.0.1:5432/postgres)`,
    };
  if (url.toLowerCase() === 'pglite') return { reason: `${TEST_PG_ENV}=pglite` };
  if (!/^postgres(ql)?:\/\//.test(url)) return { reason: `${TEST_PG_ENV} is neither a postgres:// URL nor pglite` };
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
onFileEnd(async () => {
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
 * (a copy of a database migrated once per test run): for tests of recording, not of migrating.
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
    const template = opts.migrated === true ? await serverTemplate() : undefined;
    return serverTarget(url, (id) =>
      template === undefined ? onServer(url, (c) => c.query(`CREATE DATABASE ${id}`)) : copyOf(url, template, id),
    );
  }
  pending.add(target);
  return target;
}

/** A new `flightrec_t_` database on the server at `url`, made by `make`, dropped after the file's tests. */
async function serverTarget(url: string, make: (quotedName: string) => Promise<unknown>): Promise<PgTarget> {
  const name = `${TEST_DB_PREFIX}${randomBytes(6).toString('hex')}`;
  await make(quoted(name));
  let dropped = false;
  const target: PgTarget = {
    target: databaseUrl(url, name),
    kind: 'postgres',
    drop: async () => {
      if (dropped) return;
      dropped = true;
      pending.delete(target);
      await dropTestDatabase(url, name);
    },
  };
  pending.add(target);
  return target;
}

/**
 * A copy of the server database `source` (every row, partition and sequence; its connections
 * must be closed), a new `flightrec_t_` one dropped after the file's tests like the others:
 * for tests that need the same recording twice without recording it twice.
 */
export async function copyOfPgTarget(source: PgTarget): Promise<PgTarget> {
  const { url } = pgAvailable();
  if (url === undefined || source.kind !== 'postgres') throw new Error('copyOfPgTarget needs a PostgreSQL server');
  return serverTarget(url, (id) => copyOf(url, new URL(source.target).pathname.slice(1), id));
}

/**
 * Migrated templates: a fresh database that the store has opened for writing (migrations applied,
 * partitions made), copied for every `migrated` target. Migrating takes seconds (tens of seconds
 * on PGlite); a copy takes a fraction of one. Under `vitest` (test/global-setup.ts provides a
 * token per run) one template serves every file of the run: the first worker that needs it makes
 * it, under a lock, and the run's teardown removes it. Elsewhere, one per file.
 */
let serverTemplateName: Promise<string> | undefined;
let pgliteTemplateDir: Promise<string> | undefined;

function migrateOnce(target: string): void {
  openDatabase(target).close();
}

function runToken(): string | undefined {
  try {
    return inject(PG_RUN_KEY);
  } catch {
    return undefined; // not in a vitest worker
  }
}

function serverTemplate(): Promise<string> {
  serverTemplateName ??= (async () => {
    const { url } = pgAvailable();
    const token = runToken();
    if (url !== undefined && token !== undefined) return sharedServerTemplate(url, token);
    const t = await freshPgTarget();
    migrateOnce(t.target);
    return new URL(t.target).pathname.slice(1);
  })();
  return serverTemplateName;
}

/**
 * The run's template on the server: made under an advisory lock named after it (so parallel
 * workers wait for the first, and other runs on the same server are not held up), migrated
 * under a temporary name and renamed when complete, so a worker that died half-way leaves
 * nothing another would take for a template.
 */
async function sharedServerTemplate(url: string, token: string): Promise<string> {
  const name = serverTemplateNameOf(token);
  const building = `${name}_new`;
  await onServer(url, async (c) => {
    await c.query('SELECT pg_advisory_lock(hashtext($1))', [name]);
    try {
      const exists = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (exists.rowCount === 1) return;
      await c.query(`DROP DATABASE IF EXISTS ${quoted(building)} WITH (FORCE)`);
      await c.query(`CREATE DATABASE ${quoted(building)}`);
      migrateOnce(databaseUrl(url, building));
      await whileAccessed(() => c.query(`ALTER DATABASE ${quoted(building)} RENAME TO ${quoted(name)}`));
    } finally {
      await c.query('SELECT pg_advisory_unlock(hashtext($1))', [name]);
    }
  });
  return name;
}

function pgliteTemplate(): Promise<string> {
  pgliteTemplateDir ??= (async () => {
    const token = runToken();
    if (token !== undefined) return sharedPgliteTemplate(token);
    const t = await freshPgTarget({ persistent: true });
    migrateOnce(t.target);
    return t.target.slice('pglite://'.length);
  })();
  return pgliteTemplateDir;
}

/**
 * The run's PGlite template directory: the worker that makes the lock directory first migrates
 * a PGlite database in a directory of its own and renames it into place; the others wait for it.
 */
async function sharedPgliteTemplate(token: string): Promise<string> {
  const dir = pgliteTemplateDirOf(token);
  const lock = `${dir}.lock`;
  const deadline = Date.now() + PREPARE_TIMEOUT_MS;
  for (;;) {
    if (existsSync(dir)) return dir;
    try {
      mkdirSync(lock);
    } catch {
      // another worker is migrating it
      if (Date.now() > deadline) throw new Error(`gave up waiting for ${dir} to be migrated by another test worker`);
      await new Promise((r) => setTimeout(r, 200));
      continue;
    }
    try {
      if (existsSync(dir)) return dir;
      const building = mkdtempSync(`${dir}.new-`);
      try {
        migrateOnce(`pglite://${building}`);
        renameSync(building, dir);
      } finally {
        rmSync(building, { recursive: true, force: true });
      }
      return dir;
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

/** Runs `fn` again while it fails because the database is still accessed (a closed connection not yet gone). */
async function whileAccessed<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      // 55006: the database is being accessed by other users
      if ((err as { code?: string }).code !== '55006' || attempt >= 50) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** CREATE DATABASE id TEMPLATE template, waiting for the template's last connection to go. */
async function copyOf(url: string, template: string, id: string): Promise<void> {
  const source = quoted(template);
  await whileAccessed(() => onServer(url, (c) => c.query(`CREATE DATABASE ${id} TEMPLATE ${source}`)));
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
onFileEnd(() => {
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
export function forEachEngine(
  title: string,
  fn: (engine: EngineUnderTest) => void,
  opts: { readonly onPglite?: boolean } = {},
): void {
  // PGlite starts a PostgreSQL in WebAssembly at every open (seconds each on a busy machine):
  // the same tests, with more time; a file that opens the database many times runs on a server only
  const pglite = ENGINES.some((e) => e.name === 'pglite');
  if (pglite && opts.onPglite !== false) vi.setConfig({ testTimeout: PGLITE_TEST_TIMEOUT_MS });
  for (const engine of ENGINES) {
    if (engine.name === 'pglite' && opts.onPglite === false) {
      describe.skip(`${title} (pglite) [skipped: it opens the database too often for PGlite (seconds per open); it runs on a PostgreSQL server: set ${TEST_PG_ENV}]`, () =>
        undefined);
      continue;
    }
    describe(`${title} (${engine.name})`, () => {
      beforeAll(() => engine.prepare(), PREPARE_TIMEOUT_MS);
      fn(engine);
    });
  }
}
