/** Child process: runs `flightrec ...argv` with every command, real stdio and signals, and exits with its code. */
import type { CliIo } from '../../../src/cli/context.ts';
import { flushed } from '../../../src/cli/main.ts';
import { runProgram } from './cli.ts';

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
const { code } = await runProgram(process.argv.slice(2), io);
// as the production entry point does: leave once stdout and stderr reached the pipe
await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
process.exit(code);
