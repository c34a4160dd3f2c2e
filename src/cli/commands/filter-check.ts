/** `flightrec filter check`: validates a filter, prints its normalised form or the error with a caret. */
import type { Command } from 'commander';
import { isResourceName, RESOURCE_NAMES } from '../../api/schema/resources.ts';
import { sanitizeForTerminal } from '../../api/safe-text.ts';
import { checkFilter, type Dialect } from '../../filter/index.ts';
import { caretLines } from '../../filter/errors.ts';
import { EXIT, type CliIo } from '../context.ts';
import { unknownNameMessage } from '../suggest.ts';
import { globalOptionsHelp } from './help.ts';

/** Registers `filter check [--dialect extended|server] [--resource R] <expr>` (under `filter`). */
export function registerFilterCheck(program: Command, io: CliIo, done: (code: number) => void): void {
  const filter =
    program.commands.find((c) => c.name() === 'filter') ??
    program.command('filter').description('work with filter expressions');
  filter
    .command('check')
    .description('check a filter: print its normalised form (exit 0) or the error with a caret (exit 2)')
    .argument('<expr>', 'the filter expression (quote it for the shell)')
    .option('--dialect <dialect>', 'extended (full AIP-160, local) or server (what the cluster accepts)', 'extended')
    .option(
      '--resource <resource>',
      `resource whose fields the filter uses: ${RESOURCE_NAMES.join(', ')}`,
      'connections',
    )
    .addHelpText('after', globalOptionsHelp({}))
    .action((expr: string, opts: { dialect: string; resource: string }) => {
      if (opts.dialect !== 'extended' && opts.dialect !== 'server') {
        io.stderr.write(
          `flightrec: invalid --dialect ${JSON.stringify(sanitizeForTerminal(opts.dialect))}: expected extended or server\n`,
        );
        done(EXIT.usage);
        return;
      }
      if (!isResourceName(opts.resource)) {
        io.stderr.write(`flightrec: --resource: ${unknownNameMessage('resource', opts.resource, RESOURCE_NAMES)}\n`);
        done(EXIT.usage);
        return;
      }
      const result = checkFilter(expr, { resource: opts.resource, dialect: opts.dialect as Dialect });
      if (!result.ok) {
        io.stderr.write(`flightrec: ${result.error.render()}\n`);
        done(EXIT.usage);
        return;
      }
      for (const w of result.warnings) {
        const { line, caret } = caretLines(expr, w.start, w.end);
        io.stderr.write(`warning: ${sanitizeForTerminal(w.message)}\n  ${line}\n  ${caret}\n`);
      }
      // the normalised form repeats the user's literals: their control and bidi characters are shown as escapes
      io.stdout.write(`${sanitizeForTerminal(result.normalized)}\n`);
      done(EXIT.ok);
    });
}
