/** Runs the collector's commands in-process with a root program shaped like the lead's, mapping errors to exit codes. */
import { Command, CommanderError, Option } from 'commander';
import { EXIT, type CliIo } from '../../../src/cli/context.ts';
import { toCliError } from '../../../src/cli/error-codes.ts';
import { UnexpectedError } from '../../../src/cli/errors.ts';
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
    .addOption(new Option('--db <file-or-url>', 'history database').env('FLIGHTREC_DB').default('./flightrec.db'))
    .addOption(new Option('--db-password-file <file>').env('FLIGHTREC_DB_PASSWORD_FILE'))
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
    // as main does (src/cli/error-codes.ts), but a bug fails the test instead of printing a stack
    const failure = toCliError(err);
    if (failure instanceof UnexpectedError) throw err;
    io.stderr.write(`flightrec: ${failure.text}\n`);
    return failure.exitCode;
  }
}
