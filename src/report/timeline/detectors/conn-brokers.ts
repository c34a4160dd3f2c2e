/**
 * A broker's open connections dropping to zero (it had some before): from the poll that
 * first lists none until its first new connection opens.
 */
import type { DetectorContext } from '../detector.ts';
import { IntervalBook } from '../interval-book.ts';
import { entity } from '../types.ts';
import type { ConnDetector } from './conn-storms.ts';

interface Broker {
  count: number;
  empty: boolean;
}

/** Detects brokers whose connections drop to zero. */
export function brokerDetector(ctx: DetectorContext): ConnDetector {
  const min = ctx.thresholds.connections.brokerMinConnections;
  const book = new IntervalBook();
  const brokers = new Map<string, Broker>();

  return {
    digest(d) {
      if (!d.complete) return;
      for (const t of d.brokers.touched) if (!brokers.has(t.key)) brokers.set(t.key, { count: t.open, empty: false });
      for (const [key, b] of brokers) {
        const tally = d.brokers.get(key);
        const n = tally.gen === d.gen ? tally.open : 0;
        const node = Number(key);
        if (n === 0 && !b.empty && b.count >= min) {
          b.empty = true;
          const vanished = d.vanished.filter((c) => c.nodeId === node).length;
          book.start(key, {
            kind: 'connections.broker-empty',
            severity: 'error',
            entity: entity('broker', node),
            start: d.frame.time,
            description: `broker ${node} has no open connection (had ${b.count}${vanished > 0 ? `, ${vanished} vanished without closing` : ''})`,
            before: { open: String(b.count) },
            after: { open: '0' },
            pollId: d.frame.poll.id,
          });
        } else if (n > 0 && b.empty) {
          b.empty = false;
          const opened = tally.firstOpen;
          const end = d.previousTime !== undefined && opened < d.previousTime ? d.frame.time : opened;
          book.end(key, end, d.frame.poll.id, { open: String(n) });
        }
        b.count = n;
      }
    },
    finish() {
      return book.finish();
    },
  };
}
