/**
 * The command line's one error type: a `CliError` carries its exit code and the text `main`
 * prints after `flightrec: `. Commands throw one of these (or let an error of another layer
 * through: `error-codes.ts` maps those); the one catch in `main` prints and returns the code.
 */
import { sanitizeForTerminal } from '../api/safe-text.ts';

/** Options of a CliError. */
export interface CliErrorOptions {
  readonly cause?: unknown;
  /** the text to print, already safe for a terminal (a filter's caret display); default: the sanitized message */
  readonly text?: string;
}

/** An error the user sees as `flightrec: TEXT` (no stack trace), ending the command with `exitCode`. */
export class CliError extends Error {
  override readonly name: string = 'CliError';
  /** the exit code of the command (docs/cli.md, "Exit codes") */
  readonly exitCode: number;
  /** what `main` prints after `flightrec: `, safe for a terminal */
  readonly text: string;

  constructor(message: string, exitCode: number, options: CliErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.exitCode = exitCode;
    this.text = options.text ?? sanitizeForTerminal(message);
  }
}

/** Bad usage, bad config, invalid filter or order_by: exit code 2. */
export class UsageError extends CliError {
  override readonly name: string = 'UsageError';

  constructor(message: string, options: CliErrorOptions = {}) {
    super(message, 2, options);
  }
}

/** A runtime failure the user should see without a stack trace: exit code 1. */
export class RuntimeError extends CliError {
  override readonly name: string = 'RuntimeError';

  constructor(message: string, options: CliErrorOptions = {}) {
    super(message, 1, options);
  }
}

/** An error no layer expected (a bug): exit code 1, printed with its stack. */
export class UnexpectedError extends CliError {
  override readonly name: string = 'UnexpectedError';

  constructor(err: unknown) {
    const detail = err instanceof Error ? (err.stack ?? err.message) : String(err);
    super(`unexpected error: ${detail}`, 1, { cause: err });
  }
}
