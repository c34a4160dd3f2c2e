/**
 * The exit code and text of every error a command may end with: a CliError says its own; the
 * errors of the other layers that mean bad input (config, a bad --db URL or password file,
 * time arguments, filters, option combinations) are usage errors (exit 2); the store's errors
 * (cannot open, wrong version, bad query, damaged data) are runtime failures (exit 1); anything
 * else is unexpected (exit 1, printed with its stack). `main` loads this module only when a command failed.
 */
import { RecordingError } from '../collector/assemble.ts';
import { ConfigError } from '../collector/config-error.ts';
import { TimeArgError } from '../collector/time-args.ts';
import {
  CorruptDataError,
  DatabaseOpenError,
  DatabaseVersionError,
  DbTargetError,
  HistoryQueryError,
  PgError,
} from '../db/errors.ts';
import { FilterError } from '../filter/errors.ts';
import { DiffOptionsError } from '../report/diff.ts';
import { QueryOptionsError } from '../report/query.ts';
import { ThresholdError } from '../report/timeline/thresholds.ts';
import { TrendsOptionsError } from '../report/trends/types.ts';
import { CliError, RuntimeError, UnexpectedError, UsageError } from './errors.ts';

/** An error class of another layer. */
type ErrorClass = abstract new (...args: never[]) => Error;

/** Errors of other layers that mean the user asked for something that cannot be done as asked: exit 2. */
const USAGE: readonly ErrorClass[] = [
  ConfigError,
  DbTargetError,
  TimeArgError,
  QueryOptionsError,
  DiffOptionsError,
  TrendsOptionsError,
  ThresholdError,
];

/**
 * Errors of the store whose message names the file and the cause, and a recording's: exit 1. PgError: PostgreSQL
 * refused a statement or the connection failed (its message has no password), not a flightrec bug.
 */
const RUNTIME: readonly ErrorClass[] = [
  DatabaseOpenError,
  DatabaseVersionError,
  HistoryQueryError,
  CorruptDataError,
  PgError,
  // a recording that could not go on or end as it should (its message names the store or the address)
  RecordingError,
];

function isOneOf(err: unknown, classes: readonly ErrorClass[]): err is Error {
  return classes.some((c) => err instanceof c);
}

/** The CliError `err` ends a command with (itself when it is one). */
export function toCliError(err: unknown): CliError {
  if (err instanceof CliError) return err;
  // a filter or order_by error is printed with its caret display (already safe for a terminal)
  if (err instanceof FilterError) return new UsageError(err.message, { cause: err, text: err.render() });
  if (isOneOf(err, USAGE)) return new UsageError(err.message, { cause: err });
  if (isOneOf(err, RUNTIME)) return new RuntimeError(err.message, { cause: err });
  return new UnexpectedError(err);
}
