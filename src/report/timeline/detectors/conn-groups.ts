/**
 * Consumer groups going idle: every open connection of the group has had nothing in flight
 * for at least the threshold (young connections idle since they opened do not count against
 * it). The interval starts at the group's last activity (poll time minus the shortest idle
 * duration) and ends at the first poll with activity again.
 */
import { formatHumanDuration } from '../../../api/codec/duration.ts';
import type { DetectorContext } from '../detector.ts';
import { IntervalBook } from '../interval-book.ts';
import { entity } from '../types.ts';
import type { ConnDetector } from './conn-storms.ts';

/** Detects consumer groups whose connections all went idle. */
export function groupDetector(_ctx: DetectorContext): ConnDetector {
  const book = new IntervalBook();
  const idleGroups = new Set<string>();

  return {
    digest(d) {
      if (!d.complete) return;
      for (const id of idleGroups) {
        const g = d.groups.get(id);
        const counted = g.gen === d.gen;
        if (counted && g.idle === g.open && g.long > 0) continue;
        book.end(id, d.frame.time, d.frame.poll.id, {
          open: String(counted ? g.open : 0),
          idle: String(counted ? g.idle : 0),
        });
        idleGroups.delete(id);
      }
      for (const g of d.groups.touched) {
        if (g.idle !== g.open || g.long === 0) continue;
        if (!idleGroups.has(g.key)) {
          idleGroups.add(g.key);
          book.start(g.key, {
            kind: 'connections.group-idle',
            severity: 'warn',
            entity: entity('group', g.key),
            related: g.principal !== '' ? [entity('principal', g.principal)] : [],
            start: d.frame.time - g.minIdle,
            description: '',
            pollId: d.frame.poll.id,
            startedBefore: d.first,
          });
        }
        book.update(g.key, {
          description: `consumer group ${g.key} idle: all ${g.open} connections without requests for ${formatHumanDuration(g.minIdle)} or more`,
          after: { open: String(g.open), idleFor: formatHumanDuration(g.minIdle) },
          pollId: d.frame.poll.id,
        });
      }
    },
    finish() {
      return book.finish();
    },
  };
}
