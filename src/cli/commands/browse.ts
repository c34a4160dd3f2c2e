/**
 * `flightrec browse`: the interactive history browser (k9s for the recorded past). Needs a
 * terminal on stdin and stdout; the TUI (React, ink) is imported only when it runs.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { EXIT, RuntimeError, UsageError, type CliIo } from '../context.ts';
import { unknownNameMessage } from '../suggest.ts';
import { launcherFor } from '../launcher.ts';
import { requireDatabase } from './missing-db.ts';
import { dbOpenOptions, dbOpenTarget, dbShown } from '../db-target.ts';
import { isDbUrl } from '../../db/engines/registry.ts';
import { globalOptionsHelp, READ_CLUSTER, READ_DB } from './help.ts';

/** The global options browse reads. */
interface GlobalOpts {
  db: string;
  dbPasswordFile?: string;
  cluster?: string;
  color?: boolean;
  config?: string;
}

/** browse's own options. */
interface BrowseOpts {
  view?: string;
  incident?: boolean;
}

const NOT_A_TERMINAL =
  'browse needs a terminal on stdin and stdout (it is interactive)\n' +
  'hint: for scripts and pipes use `flightrec query RESOURCE --at TIME`, `flightrec timeline` or `flightrec diff`';

/** Registers `browse`. */
export function registerBrowse(program: Command, io: CliIo, done: (code: number) => void): void {
  program
    .command('browse')
    .description('browse the recorded history interactively: views, time cursor, filters (needs a terminal)')
    .option(
      '--view <name>',
      'start in this view: overview, connections, shadow-links, upgrade, iceberg, timeline, diff',
    )
    .addHelpText(
      'after',
      globalOptionsHelp({
        db: READ_DB,
        cluster: READ_CLUSTER,
        config: "its thresholds: section (the timeline's events and the lag marks; ? lists them)",
        color: true,
      }),
    )
    .option('--incident', 'open the timeline at the worst incident (the error event with the widest impact), selected')
    .action(async (opts: BrowseOpts, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalOpts & BrowseOpts>();
      if (io.stdin?.isTTY !== true || io.stdout.isTTY !== true) throw new UsageError(NOT_A_TERMINAL);
      const tui = await import('../../tui/index.ts');
      let start;
      if (opts.view !== undefined) {
        const view = tui.resolveViewName(opts.view);
        if (view === undefined) throw new UsageError(`--view: ${unknownNameMessage('view', opts.view, tui.TOP_VIEWS)}`);
        start = { kind: view };
      }
      // a bad thresholds: section is a usage error before the terminal is taken
      // (read by the timeline command's helper, loaded only then: browse's start pays nothing for it)
      const thresholds =
        g.config === undefined ? undefined : await (await import('./timeline.ts')).thresholdsFromConfig(g, io);
      requireDatabase(resolve(io.cwd, g.db), g.db, io.cwd);
      try {
        await tui.runBrowse({
          database: dbOpenTarget(g.db, io.cwd),
          ...dbOpenOptions(g, io.cwd),
          // as typed, a URL without its password
          displayPath: isDbUrl(g.db) ? dbShown(g.db, io.cwd) : g.db,
          cluster: g.cluster,
          stdin: io.stdin,
          stdout: io.stdout as NodeJS.WriteStream,
          stderr: io.stderr as NodeJS.WriteStream,
          noColor: g.color === false || (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== ''),
          now: io.now,
          signal: io.signal,
          start,
          incident: opts.incident === true,
          launcher: launcherFor(io),
          ...(thresholds === undefined || g.config === undefined ? {} : { thresholds, thresholdsFrom: g.config }),
        });
      } catch (err) {
        // the TUI is loaded lazily, so its own error is mapped here (the store's errors reach main as they are)
        if (err instanceof tui.BrowseError) {
          throw err.usage ? new UsageError(err.message, { cause: err }) : new RuntimeError(err.message, { cause: err });
        }
        throw err;
      }
      done(EXIT.ok);
    });
}
