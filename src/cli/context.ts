/** What every command receives: injected I/O, environment and clock, so tests run commands in-process. */
import type { Reporter } from '../collector/output.ts';
import type { SchedulerDeps } from '../collector/schedule.ts';

/** A writable text stream (process.stdout or a test buffer): text, or its UTF-8 bytes in chunks of whole characters. */
export interface TextSink {
  write(chunk: string | Uint8Array): unknown;
  /** true when it is a terminal */
  readonly isTTY?: boolean;
  /** terminal width and height, when a terminal */
  readonly columns?: number;
  readonly rows?: number;
}

/** Everything a command may touch of the outside world. */
export interface CliIo {
  readonly stdout: TextSink;
  readonly stderr: TextSink;
  /** the environment (process.env in production) */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** working directory for relative paths */
  readonly cwd: string;
  /** the current time in milliseconds (Date.now in production) */
  readonly now: () => number;
  /** aborted on SIGINT/SIGTERM (long-running commands stop cleanly); in `run()`, reading it installs the
   *  signal handlers: a command that never reads it ends at once on a signal (docs/cli.md) */
  readonly signal: AbortSignal;
  /** stdin, for the TUI (process.stdin in production) */
  readonly stdin?: NodeJS.ReadStream;
  /** replaces the collector's round lines (the demo draws one progress line instead) */
  readonly collectorReporter?: Reporter;
  /** the cron task factory of `collect` (node-cron in production; tests drive schedules with a fake clock) */
  readonly createCronTask?: SchedulerDeps['createTask'];
}

export { CliError, RuntimeError, UsageError } from './errors.ts';

/** Exit codes of the command-line contract (docs/cli.md). */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  pollsFailed: 3,
  /** diff: there are differences */
  differences: 1,
} as const;
