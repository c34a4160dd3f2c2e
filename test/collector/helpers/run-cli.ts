/** Runs the collector's commands in-process with a root program shaped like the lead's, mapping errors to exit codes. */
import { Command, CommanderError, Option } from 'commander';
import { EXIT, RuntimeError, UsageError, type CliIo } from '../../../src/cli/context.ts';
import { registerCollect } from '../../../src/cli/commands/collect.ts';
import { registerDb } from '../../../src/cli/commands/db.ts';
import { registerImport } from '../../../src/cli/commands/import.ts';

/** Parses argv with collect, import and db registered; returns the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let code: number = EXIT.ok;
  const done = (c: number): void => {
    code = c;
  };
  const program = new Command('flightrec')
    .addOption(new Option('--db <file>', 'history database').env('FLIGHTREC_DB').default('./flightrec.db'))
    .addOption(new Option('--config <file>', 'YAML config file').env('FLIGHTREC_CONFIG'))
    .option('--cluster <name>')
    .option('-o, --output <format>')
    .option('--no-color')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });
  registerCollect(program, io, done);
  registerImport(program, io, done);
  registerDb(program, io, done);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return code;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    if (err instanceof UsageError) {
      io.stderr.write(`flightrec: ${err.message}\n`);
      return EXIT.usage;
    }
    if (err instanceof RuntimeError) {
      io.stderr.write(`flightrec: ${err.message}\n`);
      return EXIT.failure;
    }
    throw err;
  }
}
