/**
 * What the PostgreSQL test helper shares across the test files of one `vitest` run: the name of
 * the migrated template (on the server) and of its PGlite twin (a directory), both made by the
 * first file that needs them and removed by the run's global teardown (test/global-setup.ts).
 */
import { join } from 'node:path';
import { tmpdir } from 'node:os';

/** The key under which the global setup provides this run's token (see `inject`). */
export const PG_RUN_KEY = 'flightrecPgRun';

/** The migrated template database of the run `token` on the server. */
export function serverTemplateNameOf(token: string): string {
  return `flightrec_t_tpl_${token}`;
}

/** The migrated PGlite template directory of the run `token`. */
export function pgliteTemplateDirOf(token: string): string {
  return join(tmpdir(), `flightrec-pglite-tpl-${token}`);
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** this run's token: names the shared migrated templates */
    [PG_RUN_KEY]: string;
  }
}
