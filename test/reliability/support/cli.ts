/**
 * Runs flightrec with every command registered (the landed ones, the analysis commands and
 * `export`), in-process or in a child process, mapping errors to exit codes as `main()` does.
 * A thrown error that is not one of the CLI's typed errors is reported as `unexpected`.
 */
import { spawn } from 'node:child_process';
import { CommanderError, type Command } from 'commander';
import { registerBrowse } from '../../../src/cli/commands/browse.ts';
import { registerCollect } from '../../../src/cli/commands/collect.ts';
import { registerDb } from '../../../src/cli/commands/db.ts';
import { registerDiff } from '../../../src/cli/commands/diff.ts';
import { registerExport } from '../../../src/cli/commands/export.ts';
import { registerFilterCheck } from '../../../src/cli/commands/filter-check.ts';
import { registerImport } from '../../../src/cli/commands/import.ts';
import { registerQuery } from '../../../src/cli/commands/query.ts';
import { registerSim } from '../../../src/cli/commands/sim.ts';
import { registerSummary } from '../../../src/cli/commands/summary.ts';
import { registerTimeline } from '../../../src/cli/commands/timeline.ts';
import { registerTrends } from '../../../src/cli/commands/trends.ts';
import { EXIT, type CliIo } from '../../../src/cli/context.ts';
import { toCliError } from '../../../src/cli/error-codes.ts';
import { UnexpectedError } from '../../../src/cli/errors.ts';
import { buildProgram, commanderExit } from '../../../src/cli/main.ts';
import { memoryIo } from '../../helpers/memory-io.ts';
import { testCwd } from '../../helpers/test-cwd.ts';
import { childArgs } from './child-script.ts';

/** What one run printed and returned. */
export interface CliRun {
  readonly code: number;
  readonly out: string;
  readonly err: string;
  /** true when the command threw something that is not a typed CLI error (a bug) */
  readonly unexpected: boolean;
  /** wall time of the run, ms */
  readonly ms: number;
}

type Register = (program: Command, io: CliIo, done: (code: number) => void) => void;

/** Every command, by the name commander knows it under. */
const COMMANDS: readonly [string, Register][] = [
  ['collect', registerCollect],
  ['sim', registerSim],
  ['import', registerImport],
  ['query', registerQuery],
  ['diff', registerDiff],
  ['filter', registerFilterCheck],
  ['db', registerDb],
  ['timeline', registerTimeline],
  ['trends', registerTrends],
  ['summary', registerSummary],
  ['browse', registerBrowse],
  ['export', registerExport],
];

/** The root program with every command, whichever of them src/cli/commands/index.ts registers already. */
export async function fullProgram(io: CliIo, done: (code: number) => void): Promise<Command> {
  const program = await buildProgram(io, done);
  const have = new Set(program.commands.map((c) => c.name()));
  for (const [name, register] of COMMANDS) if (!have.has(name)) register(program, io, done);
  return program;
}

/** Parses argv on the full program; returns the exit code and whether the error was unexpected. */
export async function runProgram(argv: readonly string[], io: CliIo): Promise<{ code: number; unexpected: boolean }> {
  let code: number = EXIT.ok;
  const program = await fullProgram(io, (c) => {
    code = c;
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return { code, unexpected: false };
  } catch (err) {
    if (err instanceof CommanderError) return { code: commanderExit(err), unexpected: false };
    const failure = toCliError(err);
    io.stderr.write(`flightrec: ${failure.text}\n`);
    return { code: failure.exitCode, unexpected: failure instanceof UnexpectedError };
  }
}

/** Options of an in-process run. */
export interface RunOptions {
  readonly env?: Record<string, string>;
  readonly cwd?: string;
  readonly now?: () => number;
  readonly signal?: AbortSignal;
  readonly isTTY?: boolean;
}

/** Runs `flightrec ...argv` in this process with captured output. */
export async function runCli(argv: readonly string[], opts: RunOptions = {}): Promise<CliRun> {
  const io = memoryIo(opts);
  const t0 = performance.now();
  const { code, unexpected } = await runProgram(argv, io);
  return { code, out: io.out(), err: io.err(), unexpected, ms: performance.now() - t0 };
}

/** Runs `flightrec ...argv` in a child process (optionally as another user); resolves when it exits. */
export async function runCliChild(
  argv: readonly string[],
  opts: { env?: Record<string, string>; cwd?: string; uid?: number; gid?: number; timeoutMs?: number } = {},
): Promise<CliRun> {
  const t0 = performance.now();
  const script = await childArgs('cli-child.ts');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...script, ...argv], {
      cwd: opts.cwd ?? testCwd(),
      env: { PATH: process.env.PATH ?? '', ...(opts.env ?? {}) },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(opts.uid === undefined ? {} : { uid: opts.uid, gid: opts.gid ?? opts.uid }),
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, out, err, unexpected: err.includes('unexpected error'), ms: performance.now() - t0 });
    });
  });
}
