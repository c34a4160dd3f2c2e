/**
 * The world start of a simulated cluster (`sim --start`, `collect --simulate --start`): a time
 * argument (RFC 3339, `now`, `-25m`), or the command's default when the flag is left out.
 */
import { parseTimeArg } from '../collector/time-args.ts';
import { startTimeProblem } from '../sim/time.ts';
import { flagValue } from './commands/time-option.ts';
import { UsageError } from './context.ts';

/** Parses `--start`; `fallback` (ns since the epoch) when undefined. Bad times are usage errors naming the flag. */
export function simStart(text: string | undefined, fallback: bigint, nowMs: number): bigint {
  if (text === undefined) return fallback;
  const ns = flagValue('--start', () => parseTimeArg(text, nowMs), text);
  const problem = startTimeProblem(ns);
  if (problem !== undefined) throw new UsageError(`--start: ${JSON.stringify(text)} ${problem}`);
  return ns;
}
