/**
 * `flightrec diff --from T1 --to T2 [RESOURCE...]`: what was added, removed and changed between
 * two instants. Exit 1 when there are differences, or when an instant was not observed (the
 * differences are then unknown); 0 when both instants were observed and nothing differs.
 */
import type { Command } from 'commander';
import { isResourceName, type ResourceName } from '../../api/schema/resources.ts';
import { sanitizeForTerminal } from '../../api/safe-text.ts';
import { DIFF_FORMATS, DIFF_RESOURCES, DiffOptionsError, diffStates, renderDiff, type DiffFormat } from '../../report/index.ts';
import { EXIT, UsageError, type CliIo } from '../context.ts';
import { chooseOutput, timeOption, withHistory } from './query.ts';
import { unknownNameMessage } from '../suggest.ts';
import { globalOptionsHelp, READ_CLUSTER, READ_DB } from './help.ts';

interface DiffOpts {
  from?: string;
  to?: string;
}

/** Registers `diff`. */
export function registerDiff(program: Command, io: CliIo, done: (code: number) => void): void {
  program
    .command('diff')
    .description('entities added, removed and changed between two instants (exit 1 when they differ)')
    .argument('[resources...]', `resources to compare (default: every recorded one of ${DIFF_RESOURCES.join(', ')})`)
    .requiredOption('--from <time>', 'the earlier instant (RFC 3339, now, -2h, 30m)')
    .requiredOption('--to <time>', 'the later instant')
    .addHelpText('after', globalOptionsHelp({ db: READ_DB, cluster: READ_CLUSTER, output: DIFF_FORMATS, color: true }))
    .action((resources: string[], opts: DiffOpts, cmd: Command) => {
      const g = cmd.optsWithGlobals<{ db: string; cluster?: string; output?: string; color?: boolean }>();
      for (const r of resources) {
        if (!isResourceName(r) || r === 'polls') {
          throw new UsageError(`cannot diff: ${unknownNameMessage('resource', r, DIFF_RESOURCES)}`);
        }
      }
      const out = chooseOutput<DiffFormat>(g, io, DIFF_FORMATS);
      const from = timeOption('--from', opts.from, io) as bigint;
      const to = timeOption('--to', opts.to, io) as bigint;
      let result;
      try {
        result = withHistory(g, io, (reader, cluster) =>
          diffStates(reader, { from, to, resources: resources as ResourceName[], cluster }),
        );
      } catch (err) {
        if (err instanceof DiffOptionsError) throw new UsageError(err.message);
        throw err;
      }
      io.stdout.write(renderDiff(result, out.format, out));
      if (result.unobserved.length > 0) {
        io.stderr.write(`warning: not observed at one of the instants, differences unknown: ${result.unobserved.join(', ')}\n`);
      }
      done(result.differences > 0 || result.unobserved.length > 0 ? EXIT.differences : EXIT.ok);
    });
}
