/** `flightrec info`: where things are and which versions run, never a secret. */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { sanitizeCell } from '../../api/safe-text.ts';
import { DEFAULT_SERVICE_PREFIX } from '../../api/schema/operations.ts';
import type { CliIo } from '../context.ts';
import { describeInstallation, findPackageRoot } from '../installation.ts';
import { globalOptionsHelp } from './help.ts';
import { dbShown } from '../db-target.ts';
import { engineFor } from '../../db/engines/registry.ts';
import { VERSION } from '../version.ts';

/**
 * The version of dependency `name` that Node would load for flightrec: the first
 * node_modules/`name` upward from flightrec's package (nested in a global install, hoisted into
 * the project's node_modules in a local one).
 */
function packageVersion(root: string, name: string): string {
  for (let dir = root; ; dir = dirname(dir)) {
    try {
      return (JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')) as { version: string })
        .version;
    } catch {
      if (dirname(dir) === dir) return 'not installed';
    }
  }
}

/**
 * Where a PostgreSQL target's password would come from (never the password): the URL, a file,
 * PGPASSWORD or none. Nothing is read: `info` works without the secret.
 */
function databasePassword(opts: { db: string; dbPasswordFile?: string }, io: CliIo): Record<string, string> {
  // a malformed URL is an error here too (exit 2), named without the password
  const target = engineFor(opts.db).access(opts.db);
  if (target === undefined) return {};
  const file = opts.dbPasswordFile ?? io.env.FLIGHTREC_DB_PASSWORD_FILE;
  const source = target.passwordInUrl
    ? 'from the URL'
    : file !== undefined && file !== ''
      ? `from the file ${resolve(io.cwd, file)}`
      : io.env.PGPASSWORD !== undefined && io.env.PGPASSWORD !== ''
        ? 'from PGPASSWORD'
        : 'none (trust, peer or certificate authentication, or ~/.pgpass)';
  return { databasePassword: source, databaseTls: target.tls };
}

/** The facts `info` prints, as data. */
export function collectInfo(
  opts: { db: string; dbPasswordFile?: string; config?: string; servicePrefix?: string },
  io: CliIo,
): Record<string, string> {
  const root = findPackageRoot();
  const version = (name: string): string => packageVersion(root, name);
  return {
    flightrec: VERSION,
    installed: describeInstallation(root).description,
    package: root,
    node: process.versions.node,
    database: dbShown(opts.db, io.cwd),
    ...databasePassword(opts, io),
    config: opts.config ? resolve(io.cwd, opts.config) : '(none: defaults, environment and flags)',
    servicePrefix: opts.servicePrefix ?? DEFAULT_SERVICE_PREFIX,
    'better-sqlite3': version('better-sqlite3'),
    pg: version('pg'),
    'drizzle-orm': version('drizzle-orm'),
    undici: version('undici'),
    'node-cron': version('node-cron'),
    ink: version('ink'),
    react: version('react'),
  };
}

/** Registers `info`. */
export function registerInfo(program: Command, io: CliIo, done: (code: number) => void): void {
  program
    .command('info')
    .description('show the paths of config and database, versions, and the service prefix in use')
    .addHelpText(
      'after',
      globalOptionsHelp({
        db: 'the database to show (a URL without its password)',
        config: 'the config path to show',
        output: ['text', 'json'],
      }),
    )
    .action((_opts: unknown, cmd: Command) => {
      const g = cmd.optsWithGlobals<{ db: string; dbPasswordFile?: string; config?: string; output?: string }>();
      const info = collectInfo({ db: g.db, dbPasswordFile: g.dbPasswordFile, config: g.config }, io);
      if (g.output === 'json') {
        io.stdout.write(`${JSON.stringify(info, null, 2)}\n`);
      } else {
        const width = Math.max(...Object.keys(info).map((k) => k.length));
        // one write: a reader that stops early (`| head`) gets no EPIPE from a later line
        io.stdout.write(
          Object.entries(info)
            .map(([k, v]) => `${k.padEnd(width)}  ${sanitizeCell(v)}\n`)
            .join(''),
        );
      }
      done(0);
    });
}
