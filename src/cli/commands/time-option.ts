/** Time and duration flags: a bad value is a usage error naming the flag (`--at: ...`). */
import { parseTimeArg, TimeArgError } from '../../collector/time-args.ts';
import type { CliIo } from '../context.ts';
import { UsageError } from '../errors.ts';

/** Runs `parse` on a flag's value; a TimeArgError becomes a usage error naming `flag`. */
export function flagValue<T>(flag: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof TimeArgError) throw new UsageError(`${flag}: ${err.message}`, { cause: err });
    throw err;
  }
}

/** Parses a time option (RFC 3339, `now`, `-2h`, `30m`); undefined when not given. */
export function timeOption(flag: string, text: string | undefined, io: CliIo): bigint | undefined {
  if (text === undefined) return undefined;
  return flagValue(flag, () => parseTimeArg(text, io.now()));
}
