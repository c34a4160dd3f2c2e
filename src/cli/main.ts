/**
 * The flightrec command line: a thin entry point. `main(argv, io)` is exported for tests; only
 * `run()` touches the process (signals, exit code). Heavy commands are loaded lazily.
 */
import { Command, CommanderError, Option } from 'commander';
import { EXIT, type CliIo } from './context.ts';
import { registerInfo } from './commands/info.ts';
import { registerCommands } from './commands/index.ts';
import { VERSION } from './version.ts';
import { sanitizeForTerminal } from '../api/safe-text.ts';
import { closestOptions } from './suggest.ts';
import { redactUrlPasswords } from '../db/engines/registry.ts';

/** Builds the root program with its global options and the commands `argv` needs. */
export async function buildProgram(
  io: CliIo,
  done: (code: number) => void,
  argv: readonly string[] = [],
): Promise<Command> {
  const program = new Command('flightrec')
    .description('Flight recorder and offline analyzer for the admin API (v2) of a Kafka-compatible cluster')
    .version(VERSION, '-V, --version')
    .addOption(
      new Option('--db <file-or-url>', 'history database: an SQLite file or a postgres:// URL')
        .env('FLIGHTREC_DB')
        .default('./flightrec.db'),
    )
    .addOption(
      new Option('--db-password-file <file>', 'PostgreSQL password file, mode 0600 (else PGPASSWORD)').env(
        'FLIGHTREC_DB_PASSWORD_FILE',
      ),
    )
    .addOption(new Option('--config <file>', 'YAML config file').env('FLIGHTREC_CONFIG'))
    .option('--cluster <name>', 'which recorded cluster (default: the only one)')
    .option('-o, --output <format>', 'table, wide, json, ndjson, csv, yaml (and per command md, html, annotations)')
    .option('--no-color', 'never write colour escape sequences')
    .showHelpAfterError('(run with --help for usage)')
    .showSuggestionAfterError(true)
    // the --db of every command: a URL of a kind flightrec does not read is refused before it
    // could be taken for a file path
    .hook('preAction', async (_program, command) =>
      (await import('./db-target.ts')).checkDbText(command.optsWithGlobals<{ db: string }>().db),
    )
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      // commander suggests close option names itself; one that holds the word typed is ours
      outputError: (s, write) =>
        write(commanderErrorText(s, (flag) => closestOptions(flag, longFlagsFor(program, argv)))),
    });
  registerInfo(program, io, done);
  await registerCommands(
    program,
    io,
    done,
    (args, over) => main(args, over === undefined ? io : { ...io, ...over }),
    argv,
  );
  return program;
}

/** The long flags the command that `argv` names takes, its parents' included. */
function longFlagsFor(program: Command, argv: readonly string[]): string[] {
  let cmd = program;
  for (const arg of argv) {
    if (arg.startsWith('-')) continue;
    const sub = cmd.commands.find((c) => c.name() === arg || c.aliases().includes(arg));
    if (sub !== undefined) cmd = sub;
  }
  const flags: string[] = [];
  for (let c: Command | null = cmd; c !== null; c = c.parent) {
    for (const o of c.options) if (o.long !== undefined) flags.push(o.long);
  }
  return flags;
}

/**
 * commander's own error text in our form: `flightrec: unknown command 'qurey' (did you mean
 * query?)` instead of `error: unknown command 'qurey'` and a second `(Did you mean query?)` line.
 * `suggest` proposes options for an unknown one commander had no suggestion for.
 */
export function commanderErrorText(text: string, suggest?: (flag: string) => readonly string[]): string {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  const [first = 'error', ...rest] = lines;
  const unknown = /^error: unknown option '([^']*)'/.exec(first);
  if (unknown !== null && suggest !== undefined && !rest.some((l) => /did you mean/i.test(l))) {
    const close = suggest(unknown[1]!);
    if (close.length > 0) rest.unshift(`(Did you mean ${close.join(' or ')}?)`);
  }
  const head = first.replace(/^error: /, '');
  const more = rest.map((l) =>
    l
      .trim()
      .replace(/^\((.*)\)$/, '$1')
      .replace(/^Did you mean/, 'did you mean'),
  );
  const line = sanitizeForTerminal([head, ...more.map((m) => `(${m})`)].join(' '));
  return `flightrec: ${redactUrlPasswords(line)}\n`;
}

