/**
 * Times in tables, shrunk to what differs between the rows: `00:11:30` when every row is on the
 * same day (the header shows the date), `01-02 00:11:30` within a year, the full date otherwise.
 * Whole seconds: the detail views and the exports keep the exact instant. Pure.
 */
import { formatTimestampShort } from '../api/codec/timestamp.ts';

/** How a grid writes its times. */
export type TimeFormat = (ns: bigint) => string;

/** `2026-01-01 00:11:30` (UTC, whole seconds). */
function dateTime(ns: bigint): string {
  return formatTimestampShort(ns)
    .replace('T', ' ')
    .replace(/(\.\d+)?Z$/, '');
}

/** The shortest format that tells the given instants (and `also`, e.g. the cursor) apart by date. */
export function compactTimeFormat(times: Iterable<bigint>, also?: bigint): TimeFormat {
  const days = new Set<string>();
  const years = new Set<string>();
  const note = (t: bigint): void => {
    const d = dateTime(t);
    days.add(d.slice(0, 10));
    years.add(d.slice(0, 4));
  };
  for (const t of times) note(t);
  if (also !== undefined) note(also);
  if (days.size <= 1) return (ns) => dateTime(ns).slice(11);
  if (years.size <= 1) return (ns) => dateTime(ns).slice(5);
  return dateTime;
}
