/**
 * What changed per connection between two polls, for the connections view: the report's one
 * definition of new, closed, vanished, moving and idle (src/report/connection-changes.ts), as a
 * kind per row (a connection both new and closed is drawn closed) and the counts of each set.
 */
import type { KafkaConnection } from '../../api/schema/connection.ts';
import { compareConnections, connectionChangeCounts, type ConnectionChange } from '../../report/connection-changes.ts';
import type { ChangeKind } from '../glyphs.ts';

/** Classifies each connection of `current` against `previous` (undefined: no previous poll). */
export function classifyConnections(
  current: readonly KafkaConnection[],
  previous: readonly KafkaConnection[] | undefined,
): { kinds: Map<string, ChangeKind>; gone: KafkaConnection[]; counts: Record<ConnectionChange, number> } {
  const changes = compareConnections(previous, current);
  const kinds = new Map<string, ChangeKind>();
  // without a previous poll nothing is known to have changed
  for (const c of current) kinds.set(c.uid, 'idle');
  for (const uid of changes.moving) kinds.set(uid, 'moving');
  for (const uid of changes.new) kinds.set(uid, 'new');
  for (const uid of changes.closed) kinds.set(uid, 'closed');
  for (const uid of changes.vanished) kinds.set(uid, 'vanished');
  // vanished connections stay visible once, marked so
  const vanished = new Set(changes.vanished);
  const gone = (previous ?? []).filter((c) => vanished.delete(c.uid));
  return { kinds, gone, counts: connectionChangeCounts(changes) };
}