/** Runs the command line with injected I/O and returns the exit code. */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  let code: number = EXIT.ok;
  try {
    const program = await buildProgram(
      io,
      (c) => {
        code = c;
      },
      argv,
    );
    await program.parseAsync([...argv], { from: 'user' });
    return code;
  } catch (err) {
    // the one place a failed command becomes a message and an exit code
    if (err instanceof CommanderError) return commanderExit(err);
    const { toCliError } = await import('./error-codes.ts');
    const { redactCommandLine } = await import('./db-target.ts');
    const { launcherFor, withLauncher } = await import('./launcher.ts');
    const failure = toCliError(err);
    // the commands it suggests, as they run for the way flightrec was started (npx in a checkout)
    const text = withLauncher(failure.text, launcherFor(io));
    // whatever failed (a driver, a stack trace), no database password reaches stderr
    io.stderr.write(`flightrec: ${redactCommandLine(text, argv, io.env, process.env)}\n`);
    return failure.exitCode;
  }
}

/** The exit code of commander's own errors (it printed them already): 0 for help and version, else 2. */
export function commanderExit(err: CommanderError): number {
  if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') {
    return EXIT.ok;
  }
  return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
}

/**
 * A second signal this soon after the first is the same stop request: the terminal sends Ctrl-C
 * to the whole process group, and a launcher in it (npm for `npx` and `npm start`, a service
 * manager) forwards the one it got as well. Only a later one means "exit at once".
 */
export const REPEATED_SIGNAL_MS = 1000;

/** What the process does with SIGINT/SIGTERM: the first aborts `abort`; a second, later than `repeatMs`, calls `exitNow`. */
export function signalPolicy(
  abort: () => void,
  exitNow: () => void,
  now: () => number = Date.now,
  repeatMs = REPEATED_SIGNAL_MS,
): () => void {
  let first: number | undefined;
  return () => {
    const at = now();
    if (first === undefined) {
      first = at;
      abort();
    } else if (at - first >= repeatMs) {
      exitNow();
    }
  };
}

/** True for the error of a write to a pipe (or socket) whose reader went away. */
export function isClosedPipe(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED' || code === 'ECONNRESET';
}

/** The process entry point used by bin/flightrec.js. */
export async function run(argv: readonly string[]): Promise<void> {
  const { processTitleWithoutPasswords } = await import('./db-target.ts');
  const title = processTitleWithoutPasswords(argv);
  if (title !== undefined) process.title = title;
  const controller = new AbortController();
  let graceful = false;
  const onSignal = signalPolicy(
    () => controller.abort(),
    () => process.exit(130),
  );
  // A reader that goes away (`| head`) is not a failure: the command ends quietly. A long-running
  // one stops cleanly (its database closed), anything else leaves at once; further writes are dropped.
  let readerGone = false;
  const onStreamError = (err: unknown): void => {
    if (!isClosedPipe(err)) throw err;
    if (readerGone) return;
    readerGone = true;
    if (graceful) controller.abort();
    else process.exit(EXIT.ok);
  };
  process.stdout.on('error', onStreamError);
  process.stderr.on('error', onStreamError);
  // A JavaScript signal handler runs only on the event loop, which a long synchronous read never
  // returns to: a reader command with a handler would ignore Ctrl-C until its read ends. So the
  // handlers are installed only by the commands that stop gracefully and do return to the loop
  // (collect, sim, demo, browse): they are the ones that read io.signal. Every other command holds
  // nothing needing cleanup (a read, or a write SQLite rolls back) and keeps the default action.
  const signal = (): AbortSignal => {
    if (!graceful) {
      graceful = true;
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
    }
    return controller.signal;
  };
  const io: CliIo = {
    stdout: process.stdout,
    stderr: process.stderr,
    // on first use: process.stdin is built when first read (a stream for its pipe, file or
    // terminal: about 3 ms of a read's start), and only the browser, demo and db prune use it
    get stdin() {
      return process.stdin;
    },
    env: process.env,
    cwd: process.cwd(),
    now: Date.now,
    get signal() {
      return signal();
    },
  };
  const code = await main(argv, io);
  // a clean stop on a signal is success; the code stays what the command said
  process.exitCode = code;
  // stdout to a pipe is asynchronous: leave only once everything written has reached the OS,
  // then exit even if a library kept a handle open
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  // the handlers stay until the exit: a forwarded copy of the signal arriving now must not kill
  // the process after its clean stop
  process.exit(code);
}

/** Resolves once everything written to `stream` so far has been handed to the OS, or the stream failed or closed. */
export function flushed(stream: NodeJS.WritableStream & { destroyed?: boolean; writable?: boolean }): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed === true || stream.writable === false) {
      resolve();
      return;
    }
    stream.once('error', () => resolve());
    stream.once('close', () => resolve());
    stream.write('', () => resolve());
  });
}
