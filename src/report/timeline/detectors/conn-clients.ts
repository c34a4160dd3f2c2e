/**
 * A client id's open connections vanishing (down to zero for two polls in a row from a usual
 * count of several, for a client whose connections are long-lived) or multiplying (several
 * times the usual count). A client that replaces its connections all the time (short-lived
 * batch jobs) going to zero between runs is normal, not an event.
 */
import type { DetectorContext } from '../detector.ts';
import { IntervalBook } from '../interval-book.ts';
import { entity } from '../types.ts';
import type { Tally } from './conn-tracker.ts';
import type { ConnDetector } from './conn-storms.ts';

interface Client {
  tally: Tally;
  /** the entity and related references, built once */
  ref: string;
  related: string[];
  /** when it was last seen with connections, and the open time of its oldest one then */
  lastSeen: bigint;
  oldestOpen: bigint;
  /** the poll it was last looked at */
  done: number;
  baseline: number;
  count: number;
  zeroSince: { time: bigint; pollId: bigint } | undefined;
  zeroPolls: number;
  vanished: boolean;
  multiplied: boolean;
  principal: string;
  /** it is in the watch set */
  watched: boolean;
}

const ALPHA = 0.05;
/** A client whose oldest connection had lived this long keeps its connections: losing all is news. */
const LONG_LIVED = 600_000_000_000n;

/** Detects client ids whose connections vanish or multiply. */
export function clientDetector(ctx: DetectorContext): ConnDetector {
  const t = ctx.thresholds.connections;
  const book = new IntervalBook();
  const clients = new Map<string, Client>();
  // the clients to look at in a poll: those counted in it, and those counted before that are
  // not (any more): so a poll costs what changed, not every client ever seen
  let previous: Client[] = [];
  const watch = new Set<Client>();
  const startWatching = (c: Client): void => {
    if (c.watched) return;
    c.watched = true;
    watch.add(c);
  };
  const stopWatching = (c: Client): void => {
    if (!c.watched) return;
    c.watched = false;
    watch.delete(c);
  };
  // the previous poll's tallies and their clients, by position: a tally counted again nearby is
  // found without a lookup (its client, looked at in that poll with connections, is still known)
  let previousTallies: readonly Tally[] = [];

  return {
    digest(d) {
      if (!d.complete) return;
      const touched = d.clients.touched;
      const current = new Array<Client>(touched.length);
      let j = 0;
      for (let i = 0; i < touched.length; i++) {
        const t = touched[i]!;
        let c: Client | undefined;
        for (let k = j; k < j + 4 && k < previousTallies.length; k++) {
          if (previousTallies[k] === t) {
            c = previous[k];
            j = k + 1;
            break;
          }
        }
        c ??= clients.get(t.key);
        if (c === undefined) {
          c = {
            tally: t,
            ref: entity('client', t.key),
            related: t.principal !== '' ? [entity('principal', t.principal)] : [],
            lastSeen: 0n,
            oldestOpen: 0n,
            done: 0,
            baseline: d.first ? t.open : 0,
            count: t.open,
            zeroSince: undefined,
            zeroPolls: 0,
            vanished: false,
            multiplied: false,
            principal: t.principal,
            watched: false,
          };
          clients.set(t.key, c);
        }
        current[i] = c;
      }
      for (const c of previous) if (c.tally.gen !== d.gen) startWatching(c);
      previous = current;
      previousTallies = touched;
      const time = d.frame.time;
      const pollId = d.frame.poll.id;
      const look = (c: Client): void => {
        if (c.done === d.gen) return;
        c.done = d.gen;
        const id = c.tally.key;
        const n = c.tally.gen === d.gen ? c.tally.open : 0;
        if (n > 0) {
          c.lastSeen = time;
          c.oldestOpen = c.tally.firstOpen;
        }
        const key = c.ref;
        const related = c.related;
        // vanishing
        if (n === 0) {
          if (c.zeroSince === undefined) c.zeroSince = { time, pollId };
          c.zeroPolls++;
          const longLived = c.lastSeen - c.oldestOpen >= LONG_LIVED;
          if (!c.vanished && longLived && c.zeroPolls >= 2 && c.baseline + 1e-6 >= t.clientMinConnections) {
            c.vanished = true;
            book.start(`${key}\u0000vanished`, {
              kind: 'connections.client-vanished',
              severity: 'warn',
              entity: key,
              related,
              start: c.zeroSince.time,
              description: `client ${id}: all connections gone (usually ${Math.round(c.baseline)} open)`,
              before: { open: String(c.count), usual: String(Math.round(c.baseline)) },
              after: { open: '0' },
              pollId: c.zeroSince.pollId,
            });
          }
          // gone for good and not worth watching: forget it (it is new again if it comes back)
          if (!c.vanished && c.zeroPolls >= 2 && !c.multiplied) {
            clients.delete(id);
            stopWatching(c);
            return;
          }
        } else {
          if (c.vanished) {
            book.end(`${key}\u0000vanished`, time, pollId, { open: String(n) });
            c.vanished = false;
          }
          c.zeroSince = undefined;
          c.zeroPolls = 0;
          if (!c.multiplied) stopWatching(c);
        }
        // multiplying
        const many =
          c.baseline > 0 && n >= t.clientMultiplyFactor * c.baseline && n - c.baseline >= t.clientMultiplyMin;
        if (many && !c.multiplied) {
          c.multiplied = true;
          book.start(`${key}\u0000many`, {
            kind: 'connections.client-multiplied',
            severity: 'warn',
            entity: key,
            related,
            start: time,
            description: `client ${id}: ${n} open connections (usually ${Math.round(c.baseline)})`,
            before: { open: String(c.count), usual: String(Math.round(c.baseline)) },
            after: { open: String(n) },
            pollId,
          });
          startWatching(c);
        } else if (c.multiplied) {
          if (n <= 2 * c.baseline) {
            book.end(`${key}\u0000many`, time, pollId, { open: String(n) });
            c.multiplied = false;
          } else {
            book.update(`${key}\u0000many`, { after: { open: String(n) }, pollId });
          }
        }
        if (!c.vanished && !c.multiplied && n > 0)
          c.baseline = c.baseline === 0 ? n : c.baseline * (1 - ALPHA) + n * ALPHA;
        c.count = n;
      };
      for (const c of current) look(c);
      for (const c of watch) look(c);
    },
    finish() {
      return book.finish();
    },
  };
}
