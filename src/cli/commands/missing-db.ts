/** The message for a history database that does not exist: the path tried and the next step. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { isDbUrl } from '../../db/engines/registry.ts';
import { RuntimeError } from '../context.ts';
import { DEMO_DB } from './demo-constants.ts';
import { shellWord } from '../shell-word.ts';

/**
 * What to say when `path` (resolved; `given` as typed) holds no database: how to record one, and
 * the demo's recording when there is one in `cwd`. The commands say `flightrec`; main rewrites
 * them for the way flightrec was started (src/cli/launcher.ts).
 */
export function missingDatabaseMessage(path: string, given: string, cwd: string): string {
  const lines = [`no history database at ${path}`];
  if (existsSync(join(cwd, DEMO_DB)) && path !== join(cwd, DEMO_DB))
    lines.push(`a demo recording is here: add --db ${DEMO_DB} (e.g. flightrec --db ${DEMO_DB} timeline)`);
  const db = given === './flightrec.db' ? '' : ` --db ${shellWord(given)}`;
  lines.push(
    `to record one: flightrec${db} collect --base-url URL (or --config FILE), or run flightrec demo for a simulated recording`,
  );
  lines.push('(another database: --db FILE, --db postgres://USER@HOST:PORT/DATABASE, or FLIGHTREC_DB)');
  return lines.join('\n');
}

/** Throws (exit 1) when there is no file at `path`, with the next step (a server URL is checked by opening it). */
export function requireDatabase(path: string, given: string, cwd: string): void {
  if (isDbUrl(given)) return;
  if (!existsSync(path)) throw new RuntimeError(missingDatabaseMessage(path, given, cwd));
}
