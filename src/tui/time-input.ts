/**
 * What `t` accepts: the time language of the command line (src/api/time-text.ts), with the same
 * meanings: RFC 3339, `now`, a UTC time of day (`10:03`: the latest such instant at or before
 * now), a duration ago (`-5m`, `5m`: that long before now). The browser adds two words for the
 * ends of the recording: `latest` (the latest poll, like `T`) and `first`. Pure: the clock and
 * the recorded range are passed in.
 */
import { parseTimeText, TIME_FORMS, TimeTextError } from '../api/time-text.ts';

/** A time the browser could not understand, with what it accepts. */
export class TimeInputError extends Error {
  override readonly name = 'TimeInputError';
}

/** The recorded range, the cursor's instant and the wall clock (ns). */
export interface TimeContext {
  readonly first: bigint;
  readonly latest: bigint;
  readonly cursor: bigint;
  /** the wall clock, which relative forms and times of day count from */
  readonly now: bigint;
}

/** The hint under an empty time prompt. */
export const TIME_INPUT_HINT =
  'as on the command line: 2026-01-01T10:03:00Z, 10:03 (UTC), -5m (before now), now; or latest, first';

/** Parses what was typed after `t` into an instant (ns); throws TimeInputError. */
export function parseTimeInput(text: string, ctx: TimeContext): bigint {
  const t = text.trim();
  if (t === 'latest') return ctx.latest;
  if (t === 'first') return ctx.first;
  if (t === '') throw new TimeInputError(`type a time: ${TIME_FORMS}; or latest, first`);
  try {
    return parseTimeText(t, ctx.now);
  } catch (err) {
    throw new TimeInputError(err instanceof TimeTextError ? err.message : String(err));
  }
}

/** Where the cursor lands for an instant outside the recording, in words; undefined inside it. */
export function outsideRecording(at: bigint, ctx: TimeContext): string | undefined {
  if (at > ctx.latest) return 'after the latest poll: goes to the latest';
  if (at < ctx.first) return 'before the first poll: goes to the first';
  return undefined;
}
