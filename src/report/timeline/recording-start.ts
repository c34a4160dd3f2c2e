/**
 * No event starts before the recording did. A detector may infer a start from values the
 * cluster reports about the past (a refresh timestamp, a connection's open time, an idle
 * duration); when that start lies before the first poll that could have seen it, the event is
 * moved to that poll and marked `startedBefore`, and its description says so.
 */
import type { TimelineEvent } from './types.ts';

/** Appended to the description of an event moved to the start of the recording. */
export const BEFORE_RECORDING = ' (began before the recording)';

/** The later of two instants; undefined counts as no bound. */
export function laterOf(a: bigint | undefined, b: bigint | undefined): bigint | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return a > b ? a : b;
}

/** The event, moved to `floor` (and marked) when it starts before it; unchanged otherwise. */
export function clipToRecording(e: TimelineEvent, floor: bigint | undefined): TimelineEvent {
  if (floor === undefined || e.start >= floor) return e;
  const end = e.end === null ? null : e.end < floor ? floor : e.end;
  const description = e.description.endsWith(BEFORE_RECORDING) ? e.description : `${e.description}${BEFORE_RECORDING}`;
  return { ...e, start: floor, end, startedBefore: true, description };
}

/**
 * The event, marked `startedBefore` when it is an interval starting at `firstRead`, the first
 * frame its detector read of a history that goes further back: it was so when the reading began.
 */
export function markCutByWindow(e: TimelineEvent, firstRead: bigint): TimelineEvent {
  if (e.startedBefore || e.type !== 'interval' || e.start !== firstRead) return e;
  return { ...e, startedBefore: true };
}
