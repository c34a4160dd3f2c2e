/**
 * Waves of authentication failures, per listener: new connections whose authentication failed,
 * counted by their open times; the wave runs from the first failure to the last.
 */
import { formatHumanDuration } from '../../../api/codec/duration.ts';
import type { DetectorContext } from '../detector.ts';
import { IntervalBook } from '../interval-book.ts';
import { entity } from '../types.ts';
import { rateInWindow, authFailed, topCounts } from './conn-tracker.ts';
import type { ConnDetector } from './conn-storms.ts';

interface Wave {
  failures: number;
  peakPerSecond: number;
  last: bigint;
  clients: Map<string, number>;
  addresses: Set<string>;
  mechanisms: Map<string, number>;
}

/** Detects waves of failed authentications per listener. */
export function authDetector(ctx: DetectorContext): ConnDetector {
  const t = ctx.thresholds.connections;
  const windowS = Number(t.stormWindow) / 1e9;
  const book = new IntervalBook();
  const waves = new Map<string, Wave>();

  return {
    digest(d) {
      const since = d.previousTime;
      const dt = since === undefined ? windowS : Number(d.frame.time - since) / 1e9;
      if (dt <= 0) return;
      const perListener = new Map<
        string,
        { n: number; first: bigint; last: bigint; rows: (typeof d.opened)[number][] }
      >();
      for (const c of d.opened) {
        if (!authFailed(c)) continue;
        let x = perListener.get(c.listenerName);
        if (x === undefined)
          perListener.set(c.listenerName, (x = { n: 0, first: c.openTime, last: c.openTime, rows: [] }));
        x.n++;
        if (c.openTime < x.first) x.first = c.openTime;
        if (c.openTime > x.last) x.last = c.openTime;
        x.rows.push(c);
      }
      for (const [listener, w] of waves) {
        if (perListener.has(listener)) continue;
        book.end(listener, w.last, d.frame.poll.id);
        waves.delete(listener);
      }
      for (const [listener, x] of perListener) {
        const perWindow = x.n * (windowS / Math.max(dt, windowS));
        let w = waves.get(listener);
        if (perWindow < t.authFailureMin) {
          if (w !== undefined) {
            book.end(listener, w.last, d.frame.poll.id);
            waves.delete(listener);
          }
          continue;
        }
        if (w === undefined) {
          waves.set(
            listener,
            (w = {
              failures: 0,
              peakPerSecond: 0,
              last: x.last,
              clients: new Map(),
              addresses: new Set(),
              mechanisms: new Map(),
            }),
          );
          book.start(listener, {
            kind: 'connections.auth-failures',
            severity: 'warn',
            entity: entity('listener', listener),
            start: since !== undefined && x.first < since ? since : x.first,
            description: '',
            pollId: d.frame.poll.id,
            startedBefore: d.first,
          });
        }
        w.failures += x.n;
        w.peakPerSecond = Math.max(w.peakPerSecond, x.n / dt);
        w.last = x.last;
        for (const c of x.rows) {
          w.clients.set(c.clientId, (w.clients.get(c.clientId) ?? 0) + 1);
          if (w.addresses.size < 10_000) w.addresses.add(c.source.ipAddress);
          const m = c.authenticationInfo.mechanism.replace('AUTHENTICATION_MECHANISM_', '');
          w.mechanisms.set(m, (w.mechanisms.get(m) ?? 0) + 1);
        }
        book.update(listener, {
          severity: w.peakPerSecond >= 1 ? 'error' : 'warn',
          description: `authentication failures on listener ${listener}: ${w.failures} failed connections (peak ${rateInWindow(w.peakPerSecond, t.stormWindow)} per ${formatHumanDuration(t.stormWindow)}, threshold ${t.authFailureMin}) from ${w.addresses.size} addresses, clients ${topCounts(w.clients, 2)}`,
          after: values(w),
          pollId: d.frame.poll.id,
        });
      }
    },
    finish() {
      return book.finish();
    },
  };
}

function values(w: Wave): Record<string, string> {
  return {
    failures: String(w.failures),
    peakPerSecond: w.peakPerSecond.toFixed(1),
    addresses: String(w.addresses.size),
    clients: topCounts(w.clients),
    mechanisms: topCounts(w.mechanisms),
  };
}
