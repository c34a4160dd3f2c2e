/**
 * What changed per connection between two polls: new, closed (or gone), counters moving, idle.
 * A small adapter over the rows the reader returns; src/report should own this classification
 * (k9s-style "delta" colouring) and the TUI would then only call it.
 */
import type { KafkaConnection } from '../../api/schema/connection.ts';
import type { ChangeKind } from '../glyphs.ts';

const counters = (c: KafkaConnection): string => {
  const t = c.totalRequestStatistics;
  return `${t.requestCount}/${t.fetchBytes}/${t.produceBytes}/${t.produceBatchCount}`;
};

const isClosed = (c: KafkaConnection): boolean => c.state.endsWith('_CLOSED') || c.closeTime !== 0n;

/** Classifies each connection of `current` against `previous` (undefined: no previous poll). */
export function classifyConnections(
  current: readonly KafkaConnection[],
  previous: readonly KafkaConnection[] | undefined,
): { kinds: Map<string, ChangeKind>; gone: KafkaConnection[] } {
  const kinds = new Map<string, ChangeKind>();
  const before = new Map<string, KafkaConnection>();
  for (const c of previous ?? []) before.set(c.uid, c);
  for (const c of current) {
    const old = before.get(c.uid);
    if (isClosed(c) && (old === undefined || !isClosed(old))) kinds.set(c.uid, 'closed');
    else if (old === undefined) kinds.set(c.uid, previous === undefined ? 'idle' : 'new');
    else kinds.set(c.uid, counters(old) !== counters(c) ? 'moving' : 'idle');
  }
  const gone: KafkaConnection[] = [];
  if (previous !== undefined) {
    const now = new Set(current.map((c) => c.uid));
    for (const c of previous) {
      if (now.has(c.uid) || isClosed(c)) continue;
      gone.push(c);
      kinds.set(c.uid, 'closed');
    }
  }
  return { kinds, gone };
}
