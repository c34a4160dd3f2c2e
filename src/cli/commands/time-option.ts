/** Time and duration flags: a bad value is a usage error naming the flag (`--at: ...`). */
import { parseTimeArg, TimeArgError } from '../../collector/time-args.ts';
import type { CliIo } from '../context.ts';
import { UsageError } from '../errors.ts';

/**
 * What to add to a time that is nearly one: a date alone (`2026-01-01`), a time of day without
 * seconds or zone (`2026-01-01T10:03`). Undefined for anything else.
 */
export function timeHint(text: string): string | undefined {
  const t = text.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(t))
    return `a date alone is not an instant: add a time and a zone, e.g. ${t}T00:00:00Z for midnight UTC`;
  const m = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2})(:\d{2}(?:\.\d+)?)?$/.exec(t);
  if (m !== null)
    return `add ${m[3] === undefined ? 'seconds and ' : ''}a zone, e.g. ${m[1]}T${m[2]}${m[3] ?? ':00'}Z for UTC`;
  return undefined;
}

/**
 * Runs `parse` on a flag's value; a TimeArgError becomes a usage error naming `flag`, with what
 * to add when `text` (the value as typed) is nearly a time.
 */
export function flagValue<T>(flag: string, parse: () => T, text?: string): T {
  try {
    return parse();
  } catch (err) {
    if (!(err instanceof TimeArgError)) throw err;
    const hint = text === undefined ? undefined : timeHint(text);
    throw new UsageError(`${flag}: ${err.message}${hint === undefined ? '' : `\nhint: ${hint}`}`, { cause: err });
  }
}

/** Parses a time option (RFC 3339, `now`, `-2h`, `30m`); undefined when not given. */
export function timeOption(flag: string, text: string | undefined, io: CliIo): bigint | undefined {
  if (text === undefined) return undefined;
  return flagValue(flag, () => parseTimeArg(text, io.now()), text);
}
