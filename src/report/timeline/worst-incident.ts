/**
 * The worst incident of a timeline: the error event with the widest impact, where the impact of
 * an error event is the number of distinct entities (its own included) whose events of severity
 * warn or above start while it lasts. A broker outage that takes tasks, members and clients down
 * with it outranks a single faulted task. Ties go to the longer event, then to the earlier one.
 */
import { severityRank, type TimelineEvent } from './types.ts';

/** The worst incident and its impact. */
export interface WorstIncident {
  readonly event: TimelineEvent;
  /** distinct entities with warn-or-above events starting within the event (its own included) */
  readonly impact: number;
}

/** The end used for an event's extent: its end, or `until` while ongoing; a point is its start. */
function endOf(e: TimelineEvent, until: bigint): bigint {
  return e.type === 'point' ? e.start : (e.end ?? until);
}

/** The error event with the widest impact; undefined when the timeline holds no error event. */
export function worstIncident(events: readonly TimelineEvent[]): WorstIncident | undefined {
  const serious = events.filter((e) => severityRank(e.severity) >= severityRank('warn'));
  const until = serious.reduce((m, e) => (endOf(e, e.start) > m ? endOf(e, e.start) : m), 0n);
  // starts sorted once; each error event scans the events starting within it
  const byStart = [...serious].sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  let best: WorstIncident | undefined;
  let bestSpan = 0n;
  for (const e of serious) {
    if (e.severity !== 'error') continue;
    const end = endOf(e, until);
    const touched = new Set<string>([e.entity]);
    for (const other of byStart) {
      if (other.start < e.start) continue;
      if (other.start > end) break;
      touched.add(other.entity);
    }
    const span = end - e.start;
    const better =
      best === undefined ||
      touched.size > best.impact ||
      (touched.size === best.impact && (span > bestSpan || (span === bestSpan && e.start < best.event.start)));
    if (better) {
      best = { event: e, impact: touched.size };
      bestSpan = span;
    }
  }
  return best;
}

/** A stable key of an event (kind, entity, start), to find it again in a sorted or filtered list. */
export function eventKey(e: Pick<TimelineEvent, 'kind' | 'entity' | 'start'>): string {
  return `${e.kind}\u0000${e.entity}\u0000${e.start}`;
}
