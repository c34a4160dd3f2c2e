/**
 * Answers listing the same connection uid twice: the API contradicting itself. Counted once per
 * poll; the interval runs while answers keep doing it.
 */
import type { DetectorContext } from '../detector.ts';
import { IntervalBook } from '../interval-book.ts';
import { entity } from '../types.ts';
import type { ConnDetector } from './conn-storms.ts';

/** Detects ListKafkaConnections answers with duplicate uids. */
export function duplicateDetector(_ctx: DetectorContext): ConnDetector {
  const book = new IntervalBook();
  const ref = entity('api', 'ListKafkaConnections');
  let open = false;
  return {
    digest(d) {
      if (d.duplicates > 0) {
        if (!open) {
          open = true;
          book.start('dup', {
            kind: 'api.duplicate-uids',
            severity: 'warn',
            entity: ref,
            start: d.frame.time,
            description: '',
            before: { rows: String(d.frame.rows.length) },
            pollId: d.frame.poll.id,
          });
        }
        book.update('dup', {
          description: `ListKafkaConnections listed the same uid more than once (${d.duplicates} repeated rows of ${d.frame.rows.length})`,
          after: { duplicates: String(d.duplicates) },
          pollId: d.frame.poll.id,
        });
      } else if (open) {
        open = false;
        book.end('dup', d.frame.time, d.frame.poll.id, { duplicates: '0' });
      }
    },
    finish() {
      return book.finish();
    },
  };
}
