/**
 * What `t` accepts: RFC 3339, `latest` or `now`, a time of day on the cursor's date (`10:03`,
 * `10:03:20`, UTC), and relative forms: `-5m` or `5m` (that long before the latest poll),
 * `+5m` (after the first poll). Pure: the recorded range is passed in.
 */
import { parseTimestamp } from '../api/codec/timestamp.ts';

const NS: Readonly<Record<string, bigint>> = {
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
  d: 86_400_000_000_000n,
  w: 604_800_000_000_000n,
};
const DAY = NS['d'] as bigint;

/** A time the browser could not understand, with what it accepts. */
export class TimeInputError extends Error {
  override readonly name = 'TimeInputError';
}

/** Parses `1h30m`, `5m`, `2d`, `500ms` into nanoseconds; undefined when it is not a duration. */
export function parseSpan(text: string): bigint | undefined {
  if (!/^(\d+(ms|s|m|h|d|w))+$/.test(text)) return undefined;
  let total = 0n;
  for (const m of text.matchAll(/(\d+)(ms|s|m|h|d|w)/g)) total += BigInt(m[1] as string) * (NS[m[2] as string] as bigint);
  return total;
}

/** The recorded range the relative forms refer to, and the cursor's instant (for times of day). */
export interface TimeContext {
  readonly first: bigint;
  readonly latest: bigint;
  readonly cursor: bigint;
}

/** Parses what was typed after `t` into an instant (ns); throws TimeInputError. */
export function parseTimeInput(text: string, ctx: TimeContext): bigint {
  const t = text.trim();
  if (t === '') throw new TimeInputError('type a time: RFC 3339, latest, 10:03, -5m (before the latest poll) or +5m (after the first)');
  if (t === 'now' || t === 'latest') return ctx.latest;
  if (t === 'first' || t === 'start') return ctx.first;
  if (/^\d{4}-\d{2}-\d{2}[Tt ]/.test(t)) {
    try {
      return parseTimestamp(t.replace(' ', 'T'));
    } catch (err) {
      throw new TimeInputError((err as Error).message);
    }
  }
  const tod = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(t);
  if (tod) {
    const [, h, m, s] = tod;
    const secs = BigInt(Number(h) * 3600 + Number(m) * 60 + Number(s ?? 0));
    if (Number(h) > 23 || Number(m) > 59 || Number(s ?? 0) > 59) throw new TimeInputError(`${t} is not a time of day`);
    const midnight = ctx.cursor - (((ctx.cursor % DAY) + DAY) % DAY);
    return midnight + secs * (NS['s'] as bigint);
  }
  const sign = t[0] === '+' ? 1n : -1n;
  const span = parseSpan(t[0] === '+' || t[0] === '-' ? t.slice(1) : t);
  if (span === undefined) {
    throw new TimeInputError(
      `cannot read ${JSON.stringify(t)}: use RFC 3339 (2026-01-01T10:00:00Z), latest, 10:03, -5m or +5m (units ms s m h d w)`,
    );
  }
  return sign > 0n ? ctx.first + span : ctx.latest - span;
}
