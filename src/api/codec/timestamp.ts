import { CodecError, quoteForError } from './errors.ts';

/** The value the server writes for an unset timestamp: the Unix epoch. */
export const UNSET_TIMESTAMP = 0n;

const NANOS_PER_SECOND = 1_000_000_000n;
const NANOS_PER_MS = 1_000_000n;
const SECONDS_PER_DAY = 86_400;
/** Seconds since the epoch of 0001-01-01T00:00:00Z and of 10000-01-01T00:00:00Z. */
const MIN_SECONDS = -62_135_596_800n;
const END_SECONDS = 253_402_300_800n;

const RFC3339 =
  /^([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]+))?(?:([Zz])|([+-])([0-9]{2}):([0-9]{2}))$/;

/** Days from 1970-01-01 to the given proleptic Gregorian date (H. Hinnant's algorithm). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = (month + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/** Inverse of daysFromCivil. */
function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/**
 * Parses any RFC 3339 date-time (fraction of 0..9 digits, `Z`/`z` or `±hh:mm`, `T` or `t`)
 * into nanoseconds since the epoch. A leap second (`:60`) is accepted and clamped to the last
 * nanosecond of second 59 of that minute, so it sorts after every real instant of the minute.
 * The instant must lie within 0001-01-01T00:00:00Z .. 9999-12-31T23:59:59.999999999Z.
 */
export function parseTimestamp(text: string): bigint {
  const fail = (why: string): never => {
    throw new CodecError('syntax', `invalid timestamp ${quoteForError(text)}: ${why}`);
  };
  const m = RFC3339.exec(text);
  if (m === null) fail('expected RFC 3339 like 2025-09-01T10:22:54Z or 2025-09-01T12:22:54.5+02:00');
  const [, ys, mos, ds, hs, mis, ss, frac = '', zulu, sign, ohs, oms] = m as RegExpExecArray;
  const [year, month, day, hour, minute, second] = [ys, mos, ds, hs, mis, ss].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (frac.length > 9) fail('more than 9 fraction digits');
  if (year < 1) fail('year 0000 is out of range (0001..9999)');
  if (month < 1 || month > 12) fail(`month ${mos} out of range (01..12)`);
  if (day < 1 || day > daysInMonth(year, month)) {
    fail(`day ${ds} out of range for ${ys}-${mos} (01..${daysInMonth(year, month)})`);
  }
  if (hour > 23) fail(`hour ${hs} out of range (00..23)`);
  if (minute > 59) fail(`minute ${mis} out of range (00..59)`);
  if (second > 60) fail(`second ${ss} out of range (00..60)`);
  let offsetSeconds = 0;
  if (zulu === undefined) {
    const oh = Number(ohs);
    const om = Number(oms);
    if (oh > 23) fail(`offset hour ${ohs} out of range (00..23)`);
    if (om > 59) fail(`offset minute ${oms} out of range (00..59)`);
    offsetSeconds = (sign === '-' ? -1 : 1) * (oh * 3600 + om * 60);
  }
  const leap = second === 60;
  const wholeSeconds =
    daysFromCivil(year, month, day) * SECONDS_PER_DAY +
    hour * 3600 +
    minute * 60 +
    (leap ? 59 : second) -
    offsetSeconds;
  const seconds = BigInt(wholeSeconds);
  if (seconds < MIN_SECONDS || seconds >= END_SECONDS) fail('instant out of range (0001-01-01 .. 9999-12-31 UTC)');
  const nanos = leap ? 999_999_999n : BigInt(frac.padEnd(9, '0'));
  return seconds * NANOS_PER_SECOND + nanos;
}

