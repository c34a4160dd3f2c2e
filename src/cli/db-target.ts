/**
 * The `--db` value in the command line: what the store opens (a file resolved against the
 * working directory, a URL as given) and what is printed (the file, or the URL without its
 * password). Every message, log line and `info` field naming the database uses `dbShown`.
 */
import { resolve } from 'node:path';
import type { Reporter } from '../collector/output.ts';
import { isDbUrl, redactDbTexts, shownDbTarget } from '../db/engines/registry.ts';
import { UsageError } from './errors.ts';

/** The global options naming the database. */
export interface DbGlobals {
  readonly db: string;
  /** --db-password-file / FLIGHTREC_DB_PASSWORD_FILE */
  readonly dbPasswordFile?: string;
}

/** A URL's scheme (`mysql` of `mysql://...`), or `file` of a `file:` URI. */
const URL_SCHEME = /^([a-z][a-z0-9+.-]*):\/\/|^(file):/i;

/** The forms a database is named in, for messages. */
export const DB_FORMS =
  'an SQLite file (a path, e.g. ./flightrec.db) or a PostgreSQL URL (postgres://USER@HOST:PORT/DATABASE, or postgresql://...)';

/**
 * Refuses (exit 2) a database URL of a kind flightrec does not read (`mysql://`, `sqlite://`,
 * a `file:` URI), naming the forms it takes, before the text could be taken for a file path.
 */
export function checkDbText(text: string, flag = '--db'): void {
  const m = URL_SCHEME.exec(text);
  if (m === null || isDbUrl(text)) return;
  const scheme = (m[1] ?? m[2] ?? '').toLowerCase();
  const hint =
    scheme === 'file' || scheme === 'sqlite' ? ` (for an SQLite file, give its path without ${scheme}:)` : '';
  throw new UsageError(`${flag}: ${scheme}: URLs are not supported${hint}; give ${DB_FORMS}`);
}

/** What the store opens: a file path resolved against `cwd`, or the URL as given. */
export function dbOpenTarget(given: string, cwd: string): string {
  return isDbUrl(given) ? given : resolve(cwd, given);
}

/** What is printed: the resolved file path, or the URL without its password (never a mask of it). */
export function dbShown(given: string, cwd: string): string {
  if (!isDbUrl(given)) return resolve(cwd, given);
  try {
    return shownDbTarget(given);
  } catch {
    return redactDbTexts(given, [given]);
  }
}

/**
 * The open options naming the password file of a server `--db`: --db-password-file (or
 * FLIGHTREC_DB_PASSWORD_FILE), else `configured` (the config's database.passwordFile), resolved
 * against `cwd`. Spread into openDatabase's options; nothing for an SQLite file.
 */
export function dbOpenOptions(g: DbGlobals, cwd: string, configured?: string): { passwordFile?: string } {
  const file = g.dbPasswordFile ?? configured;
  return file === undefined || file === '' || !isDbUrl(g.db) ? {} : { passwordFile: resolve(cwd, file) };
}

/** The `--db` value as typed, where, and its password file: what opening and naming it need. */
export interface TypedDb {
  readonly given: string;
  readonly cwd: string;
  /** --db-password-file / FLIGHTREC_DB_PASSWORD_FILE as given */
  readonly passwordFile?: string;
}

/** The TypedDb of the global options. */
export function typedDb(g: DbGlobals, cwd: string): TypedDb {
  return { given: g.db, cwd, ...(g.dbPasswordFile === undefined ? {} : { passwordFile: g.dbPasswordFile }) };
}

/** The open options of a TypedDb (none when unknown). */
export function openOptionsOf(typed: TypedDb | undefined): { passwordFile?: string } {
  return typed === undefined ? {} : dbOpenOptions({ db: typed.given, dbPasswordFile: typed.passwordFile }, typed.cwd);
}

/**
 * Every argument or variable that may hold a database URL: `--db URL`, `--from URL`, `--to=URL`,
 * and FLIGHTREC_DB of each environment (commander reads process.env, the commands io.env).
 */
export function dbTextsOf(argv: readonly string[], ...envs: Readonly<Record<string, string | undefined>>[]): string[] {
  const texts = argv.map((a) => a.replace(/^--?[a-z-]+=/i, '')).filter(isDbUrl);
  for (const env of envs) {
    const fromEnv = env.FLIGHTREC_DB;
    if (fromEnv !== undefined && isDbUrl(fromEnv) && !texts.includes(fromEnv)) texts.push(fromEnv);
  }
  return texts;
}

/** `text` without the password of any database URL of the command line (the last guard before stderr). */
export function redactCommandLine(
  text: string,
  argv: readonly string[],
  ...envs: Readonly<Record<string, string | undefined>>[]
): string {
  return redactDbTexts(text, dbTextsOf(argv, ...envs));
}

/** `reporter` whose lines (start-up, warnings, errors: text or JSON) never hold the password of `texts`' URLs. */
export function redactingReporter(reporter: Reporter, texts: readonly string[]): Reporter {
  return {
    round: (r) => reporter.round(r),
    line: (text) => reporter.line(redactDbTexts(text, texts)),
    status: (stats) => reporter.status(stats),
    done: () => reporter.done(),
  };
}

/**
 * The process title for `argv` when an argument holds a database password (undefined otherwise):
 * the command line without it, so that `ps` (which shows /proc/PID/cmdline) does not show it to
 * the other users of the host once the process has started.
 */
export function processTitleWithoutPasswords(argv: readonly string[]): string | undefined {
  const shown = argv.map((a) => (isDbUrl(a.replace(/^--?[a-z-]+=/i, '')) ? redactDbTexts(a, [a]) : a));
  return shown.some((s, i) => s !== argv[i]) ? ['flightrec', ...shown].join(' ') : undefined;
}
