/**
 * A child process for the shutdown test: runs `collect` (argv after the script) with the
 * process's real signals wired to io.signal, as the production entry point does.
 */
import { Command } from 'commander';
import type { CliIo } from '../../../src/cli/context.ts';
import { registerCollect } from '../../../src/cli/commands/collect.ts';
import { flushed } from '../../../src/cli/main.ts';

const controller = new AbortController();
process.on('SIGTERM', () => controller.abort());
process.on('SIGINT', () => controller.abort());

const io: CliIo = {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  now: Date.now,
  signal: controller.signal,
};
let code = 1;
const program = new Command('flightrec')
  .option('--db <file>', 'database', './flightrec.db')
  .option('--config <file>')
  .option('--cluster <name>')
  .exitOverride();
registerCollect(program, io, (c) => {
  code = c;
});
try {
  await program.parseAsync(process.argv.slice(2), { from: 'user' });
} catch (err) {
  process.stderr.write(`child: ${err instanceof Error ? err.message : String(err)}\n`);
  code = 1;
}
process.stderr.write(`child: exit ${code}\n`);
// as the production entry point does: leave once stdout and stderr reached the pipe
await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
process.exit(code);