/** Splits nanoseconds into UTC calendar fields, refusing instants outside years 0001..9999. */
function toFields(nanos: bigint): { date: string; time: string; fraction: bigint } {
  const seconds = nanos >= 0n ? nanos / NANOS_PER_SECOND : -((-nanos + NANOS_PER_SECOND - 1n) / NANOS_PER_SECOND);
  if (seconds < MIN_SECONDS || seconds >= END_SECONDS) {
    throw new CodecError('range', `timestamp ${nanos}ns is outside years 0001..9999`);
  }
  const fraction = nanos - seconds * NANOS_PER_SECOND;
  const secs = Number(seconds);
  const days = Math.floor(secs / SECONDS_PER_DAY);
  const inDay = secs - days * SECONDS_PER_DAY;
  const { year, month, day } = civilFromDays(days);
  const p2 = (v: number): string => String(v).padStart(2, '0');
  return {
    date: `${String(year).padStart(4, '0')}-${p2(month)}-${p2(day)}`,
    time: `${p2(Math.floor(inDay / 3600))}:${p2(Math.floor((inDay % 3600) / 60))}:${p2(inDay % 60)}`,
    fraction,
  };
}

/** Two-digit forms of 0..99. */
const TWO_DIGITS: readonly string[] = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));
/** The epoch as formatTimestamp writes it (the server's "unset"). */
const EPOCH_TEXT = '1970-01-01T00:00:00.000000000Z';
/** End of year 9999 in nanoseconds. */
const END_NANOS = END_SECONDS * NANOS_PER_SECOND;
/** The date part (`YYYY-MM-DDT`) of the day formatted last: timestamps of one answer share few days. */
let lastDay = Number.NaN;
let lastDate = '';

/** Formats as the server writes timestamps: UTC with exactly 9 fraction digits. */
export function formatTimestamp(nanos: bigint): string {
  if (nanos === 0n) return EPOCH_TEXT;
  if (nanos < 0n || nanos >= END_NANOS) {
    const { date, time, fraction } = toFields(nanos);
    return `${date}T${time}.${fraction.toString().padStart(9, '0')}Z`;
  }
  // after the epoch: the decimal digits are the seconds and the nanoseconds (no bigint division per value)
  const digits = nanos.toString();
  const n = digits.length;
  const secs = n > 9 ? Number(digits.slice(0, n - 9)) : 0;
  const fraction = n > 9 ? digits.slice(n - 9) : digits.padStart(9, '0');
  const days = Math.floor(secs / SECONDS_PER_DAY);
  const inDay = secs - days * SECONDS_PER_DAY;
  if (days !== lastDay) {
    const { year, month, day } = civilFromDays(days);
    lastDate = `${String(year).padStart(4, '0')}-${TWO_DIGITS[month]!}-${TWO_DIGITS[day]!}T`;
    lastDay = days;
  }
  const hour = Math.floor(inDay / 3600);
  const minute = Math.floor((inDay - hour * 3600) / 60);
  const second = inDay - hour * 3600 - minute * 60;
  return `${lastDate}${TWO_DIGITS[hour]!}:${TWO_DIGITS[minute]!}:${TWO_DIGITS[second]!}.${fraction}Z`;
}

/** RFC 3339 UTC for humans: whole seconds, plus milliseconds (truncated) when they are not zero. */
export function formatTimestampShort(nanos: bigint): string {
  const { date, time, fraction } = toFields(nanos);
  const millis = fraction / NANOS_PER_MS;
  return millis === 0n ? `${date}T${time}Z` : `${date}T${time}.${millis.toString().padStart(3, '0')}Z`;
}

/** True for the epoch, which the server writes for "not set" (e.g. closeTime of open connections). */
export function isUnsetTimestamp(nanos: bigint): boolean {
  return nanos === UNSET_TIMESTAMP;
}

/** Converts epoch milliseconds (e.g. Date.now()) to nanoseconds; a fraction of a ms is kept to the ns. */
export function timestampFromMillis(ms: number): bigint {
  if (!Number.isFinite(ms)) throw new CodecError('range', `timestamp of ${ms} ms is not a finite number`);
  const whole = Math.floor(ms);
  const subNanos = Math.round((ms - whole) * 1e6);
  return BigInt(whole) * NANOS_PER_MS + BigInt(subNanos);
}

/** Converts nanoseconds to epoch milliseconds, rounding down (floor, also before 1970). */
export function timestampToMillis(ns: bigint): number {
  const floored = ns >= 0n ? ns / NANOS_PER_MS : -((-ns + NANOS_PER_MS - 1n) / NANOS_PER_MS);
  return Number(floored);
}
