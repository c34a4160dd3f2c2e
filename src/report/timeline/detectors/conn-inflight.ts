/**
 * In-flight requests stuck longer than a threshold, per broker: the interval starts when the
 * oldest sampled request crossed the threshold and ends at the first poll without any.
 */
import { formatHumanDuration } from '../../../api/codec/duration.ts';
import type { DetectorContext } from '../detector.ts';
import { IntervalBook } from '../interval-book.ts';
import { entity } from '../types.ts';
import { topCounts } from './conn-tracker.ts';
import type { ConnDetector } from './conn-storms.ts';

interface Stuck {
  connections: number;
  longest: bigint;
  apiKeys: Map<string, number>;
  clients: Map<string, number>;
  crossedAt: bigint;
}

/** Detects connections with requests in flight longer than the threshold, per broker. */
export function inFlightDetector(ctx: DetectorContext): ConnDetector {
  const limit = ctx.thresholds.connections.inFlightStuck;
  const book = new IntervalBook();
  const open = new Set<number>();

  return {
    digest(d) {
      const now = new Map<number, Stuck>();
      for (const { row: c, longest, apiKey } of d.stuck) {
        let s = now.get(c.nodeId);
        if (s === undefined)
          now.set(
            c.nodeId,
            (s = { connections: 0, longest: 0n, apiKeys: new Map(), clients: new Map(), crossedAt: d.frame.time }),
          );
        s.connections++;
        if (longest > s.longest) s.longest = longest;
        const crossed = d.frame.time - longest + limit;
        if (crossed < s.crossedAt) s.crossedAt = crossed;
        s.apiKeys.set(String(apiKey), (s.apiKeys.get(String(apiKey)) ?? 0) + 1);
        s.clients.set(c.clientId, (s.clients.get(c.clientId) ?? 0) + 1);
      }
      for (const node of open) {
        if (now.has(node)) continue;
        book.end(String(node), d.frame.time, d.frame.poll.id, { connections: '0' });
        open.delete(node);
      }
      for (const [node, s] of now) {
        const after = {
          connections: String(s.connections),
          longest: formatHumanDuration(s.longest),
          apiKeys: topCounts(s.apiKeys),
          clients: topCounts(s.clients),
        };
        if (!open.has(node)) {
          open.add(node);
          const floor = d.previousTime ?? s.crossedAt;
          book.start(String(node), {
            kind: 'connections.stuck-requests',
            severity: 'warn',
            entity: entity('broker', node),
            start: s.crossedAt > floor ? s.crossedAt : floor,
            description: '',
            before: { threshold: formatHumanDuration(limit) },
            pollId: d.frame.poll.id,
            startedBefore: d.first,
          });
        }
        book.update(String(node), {
          severity: s.longest >= 4n * limit ? 'error' : 'warn',
          description: `broker ${node}: ${s.connections} connections with requests in flight longer than ${formatHumanDuration(limit)} (longest ${formatHumanDuration(s.longest)}; clients ${topCounts(s.clients, 2)})`,
          after,
          pollId: d.frame.poll.id,
        });
      }
    },
    finish() {
      return book.finish();
    },
  };
}
