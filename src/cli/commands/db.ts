/**
 * `flightrec db stats | prune --older-than DURATION [--dry-run] [--yes] [--force] | vacuum`:
 * look after the history database. Also the one place the commands open the store for writing.
 */
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
// the collector's module files, not its index: the index loads the poller's HTTP client (undici) and node-cron
import { formatBytes } from '../../collector/output.ts';
import {
  createHistoryWriter,
  heldRanges,
  openDatabase,
  openHistoryMaintenance,
  type FlightrecDb,
  type FlightrecWriter,
  type HistoryMaintenance,
  type StoreStats,
} from '../../db/index.ts';
import { RuntimeError, UsageError, type CliIo } from '../context.ts';
import { sanitizeForTerminal } from '../../api/safe-text.ts';
import { registerDbCheck } from './db-check.ts';
import { registerDbCopy } from './db-copy.ts';
import type { StatsRetentionOpts } from './db-stats-growth.ts';
import { readGrowthInputs } from '../../db/maintain/growth-inputs.ts';
import { formatHeldRanges, heldRangesJson, registerDbLog } from './db-log.ts';
import { runPrune, type PruneOpts } from './db-prune.ts';
import { globalOptionsHelp } from './help.ts';
import { missingDatabaseMessage } from './missing-db.ts';
import { dbOpenTarget, dbShown, openOptionsOf, typedDb, type TypedDb } from '../db-target.ts';
import { isDbUrl } from '../../db/engines/registry.ts';

interface GlobalOpts {
  db: string;
  dbPasswordFile?: string;
  output?: string;
  config?: string;
}

/** Opens (creating when needed) the database at `path` and returns its writer (the store's open errors: exit 1). */
export function openHistoryWriter(
  path: string,
  opts: { keepRawAnswers?: boolean; passwordFile?: string } = {},
): FlightrecWriter {
  const { keepRawAnswers = false, ...open } = opts;
  return createHistoryWriter(openDatabase(path, { keepRawAnswers, ...open }));
}

/**
 * Opens an existing database (read-only unless `write`) and runs `fn` with its maintenance role
 * (stats, prune plans, prune, vacuum), then closes it. A reader, when needed, comes from `db`.
 */
export function withMaintenance<T>(
  path: string,
  write: boolean,
  fn: (maintenance: HistoryMaintenance, db: FlightrecDb) => T,
  typed?: TypedDb,
): T {
  if (!isDbUrl(path) && !existsSync(path))
    throw new RuntimeError(missingDatabaseMessage(path, typed?.given ?? path, typed?.cwd ?? dirname(path)));
  const db = openDatabase(path, { readonly: !write, ...openOptionsOf(typed) });
  try {
    return fn(openHistoryMaintenance(db), db);
  } finally {
    db.close();
  }
}

/** The text form of `db stats`. */
export function formatStats(s: StoreStats, path: string): string {
  const size =
    s.engine === 'postgres'
      ? `table size (with indexes)      ${formatBytes(s.fileBytes)}`
      : `file size (with WAL)           ${formatBytes(s.fileBytes)}`;
  const bytes = (n: number | null): string => (n === null ? '-' : formatBytes(n));
  const per = (n: number | null): string => (n === null ? '-' : n.toFixed(1));
  const row = (cells: readonly string[]): string =>
    [(cells[0] ?? '').padEnd(20), ...cells.slice(1).map((c, i) => c.padStart([10, 12, 12, 11, 13][i] ?? 0))]
      .join(' ')
      .trimEnd();
  const lines = [
    `database                       ${path}`,
    `engine                         ${s.engine === 'postgres' ? 'PostgreSQL' : 'SQLite'}`,
    size,
    `polls                          ${s.polls} (${s.failedPolls} failed)`,
    '',
    row(['resource', 'entities', 'samples', 'stored rows', 'bytes', 'bytes/sample']),
  ];
  for (const [name, r] of Object.entries(s.resources)) {
    lines.push(
      row([name, String(r.entities), String(r.samples), String(r.storedRows), bytes(r.bytes), per(r.bytesPerSample)]),
    );
  }
  lines.push(
    row(['poll log', '', `${s.polls} polls`, '', bytes(s.pollLog.bytes), `${per(s.pollLog.bytesPerPoll)}/poll`]),
    row(['strings (shared)', '', '', '', bytes(s.strings.bytes)]),
    row(['rollups', '', '', '', bytes(s.rollups.bytes)]),
    row(['fixed overhead', '', '', '', bytes(s.overheadBytes)]),
  );
  if (s.overheadBytes === null) lines.push('(bytes per table: not available, this SQLite build has no dbstat table)');
  return `${lines.join('\n')}\n`;
}

