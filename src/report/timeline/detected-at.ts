/**
 * Revisions made visible: an event whose start lies before the previous poll of the operation
 * that decided it was dated back (an earlier reading of the same history could not show it with
 * that start); it carries `detectedAt`, the time of the deciding poll.
 */
import type { PollRow } from '../../api/schema/resources.ts';
import { pollTime, type TimelineEvent } from './types.ts';

/** The events, each dated-back one with `detectedAt` set (events that have it already are kept as they are). */
export function markDetectedAt(events: readonly TimelineEvent[], polls: readonly PollRow[]): TimelineEvent[] {
  // per poll id: its time, and the time of the previous successful poll of the same operation and target
  const at = new Map<bigint, { time: bigint; previous: bigint | undefined }>();
  const lastOf = new Map<string, bigint>();
  for (const p of polls) {
    const key = `${p.operation}\u0000${p.target}`;
    const time = pollTime(p);
    at.set(p.id, { time, previous: lastOf.get(key) });
    if (p.outcome === 'ok') lastOf.set(key, time);
  }
  return events.map((e) => {
    if (e.detectedAt !== undefined) return e;
    const decided = at.get(e.evidence.pollIds[0] ?? -1n);
    if (decided === undefined || decided.previous === undefined || e.start >= decided.previous) return e;
    return { ...e, detectedAt: decided.time };
  });
}
