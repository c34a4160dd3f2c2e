/**
 * Once per `vitest` run, in the main process: a token naming the run's shared migrated
 * PostgreSQL templates (test/helpers/pg.ts makes them on first use, under a lock, so parallel
 * workers migrate once), and their removal when the run ends, passed or failed; and the worker
 * threads bundled from the sources as `npm run build` bundles them (src/db/worker-entry.ts starts
 * these instead of compiling each worker's modules through tsx at every start).
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { build } from 'esbuild';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { TEST_WORKERS_ENV } from '../src/db/worker-entry.ts';
import { PG_RUN_KEY, pgliteTemplateDirOf, serverTemplateNameOf } from './helpers/pg-run.ts';
// @ts-expect-error: a plain ES module of the build, without type declarations
import { WORKER_ENTRIES, bundleOptions } from '../scripts/bundle-options.mjs';

/** Bundles the worker threads into a folder of this run (inside the project, so that their packages resolve). */
async function bundleWorkers(token: string): Promise<string> {
  const root = new URL('../', import.meta.url);
  const outdir = new URL(`node_modules/.cache/flightrec-test-workers/${token}/`, root).pathname;
  await build(bundleOptions({ root, entryPoints: WORKER_ENTRIES, outdir, sourcemap: 'inline' }));
  return outdir;
}

/** Provides the run token and the bundled workers; returns the teardown that drops what was made with them. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const token = randomBytes(6).toString('hex');
  project.provide(PG_RUN_KEY, token);
  // the test files' processes inherit it (they start after the global setup)
  const workers = await bundleWorkers(token);
  process.env[TEST_WORKERS_ENV] = workers;
  return async () => {
    rmSync(workers, { recursive: true, force: true });
    rmSync(pgliteTemplateDirOf(token), { recursive: true, force: true });
    const url = process.env['FLIGHTREC_TEST_PG']?.trim();
    if (url === undefined || !/^postgres(ql)?:\/\//.test(url)) return;
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
    await client.connect();
    try {
      const name = serverTemplateNameOf(token);
      for (const db of [name, `${name}_new`]) await client.query(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`);
    } finally {
      await client.end();
    }
  };
}
