/**
 * A PostgreSQL bridge worker that stops after it started is a message within seconds, never the
 * request's two-minute timeout: the calling thread sleeps until a reply comes and cannot see the
 * worker's events, so the worker's bootstrap posts its last word as it exits, and a worker that
 * runs no code at all any more (out of memory) is given up after a silence
 * (src/db/engines/pg/worker-source.ts, sync-database.ts). The first tests need no server: their workers
 * stop before they connect. The last shows that a worker waiting on a slow server is not taken
 * for dead (it needs one).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { openDatabase } from '../../src/db/index.ts';
import { pgPoolConfigData } from '../../src/db/engines/pg/pool-config.ts';
import { parseDbTarget, type PostgresTarget } from '../../src/db/engines/pg/target.ts';
import { PgSyncDatabase } from '../../src/db/engines/pg/sync-database.ts';
import { TEST_WORKERS_ENV } from '../../src/threads/worker-entry.ts';
import { memoryIo } from '../helpers/memory-io.ts';
import { describeWithServer, freshPgTarget } from '../helpers/pg.ts';

const dir = mkdtempSync(join(tmpdir(), 'flightrec-stopping-worker-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts this test's opens with a pg-worker.js that loads, then does `body` 100 ms later (and never answers). */
function workerThat(body: string): void {
  writeFileSync(join(dir, 'pg-worker.js'), `setTimeout(() => { ${body} }, 100);\n`);
  // restored after the test (vitest.config.ts: unstubEnvs)
  vi.stubEnv(TEST_WORKERS_ENV, dir);
}

const URL = 'postgres://flightrec:s3cret@127.0.0.1:9/history';

/** A bridge handle of its own (not an open store), giving up after `silentMs` of silence. */
function handle(silentMs: number, url = URL): PgSyncDatabase {
  const target = parseDbTarget(url) as PostgresTarget;
  return new PgSyncDatabase({ engine: { kind: 'pg', config: pgPoolConfigData(target) }, silentMs });
}

it('a worker that throws is a message naming why, at once', () => {
  workerThat("throw new Error('the worker lost its mind')");
  const started = performance.now();
  expect(() => openDatabase(URL, { readonly: true })).toThrow(
    /cannot open history database .*the PostgreSQL worker stopped: the worker lost its mind/,
  );
  expect(performance.now() - started).toBeLessThan(20_000);
});

it('a worker whose promise is rejected, or that exits, says so too; the handle is closed after it', () => {
  workerThat("Promise.reject(new Error('nobody caught this'))");
  const db = handle(60_000);
  expect(() => db.prepare('SELECT 1').get()).toThrow(/the PostgreSQL worker stopped: nobody caught this/);
  expect(() => db.prepare('SELECT 1').get()).toThrow(/closed/);
  db.close();
  workerThat('process.exit(3)');
  const other = handle(60_000);
  expect(() => other.prepare('SELECT 1').get()).toThrow(/the PostgreSQL worker stopped: it exited with code 3/);
  other.close();
});

it('a worker that runs no code any more (as out of memory) is given up after its silence', () => {
  workerThat('for (;;) {}');
  const db = handle(1_000);
  const started = performance.now();
  expect(() => db.prepare('SELECT 1').get()).toThrow(/the PostgreSQL worker stopped: no sign of life for 1 s/);
  const took = performance.now() - started;
  expect(took).toBeGreaterThanOrEqual(900);
  expect(took).toBeLessThan(20_000);
  db.close();
});

it('a command on a store whose worker stops exits 1 with that line, no stack trace and no password', async () => {
  workerThat("throw new Error('gone')");
  const io = memoryIo();
  const code = await main(['--db', URL, 'query', 'polls'], io);
  expect(code).toBe(1);
  expect(io.err()).toMatch(/^flightrec: .*the PostgreSQL worker stopped: gone/m);
  expect(io.err()).not.toMatch(/\n\s+at /);
  expect(io.err()).not.toContain('s3cret');
});

describeWithServer('a live worker', () => {
  it('waiting on a slow server is not taken for dead', async () => {
    const target = await freshPgTarget();
    const db = handle(1_000, target.target);
    try {
      expect(db.prepare('SELECT 7 AS n FROM pg_sleep(2.5)').pluck().get()).toBe(7);
      expect(db.prepare('SELECT 8').pluck().get()).toBe(8);
    } finally {
      db.close();
      await target.drop();
    }
  });
});
