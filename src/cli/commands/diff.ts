/**
 * `flightrec diff --from T1 --to T2 [--only state|config|values] [RESOURCE...]`: what was added,
 * removed and changed between two instants, moving values included. The exit code follows
 * diff(1), so a script can tell a difference from a failure: 0 no differences, 1 differences,
 * 2 trouble of any kind (bad usage, a missing or unreadable database, an instant not observed).
 */
import type { Command } from 'commander';
import { isResourceName, type ResourceName } from '../../api/schema/resources.ts';
import { sanitizeForTerminal } from '../../api/safe-text.ts';
import {
  DIFF_CLASSES,
  DIFF_FORMATS,
  DIFF_RESOURCES,
  diffStates,
  formatTime,
  renderDiff,
  type DiffClass,
  type DiffFormat,
  type DiffResult,
} from '../../report/index.ts';
import { CliError, UsageError, type CliIo } from '../context.ts';
import { toCliError } from '../error-codes.ts';
import { unknownNameMessage } from '../suggest.ts';
import { globalOptionsHelp, READ_CLUSTER, READ_DB } from './help.ts';
import { withHistory } from './history.ts';
import { chooseOutput } from './output-choice.ts';
import { timeOption } from './time-option.ts';

interface DiffOpts {
  from?: string;
  to?: string;
  only?: string;
}

/** diff(1)'s exit codes. */
export const DIFF_EXIT = { same: 0, differ: 1, trouble: 2 } as const;

/** Parses `--only state,values`: a comma-separated list of classes. */
function parseOnly(text: string | undefined): DiffClass[] | undefined {
  if (text === undefined) return undefined;
  const parts = text.split(',').map((p) => p.trim());
  for (const p of parts) {
    if (!(DIFF_CLASSES as readonly string[]).includes(p)) {
      throw new UsageError(
        `invalid --only ${JSON.stringify(sanitizeForTerminal(text))}: expected ${DIFF_CLASSES.join(', ')} (or several, comma-separated)`,
      );
    }
  }
  return parts as DiffClass[];
}

/** Registers `diff`. */
export function registerDiff(program: Command, io: CliIo, done: (code: number) => void): void {
  program
    .command('diff')
    .description('entities added, removed and changed between two instants (exit 0 same, 1 different, 2 trouble)')
    .argument('[resources...]', `resources to compare (default: every recorded one of ${DIFF_RESOURCES.join(', ')})`)
    .requiredOption('--from <time>', 'the earlier instant (RFC 3339, now, -2h, 30m)')
    .requiredOption('--to <time>', 'the later instant')
    .option('--only <classes>', `only these differences: ${DIFF_CLASSES.join(', ')} (comma-separated; default all)`)
    .addHelpText('after', globalOptionsHelp({ db: READ_DB, cluster: READ_CLUSTER, output: DIFF_FORMATS, color: true }))
    .action((resources: string[], opts: DiffOpts, cmd: Command) => {
      const g = cmd.optsWithGlobals<{ db: string; cluster?: string; output?: string; color?: boolean }>();
      let result: DiffResult;
      try {
        result = runDiff(resources, opts, g, io);
      } catch (err) {
        // diff(1): every failure (a usage error, a runtime failure, a bug) is trouble, never a difference
        const failure = toCliError(err);
        if (failure.exitCode === DIFF_EXIT.trouble) throw failure;
        throw new CliError(failure.message, DIFF_EXIT.trouble, { cause: err, text: failure.text });
      }
      const out = chooseOutput<DiffFormat>(g, io, DIFF_FORMATS);
      io.stdout.write(renderDiff(result, out.format, out));
      for (const r of result.resources) {
        for (const [flag, o] of [
          ['--from', r.from],
          ['--to', r.to],
        ] as const) {
          if (o.observed && o.stale && o.poll !== undefined) {
            io.stderr.write(
              `warning: ${r.resource} at ${flag} ${formatTime(o.at)}: stale: observed at ${formatTime(o.poll.startTime)} (poll ${o.poll.id}), more than twice its schedule interval earlier\n`,
            );
          }
        }
      }
      if (result.unobserved.length > 0) {
        io.stderr.write(
          `flightrec: not observed at one of the instants, differences unknown: ${result.unobserved.join(', ')}\n`,
        );
        return done(DIFF_EXIT.trouble);
      }
      done(result.differences > 0 ? DIFF_EXIT.differ : DIFF_EXIT.same);
    });
}

function runDiff(
  resources: string[],
  opts: DiffOpts,
  g: { db: string; cluster?: string; output?: string; color?: boolean },
  io: CliIo,
): DiffResult {
  for (const r of resources) {
    if (!isResourceName(r) || r === 'polls') {
      throw new UsageError(`cannot diff: ${unknownNameMessage('resource', r, DIFF_RESOURCES)}`);
    }
  }
  chooseOutput<DiffFormat>(g, io, DIFF_FORMATS);
  const only = parseOnly(opts.only);
  const from = timeOption('--from', opts.from, io) as bigint;
  const to = timeOption('--to', opts.to, io) as bigint;
  return withHistory(g, io, (reader, cluster) =>
    diffStates(reader, { from, to, resources: resources as ResourceName[], cluster, only }),
  );
}
