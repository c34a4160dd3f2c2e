/** Child process: runs `flightrec ...argv` with every command, real stdio and signals, and exits with its code. */
import type { CliIo } from '../../../src/cli/context.ts';
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
process.exitCode = code;
setImmediate(() => process.exit(code));
