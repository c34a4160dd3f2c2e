/**
 * A server's bridge worker whose handle closed cleanly serves the next handle of a server in the
 * thread (src/db/engines/pg/sync-database.ts, `keep`): the thread and its modules are reused,
 * never the connection (the next handle connects anew, with its own settings, and sees nothing of
 * the last one's session). Two handles open at once have a worker each; a kept worker that
 * stopped meanwhile is not used.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { pgPoolConfigData } from '../../src/db/engines/pg/pool-config.ts';
import { PgSyncDatabase } from '../../src/db/engines/pg/sync-database.ts';
import { parseDbTarget, type PostgresTarget } from '../../src/db/engines/pg/target.ts';
import { TEST_WORKERS_ENV } from '../../src/threads/worker-entry.ts';
import { describeWithServer, freshPgTarget, type PgTarget } from '../helpers/pg.ts';
import { tempDir } from '../fixtures/timeline/run-cli.ts';

let target: PgTarget | undefined;
const tmp = tempDir();

/** A bridge handle of its own on the test database, with `application_name` as the engine's only difference. */
function handle(applicationName = 'flightrec-kept'): PgSyncDatabase {
  const t = parseDbTarget(target!.target) as PostgresTarget;
  return new PgSyncDatabase({
    engine: { kind: 'pg', config: { ...pgPoolConfigData(t), application_name: applicationName } },
  });
}

describeWithServer('a kept bridge worker', () => {
  beforeAll(async () => {
    target = await freshPgTarget();
  });
  afterAll(async () => {
    await target?.drop();
    tmp.remove();
  });

  it('serves the next handle of the same engine, through a new connection', () => {
    const first = handle();
    first.prepare("SELECT set_config('flightrec.kept', 'yes', false)").get();
    const pid = first.prepare('SELECT pg_backend_pid()').pluck().get();
    const thread = first.workerThreadId;
    first.close();
    const next = handle();
    try {
      expect(next.workerThreadId).toBe(thread);
      expect(next.prepare('SELECT pg_backend_pid()').pluck().get()).not.toBe(pid);
      expect(next.prepare("SELECT current_setting('flightrec.kept', true)").pluck().get()).toBeNull();
      // the closed handle cannot reach the worker any more
      expect(() => first.prepare('SELECT 1').get()).toThrow(/closed/);
    } finally {
      next.close();
    }
  });

  it("serves a handle of another engine with that engine's settings; two handles open at once have a worker each", () => {
    const first = handle();
    const thread = first.workerThreadId;
    first.close();
    const other = handle('flightrec-other');
    const third = handle();
    try {
      expect(other.workerThreadId).toBe(thread);
      expect(third.workerThreadId).not.toBe(thread);
      expect(other.prepare("SELECT current_setting('application_name')").pluck().get()).toBe('flightrec-other');
      expect(third.prepare("SELECT current_setting('application_name')").pluck().get()).toBe('flightrec-kept');
    } finally {
      other.close();
      third.close();
    }
  });

  it('is not used once it stopped', async () => {
    const bundled = process.env[TEST_WORKERS_ENV];
    if (bundled === undefined || bundled === '') return;
    // the run's worker, which exits 50 ms after it answered a close
    const real = pathToFileURL(join(bundled, 'pg-worker.js')).href;
    writeFileSync(
      tmp.path('pg-worker.js'),
      `import { workerData } from 'node:worker_threads';
await import(${JSON.stringify(real)});
workerData.port.on('message', (m) => { if (m.kind === 'close') setTimeout(() => process.exit(0), 50); });
`,
    );
    vi.stubEnv(TEST_WORKERS_ENV, tmp.dir);
    const first = handle();
    expect(first.prepare('SELECT 1').pluck().get()).toBe(1);
    const thread = first.workerThreadId;
    first.close();
    await new Promise((r) => setTimeout(r, 500));
    const next = handle();
    try {
      expect(next.workerThreadId).not.toBe(thread);
      expect(next.prepare('SELECT 3').pluck().get()).toBe(3);
    } finally {
      next.close();
    }
  });
});
