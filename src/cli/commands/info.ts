/** `flightrec info`: where things are and which versions run, never a secret. */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { DEFAULT_SERVICE_PREFIX } from '../../api/schema/operations.ts';
import type { CliIo } from '../context.ts';
import { globalOptionsHelp } from './help.ts';
import { VERSION } from '../version.ts';

/** The directory holding flightrec's package.json (from source or from the dist bundle). */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

function packageVersion(name: string): string {
  const file = join(packageRoot(), 'node_modules', name, 'package.json');
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  } catch {
    return 'not installed';
  }
}

/** The facts `info` prints, as data. */
export function collectInfo(opts: { db: string; config?: string; servicePrefix?: string }, io: CliIo): Record<string, string> {
  return {
    flightrec: VERSION,
    node: process.versions.node,
    database: resolve(io.cwd, opts.db),
    config: opts.config ? resolve(io.cwd, opts.config) : '(none: defaults, environment and flags)',
    servicePrefix: opts.servicePrefix ?? DEFAULT_SERVICE_PREFIX,
    'better-sqlite3': packageVersion('better-sqlite3'),
    'drizzle-orm': packageVersion('drizzle-orm'),
    undici: packageVersion('undici'),
    'node-cron': packageVersion('node-cron'),
    ink: packageVersion('ink'),
    react: packageVersion('react'),
  };
}

/** Registers `info`. */
export function registerInfo(program: Command, io: CliIo, done: (code: number) => void): void {
  program
    .command('info')
    .description('show the paths of config and database, versions, and the service prefix in use')
    .addHelpText('after', globalOptionsHelp({ db: 'the database path to show', config: 'the config path to show', output: ['text', 'json'] }))
    .action((_opts: unknown, cmd: Command) => {
      const g = cmd.optsWithGlobals<{ db: string; config?: string; output?: string }>();
      const info = collectInfo({ db: g.db, config: g.config }, io);
      if (g.output === 'json') {
        io.stdout.write(`${JSON.stringify(info, null, 2)}\n`);
      } else {
        const width = Math.max(...Object.keys(info).map((k) => k.length));
        for (const [k, v] of Object.entries(info)) io.stdout.write(`${k.padEnd(width)}  ${v}\n`);
      }
      done(0);
    });
}
