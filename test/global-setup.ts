/**
 * Once per `vitest` run, in the main process: the PostgreSQL the tests of the PostgreSQL engine
 * use (test/helpers/pg-probe.ts: FLIGHTREC_TEST_PG, else a local server found on 127.0.0.1:5432,
 * else PGlite), said in one line; a token naming the run's shared migrated
 * PostgreSQL templates (test/helpers/pg.ts makes them on first use, under a lock, so parallel
 * workers migrate once), and their removal when the run ends, passed or failed; and the worker
 * threads bundled from the sources as `npm run build` bundles them (src/threads/worker-entry.ts starts
 * these instead of compiling each worker's modules through tsx at every start).
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { build } from 'esbuild';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { TEST_WORKERS_ENV } from '../src/threads/worker-entry.ts';
import { PG_RUN_KEY, pgliteTemplateDirOf, serverTemplateNameOf } from './helpers/pg-run.ts';
import { sharedRecordingsDirOf } from './helpers/recording-run.ts';
import { choosePg, TEST_PG_ENV } from './helpers/pg-probe.ts';
// @ts-expect-error: a plain ES module of the build, without type declarations
import { WORKER_ENTRIES, bundleOptions } from '../scripts/bundle-options.mjs';

/** Bundles the worker threads into a folder of this run (inside the project, so that their packages resolve). */
async function bundleWorkers(token: string): Promise<string> {
  const root = new URL('../', import.meta.url);
  const outdir = new URL(`node_modules/.cache/flightrec-test-workers/${token}/`, root).pathname;
  await build(bundleOptions({ root, entryPoints: WORKER_ENTRIES, outdir, sourcemap: 'inline' }));
  return outdir;
}

/** What the global setups of one run share: vitest runs one per project (vitest.config.ts), in this process. */
interface Run {
  readonly token: string;
  readonly workers: string;
  /** the projects whose teardown has not run yet: the last one removes what the run made */
  users: number;
}

const RUN = Symbol.for('flightrec.test.run');
const shared = globalThis as { [RUN]?: Promise<Run> };

/** Makes the run's token and workers, once, and chooses its PostgreSQL. */
async function startRun(): Promise<Run> {
  const token = randomBytes(6).toString('hex');
  const [workers, pgChoice] = await Promise.all([bundleWorkers(token), choosePg(process.env)]);
  // the test files' processes inherit it (test/helpers/pg.ts reads it there)
  if (pgChoice.url !== undefined) process.env[TEST_PG_ENV] = pgChoice.url;
  console.log(pgChoice.line);
  // the test files' processes inherit it (they start after the global setup)
  process.env[TEST_WORKERS_ENV] = workers;
  return { token, workers, users: 0 };
}

/** Removes the run's workers, and the templates and shared recordings made under its token. */
async function endRun({ token, workers }: Run): Promise<void> {
  rmSync(workers, { recursive: true, force: true });
  rmSync(pgliteTemplateDirOf(token), { recursive: true, force: true });
  rmSync(sharedRecordingsDirOf(token), { recursive: true, force: true });
  const url = process.env[TEST_PG_ENV]?.trim();
  if (url === undefined || !/^postgres(ql)?:\/\//.test(url)) return;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    const name = serverTemplateNameOf(token);
    for (const db of [name, `${name}_new`]) await client.query(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/** Provides the run token to the project's files; returns the teardown, which the last project's ends the run. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const run = await (shared[RUN] ??= startRun());
  run.users++;
  project.provide(PG_RUN_KEY, run.token);
  return async () => {
    if (--run.users > 0) return;
    delete shared[RUN];
    await endRun(run);
  };
}
