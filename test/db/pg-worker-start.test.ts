/**
 * A PostgreSQL bridge worker that cannot start (a damaged or incomplete installation) is a
 * message at once, not a two-minute wait: the calling thread sleeps until a reply comes, and the
 * worker's bootstrap answers with the failure (src/db/engines/pg/worker-source.ts). No server is needed:
 * the worker fails before it connects.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { openDatabase } from '../../src/db/index.ts';
import { TEST_WORKERS_ENV } from '../../src/threads/worker-entry.ts';
import { memoryIo } from '../helpers/memory-io.ts';

const dir = mkdtempSync(join(tmpdir(), 'flightrec-broken-worker-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A pg-worker.js that throws as it loads, as the worker of this test's opens. */
function brokenWorker(): void {
  writeFileSync(join(dir, 'pg-worker.js'), "throw new Error('the bundle is damaged');\n");
  // restored after the test (vitest.config.ts: unstubEnvs)
  vi.stubEnv(TEST_WORKERS_ENV, dir);
}

const URL = 'postgres://flightrec@127.0.0.1:9/history';

it('opening the store says the worker did not start, and why, within seconds', () => {
  brokenWorker();
  const started = performance.now();
  expect(() => openDatabase(URL, { readonly: true })).toThrow(
    /cannot open history database .*the PostgreSQL worker did not start: the bundle is damaged/,
  );
  expect(performance.now() - started).toBeLessThan(20_000);
});

it('a command on it exits 1 with that message and no stack trace', async () => {
  brokenWorker();
  const io = memoryIo();
  const code = await main(['--db', URL, 'query', 'polls'], io);
  expect(code).toBe(1);
  expect(io.err()).toMatch(/^flightrec: .*the PostgreSQL worker did not start: the bundle is damaged/m);
  expect(io.err()).not.toMatch(/\n\s+at /);
});
