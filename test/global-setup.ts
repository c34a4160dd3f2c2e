/**
 * Once per `vitest` run, in the main process: a token naming the run's shared migrated
 * PostgreSQL templates (test/helpers/pg.ts makes them on first use, under a lock, so parallel
 * workers migrate once), and their removal when the run ends, passed or failed.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { PG_RUN_KEY, pgliteTemplateDirOf, serverTemplateNameOf } from './helpers/pg-run.ts';

/** Provides the run token; returns the teardown that drops what was made with it. */
export default function setup(project: TestProject): () => Promise<void> {
  const token = randomBytes(6).toString('hex');
  project.provide(PG_RUN_KEY, token);
  return async () => {
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
