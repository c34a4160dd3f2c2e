/**
 * One collection gap per outage: the per-stream `collection.gap` warnings (one per operation and
 * target) that overlap in time are one pause of the collector or the cluster; they become one
 * event that lists the streams in its evidence (`targets`) and relates to each of them.
 */
import { formatHumanDuration } from '../../../api/codec/duration.ts';
import type { TimelineEvent } from '../types.ts';

const MAX_LISTED = 20;

/** The events with overlapping warn-level `collection.gap` intervals merged, one per outage. */
export function mergeCollectionGaps(events: readonly TimelineEvent[], until: bigint): TimelineEvent[] {
  const gaps = events
    .filter((e) => e.kind === 'collection.gap' && e.severity === 'warn')
    .sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  if (gaps.length < 2) return [...events];
  const others = events.filter((e) => !(e.kind === 'collection.gap' && e.severity === 'warn'));
  const groups: TimelineEvent[][] = [];
  let end = -1n;
  for (const g of gaps) {
    const gEnd = g.end ?? until;
    const last = groups[groups.length - 1];
    if (last !== undefined && g.start <= end) {
      last.push(g);
      if (gEnd > end) end = gEnd;
    } else {
      groups.push([g]);
      end = gEnd;
    }
  }
  return [
    ...others,
    ...groups.map((group) => (group.length === 1 ? (group[0] as TimelineEvent) : merged(group, until))),
  ];
}

function merged(group: readonly TimelineEvent[], until: bigint): TimelineEvent {
  const first = group[0] as TimelineEvent;
  const ongoing = group.some((g) => g.end === null);
  let end = first.end ?? until;
  for (const g of group) if ((g.end ?? until) > end) end = g.end ?? until;
  const entities = [...new Set(group.map((g) => g.entity))];
  const ops = [...new Set(entities.map((e) => e.split('/')[1] ?? e))];
  const listed =
    entities.slice(0, MAX_LISTED).join(', ') +
    (entities.length > MAX_LISTED ? `, +${entities.length - MAX_LISTED} more` : '');
  const pollIds = [...new Set(group.flatMap((g) => g.evidence.pollIds))].slice(0, 6);
  return {
    ...first,
    entity: ops.length === 1 ? `api/${ops[0]}` : 'api/collector',
    related: entities,
    end: ongoing ? null : end,
    startedBefore: group.some((g) => g.startedBefore),
    description: `no poll of ${entities.length} targets (${ops.join(', ')}) for ${formatHumanDuration(end - first.start)}${ongoing ? ' so far' : ''}: one pause of the collection`,
    evidence: { before: first.evidence.before, during: { targets: listed }, after: {}, pollIds },
  };
}
