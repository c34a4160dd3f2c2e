/**
 * `flightrec db copy --from FILE_OR_URL --to FILE_OR_URL [--batch N]`: copies a recording into
 * another database (created when missing), SQLite or PostgreSQL either way, by recording every
 * poll again, then the rollups and the maintenance log. Resumable: run again after an
 * interruption, it goes on where it stopped. A progress bar on a terminal; `-o json` for scripts.
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Command } from 'commander';
import { sanitizeForTerminal } from '../../api/safe-text.ts';
import {
  CopyConflictError,
  openDatabase,
  startHistoryCopy,
  type CopyExtras,
  type FlightrecDb,
} from '../../db/index.ts';
import { EXIT, RuntimeError, UsageError, type CliIo } from '../context.ts';
import { createCopyProgress } from './db-copy-progress.ts';
import { checkDbText } from '../db-target.ts';
import { globalOptionsHelp } from './help.ts';

interface CopyOpts {
  from: string;
  to: string;
  batch?: string;
}

const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i;

/** A --from/--to text as printed: never a password. */
export function shownTarget(text: string): string {
  return sanitizeForTerminal(text.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/@:]*):[^/@]*@/i, '$1@'));
}

/** What openDatabase gets: a URL as given, a file path resolved against the working directory. */
function locate(text: string, cwd: string, flag: string): string {
  checkDbText(text, flag);
  return URL_LIKE.test(text) ? text : resolve(cwd, text);
}

/** The server and database a PostgreSQL URL names (user, password and options aside). */
function serverOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    const scheme = u.protocol === 'postgresql:' ? 'postgres:' : u.protocol;
    return `${scheme}//${u.hostname.toLowerCase()}:${u.port === '' ? '5432' : u.port}${decodeURIComponent(u.pathname)}`;
  } catch {
    return undefined;
  }
}

/** True when both name the same database: the same file (also through links), or the same server and database. */
export function sameDatabase(a: string, b: string): boolean {
  if (URL_LIKE.test(a) !== URL_LIKE.test(b)) return false;
  if (URL_LIKE.test(a)) return serverOf(a) !== undefined && serverOf(a) === serverOf(b);
  if (a === b) return true;
  try {
    const x = statSync(a, { bigint: true });
    const y = statSync(b, { bigint: true });
    return x.dev === y.dev && x.ino === y.ino;
  } catch {
    return false;
  }
}

/** Registers `db copy` under `db`. */
export function registerDbCopy(db: Command, io: CliIo, done: (code: number) => void): void {
  db.command('copy')
    .description(
      'copy a recording into another database (SQLite file or PostgreSQL URL, created when missing); run again to resume',
    )
    .requiredOption('--from <file|url>', 'the database to copy (read only)')
    .requiredOption(
      '--to <file|url>',
      'the database to copy into: new, or holding an interrupted copy (or other clusters)',
    )
    .option('--batch <polls>', 'polls per write transaction (default 64)')
    .addHelpText('after', globalOptionsHelp({ output: ['text', 'json'] }))
    .action(async (opts: CopyOpts, cmd: Command) => {
      const g = cmd.optsWithGlobals<{ output?: string }>();
      done(await runDbCopy(opts, g, io));
    });
}

/** Runs `db copy`; returns the exit code. */
export async function runDbCopy(opts: CopyOpts, g: { output?: string }, io: CliIo): Promise<number> {
  if (g.output !== undefined && g.output !== 'text' && g.output !== 'json') {
    throw new UsageError(`invalid --output ${JSON.stringify(sanitizeForTerminal(g.output))}: expected text or json`);
  }
  const batch = opts.batch === undefined ? 64 : Number(opts.batch);
  if (!/^[0-9]+$/.test(opts.batch ?? '64') || !Number.isSafeInteger(batch) || batch < 1 || batch > 10_000) {
    throw new UsageError(
      `--batch: must be a whole number from 1 to 10000, got ${JSON.stringify(sanitizeForTerminal(opts.batch ?? ''))}`,
    );
  }
  const from = locate(opts.from, io.cwd, '--from');
  const to = locate(opts.to, io.cwd, '--to');
  if (sameDatabase(from, to)) {
    throw new UsageError(
      `--from and --to name the same database (${shownTarget(opts.from)}): it cannot be copied onto itself`,
    );
  }
  if (!URL_LIKE.test(from) && !existsSync(from))
    throw new RuntimeError(`--from: no history database at ${shownTarget(from)}; nothing was copied`);
  const source = openDatabase(from, { readonly: true });
  let target: FlightrecDb;
  try {
    target = openDatabase(to, { keepRawAnswers: true });
  } catch (err) {
    source.close();
    throw err;
  }
  const started = io.now();
  const progress = createCopyProgress(io.stderr, io.now);
  let extras: CopyExtras;
  let copy: ReturnType<typeof startHistoryCopy>;
  try {
    copy = startHistoryCopy(source, target, { batchPolls: batch });
  } catch (err) {
    target.close();
    source.close();
    if (err instanceof CopyConflictError) throw new RuntimeError(`${shownTarget(opts.to)}: ${err.message}`);
    throw err;
  }
  try {
    progress.update(0, copy.total, true);
    // a signal stops the copy between two batches (each one is committed whole): run again to go on
    const signal = io.signal;
    while (copy.step() > 0) {
      progress.update(copy.copied, copy.total);
      if (signal.aborted) break;
      await nextTurn();
    }
    if (signal.aborted) {
      progress.clear();
      throw new RuntimeError(
        `interrupted after copying ${copy.copied} of ${copy.total} polls into ${shownTarget(opts.to)}; ` +
          'run the same command again to go on where it stopped',
      );
    }
    progress.update(copy.copied, copy.total, true);
    extras = copy.finish();
  } finally {
    progress.clear();
    copy.close();
    source.close();
  }
  const seconds = (io.now() - started) / 1000;
  if (g.output === 'json') {
    const summary = {
      from: shownTarget(opts.from),
      to: shownTarget(opts.to),
      clusters: copy.clusters.length,
      polls: copy.copied,
      alreadyCopied: copy.skipped,
      idsKept: copy.idsKept,
      rollupRows: extras.rollupRows,
      maintenanceLogEntries: extras.logEntries,
      seconds: Math.round(seconds * 1000) / 1000,
    };
    io.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  } else {
    const n = copy.clusters.length;
    const resumed = copy.skipped > 0 ? ` (${copy.skipped} were already there)` : '';
    io.stderr.write(
      `copied ${copy.copied} polls of ${n} cluster${n === 1 ? '' : 's'} in ${seconds.toFixed(1)} s${resumed} into ${shownTarget(opts.to)}\n`,
    );
  }
  return EXIT.ok;
}