/** Registers `db stats`, `db prune` and `db vacuum`. */
export function registerDb(program: Command, io: CliIo, done: (code: number) => void): void {
  const db = program.command('db').description('history database maintenance: stats, prune, vacuum, check, log, copy');
  // the database as opened (path) and as printed (shown: a URL without its password)
  const pathOf = (cmd: Command): { path: string; shown: string; g: GlobalOpts } => {
    const g = cmd.optsWithGlobals<GlobalOpts>();
    // checked before the database is opened, like every argument
    if (g.output !== undefined && g.output !== 'text' && g.output !== 'json')
      throw new UsageError(`invalid --output ${JSON.stringify(sanitizeForTerminal(g.output))}: expected text or json`);
    return { path: dbOpenTarget(g.db, io.cwd), shown: dbShown(g.db, io.cwd), g };
  };

  const help = (write: string): string => globalOptionsHelp({ db: write, output: ['text', 'json'] });
  db.command('stats')
    .description(
      'polls, entities, samples and bytes per resource (its own tables), fixed overhead, file size, growth per day',
    )
    .option(
      '--retention-raw <duration>',
      "project the steady-state size with raw history kept this long (e.g. 14d; default: the config file's)",
    )
    .option('--retention-rollups <duration>', 'and rollups kept this long (e.g. 400d)')
    .addHelpText(
      'after',
      globalOptionsHelp({
        db: 'the history database to inspect',
        output: ['text', 'json'],
        config: 'its retention section gives the projection',
      }),
    )
    .action(async (opts: StatsRetentionOpts, cmd: Command) => {
      const { path, shown, g } = pathOf(cmd);
      // loaded here: its retention reads a config file (yaml, zod) that the other db commands never need
      const { formatGrowth, growthJson, statsGrowth, statsRetention } = await import('./db-stats-growth.ts');
      const retention = statsRetention(opts, g.config === undefined ? undefined : resolve(io.cwd, g.config));
      const [stats, held] = withMaintenance(
        path,
        false,
        (m, handle) => [m.stats(), heldRanges(handle.sqlite)] as const,
        typedDb(g, io.cwd),
      );
      // growth per day and the steady-state projection (#16): a block of its own
      const growth = statsGrowth(
        withMaintenance(path, false, (_m, h) => readGrowthInputs(h, stats.fileBytes), typedDb(g, io.cwd)),
        retention,
      );
      if (g.output === 'json') {
        io.stdout.write(
          `${JSON.stringify({ database: shown, ...stats, resolutions: heldRangesJson(held), ...growthJson(growth) }, null, 2)}\n`,
        );
      } else io.stdout.write(formatStats(stats, shown) + formatHeldRanges(held) + formatGrowth(growth));
      done(0);
    });

  db.command('prune')
    .description('delete every poll older than DURATION (e.g. 7d) or a time (RFC 3339), with what only it referenced')
    .requiredOption(
      '--older-than <duration|time>',
      'cut-off: a duration ago (7d, 12h) or an instant (2025-09-01T00:00:00Z)',
    )
    .option('--dry-run', 'print what would go (polls, samples, bytes, time range) and change nothing')
    .option('-y, --yes', 'do not ask for confirmation on a terminal')
    .option('--force', "also remove an operation's newest poll (nothing of it is left)")
    .addHelpText('after', help('the history database to prune'))
    .action(async (opts: PruneOpts, cmd: Command) => {
      const { path, g } = pathOf(cmd);
      done(await runPrune(path, { ...g, typed: typedDb(g, io.cwd) }, opts, io));
    });

  db.command('vacuum')
    .description('rebuild the database file to give free pages back to the file system')
    .addHelpText('after', help('the history database to rebuild'))
    .action((_opts: unknown, cmd: Command) => {
      const { path, shown, g } = pathOf(cmd);
      const [before, after] = withMaintenance(
        path,
        true,
        (m) => {
          const b = m.stats().fileBytes;
          m.vacuum();
          return [b, m.stats().fileBytes] as const;
        },
        typedDb(g, io.cwd),
      );
      if (g.output === 'json')
        io.stdout.write(`${JSON.stringify({ database: shown, bytesBefore: before, bytesAfter: after })}\n`);
      else io.stdout.write(`vacuumed ${shown}: ${formatBytes(before)} -> ${formatBytes(after)}\n`);
      done(0);
    });

  registerDbCheck(db, io, done);
  registerDbLog(db, io, done, pathOf);
  registerDbCopy(db, io, done);
}
