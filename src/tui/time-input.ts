/**
 * What `t` accepts: the times the screens print, read back. A time of day (`00:04:30`, as every
 * table shows it) is taken on the recording's day at the cursor, or the nearest earlier recorded
 * day that has it; `01-02 00:04:30` and `2026-01-02 00:04:30` name the day too (UTC, as shown);
 * a date (`2026-01-02`) is its midnight; RFC 3339 (`2026-01-01T00:04:30Z`, an offset, a space for
 * the `T`) is that instant; a duration counts from the cursor (`-5m` back, `+30s` forward, `5m`
 * back as on the command line); `now` is the wall clock; `latest` and `first` are the ends of the
 * recording. A leading `≤` or `≥` (the marks of a cut start) is ignored. Pure: the clock and
 * the recorded range are passed in.
 */
import { formatTimestampShort, parseTimestamp } from '../api/codec/timestamp.ts';
import { clampInstant, parseDurationText, TimeTextError } from '../api/time-text.ts';

/** A time the browser could not use, with what it accepts. */
export class TimeInputError extends Error {
  override readonly name = 'TimeInputError';
}

/** The recorded range, the cursor's instant and the wall clock (ns). */
export interface TimeContext {
  readonly first: bigint;
  readonly latest: bigint;
  readonly cursor: bigint;
  /** the wall clock (`now`) */
  readonly now: bigint;
}

const S = 1_000_000_000n;
const DAY = 86_400n * S;
/** Longer input is no time (a paste gone wrong). */
const MAX_LENGTH = 64;

/** The forms `t` accepts, for hints and errors. */
export const TIME_FORMS =
  "00:04:30 (the cursor's day), 01-02 00:04, 2026-01-02, 2026-01-01T00:04:30Z, -5m or +30s (from the cursor), now, latest, first";

/** The hint under an empty time prompt, longest first (the prompt shows the first that fits). */
export const TIME_INPUT_HINTS: readonly string[] = [
  `go to: ${TIME_FORMS}`,
  "00:04:30 (cursor's day), 2026-01-02, RFC 3339, -5m/+30s, latest, first",
  '00:04:30, 2026-01-02, -5m, +30s, latest, first',
];

/** Midnight (UTC) of the day of `t`. */
function dayOf(t: bigint): bigint {
  return t - (((t % DAY) + DAY) % DAY);
}

/** Seconds of a `HH:MM[:SS[.fff]]` text as nanoseconds into the day; undefined when it is not one; throws when out of range. */
function timeOfDay(text: string): bigint | undefined {
  const m = /^([0-9]{1,2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]{1,9}))?)?Z?$/.exec(text);
  if (m === null) return undefined;
  const [, h = '0', min = '0', sec = '0', frac = ''] = m;
  if (Number(h) > 23 || Number(min) > 59 || Number(sec) > 59)
    throw new TimeInputError(`${JSON.stringify(text)} is not a time of day (00:00 to 23:59:59)`);
  return (BigInt(h) * 3600n + BigInt(min) * 60n + BigInt(sec)) * S + BigInt(frac.padEnd(9, '0') || '0');
}

/** A date `YYYY-MM-DD` or `MM-DD` (in `year`) as its midnight, checked to be a real day. */
function dateOf(text: string, year: number): bigint {
  const full = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/.exec(text);
  const short = /^([0-9]{2})-([0-9]{2})$/.exec(text);
  const [y, mo, d] =
    full !== null ? [full[1], full[2], full[3]] : [String(year).padStart(4, '0'), short?.[1], short?.[2]];
  const iso = `${y}-${mo}-${d}T00:00:00Z`;
  try {
    return parseTimestamp(iso);
  } catch {
    throw new TimeInputError(`${JSON.stringify(text)} is not a date`);
  }
}

/** The instant of `ofDay` on the cursor's day, or the nearest earlier recorded day whose instant lies in the recording. */
function onRecordedDay(ofDay: bigint, text: string, ctx: TimeContext): bigint {
  const firstDay = dayOf(ctx.first);
  for (let day = dayOf(ctx.cursor); day >= firstDay; day -= DAY) {
    const t = day + ofDay;
    if (t >= ctx.first && t <= ctx.latest) return t;
  }
  throw new TimeInputError(
    `${text} is not recorded on the cursor's day or before (recorded ${short(ctx.first)} to ${short(ctx.latest)}); with a date: ${dateText(ctx.latest)} ${text}`,
  );
}

const short = (t: bigint): string => formatTimestampShort(t);
const dateText = (t: bigint): string => formatTimestampShort(t).slice(0, 10);

/** Parses what was typed after `t` into an instant (ns); throws TimeInputError saying why not. */
export function parseTimeInput(input: string, ctx: TimeContext): bigint {
  const text = input.trim().replace(/^[≤≥]/, '');
  if (text === '') throw new TimeInputError(`type a time: ${TIME_FORMS}`);
  if (text.length > MAX_LENGTH) throw new TimeInputError(`${text.length} characters is too long for a time`);
  if (text === 'latest') return ctx.latest;
  if (text === 'first') return ctx.first;
  if (text === 'now') return clampInstant(ctx.now);
  const tod = timeOfDay(text);
  if (tod !== undefined) return onRecordedDay(tod, text, ctx);
  // a date and a time as the tables print them: `2026-01-02 00:04:30`, `01-02 00:04:30` (UTC)
  const dated = /^((?:[0-9]{4}-)?[0-9]{2}-[0-9]{2})[ T]([0-9:.]+)$/.exec(text);
  if (dated !== null) {
    const ofDay = timeOfDay(dated[2]!);
    if (ofDay !== undefined) {
      const year = new Date(Number(ctx.cursor / 1_000_000n)).getUTCFullYear();
      return clampInstant(dateOf(dated[1]!, year) + ofDay);
    }
  }
  if (/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(text)) return clampInstant(dateOf(text, 0));
  if (/^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ]/.test(text)) {
    try {
      return clampInstant(parseTimestamp(text.replace(' ', 'T')));
    } catch (err) {
      throw new TimeInputError((err as Error).message);
    }
  }
  const sign = text[0] === '+' ? 1n : -1n;
  const duration = text[0] === '+' || text[0] === '-' ? text.slice(1) : text;
  try {
    return clampInstant(ctx.cursor + sign * parseDurationText(duration));
  } catch (err) {
    if (!(err instanceof TimeTextError)) throw err;
    throw new TimeInputError(`cannot read ${JSON.stringify(text)} as a time: use ${TIME_FORMS}`);
  }
}

/** Where the cursor lands for an instant outside the recording, in words; undefined inside it. */
export function outsideRecording(at: bigint, ctx: TimeContext): string | undefined {
  if (at > ctx.latest) return `${short(at)} is after the latest poll: goes to the latest, ${short(ctx.latest)}`;
  if (at < ctx.first) return `${short(at)} is before the first poll: goes to the first, ${short(ctx.first)}`;
  return undefined;
}
