/**
 * Connection storms: one principal (or, without one, one client id) opening or closing
 * connections far faster than usual. The interval runs from the first to the last open (or
 * close) of the storm, read from the connections' own open and close times.
 */
import { formatHumanDuration } from '../../../api/codec/duration.ts';
import type { DetectorContext } from '../detector.ts';
import { IntervalBook } from '../interval-book.ts';
import type { ConnFacts } from '../conn-frame.ts';
import type { TimelineEvent } from '../types.ts';
import { rateInWindow, authFailed, ownerOf, topCounts, type ConnDigest } from './conn-tracker.ts';

/** A detector over digested connection polls. */
export interface ConnDetector {
  /** Feeds the next digested poll. */
  digest(d: ConnDigest): void;
  /** The events found. */
  finish(until: bigint): TimelineEvent[];
}

interface Owner {
  /** usual opens/closes per window (moving average outside storms) */
  baseline: number;
  storm: boolean;
  opened: number;
  closed: number;
  peakPerSecond: number;
  lastActivity: bigint;
  clients: Map<string, number>;
}

interface Tally {
  opens: number;
  closes: number;
  firstAt: bigint;
  /** open and close times, to place the end of the storm */
  openTimes: bigint[];
  closeTimes: bigint[];
  rows: ConnFacts[];
}

/** Where a storm's activity in its last poll interval ends: the 95th percentile, so a straggler does not stretch it. */
function activityEnd(times: bigint[]): bigint {
  times.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return times[Math.min(times.length - 1, Math.floor(times.length * 0.95))] as bigint;
}

const ALPHA = 0.1;

/** Detects open/close storms per principal. */
export function stormDetector(ctx: DetectorContext): ConnDetector {
  const t = ctx.thresholds.connections;
  const book = new IntervalBook();
  const owners = new Map<string, Owner>();
  const windowS = Number(t.stormWindow) / 1e9;
  let learned = false;

  const tally = (into: Map<string, Tally>, c: ConnFacts, at: bigint, open: boolean): void => {
    const key = ownerOf(c);
    let x = into.get(key);
    if (x === undefined)
      into.set(key, (x = { opens: 0, closes: 0, firstAt: at, openTimes: [], closeTimes: [], rows: [] }));
    if (open) x.opens++;
    else x.closes++;
    if (at < x.firstAt) x.firstAt = at;
    (open ? x.openTimes : x.closeTimes).push(at);
    if (open) x.rows.push(c);
  };

  return {
    digest(d) {
      if (d.first || d.previousTime === undefined) return;
      const dt = Number(d.frame.time - d.previousTime) / 1e9;
      if (dt <= 0) return;
      // counts over less than a window are not extrapolated (two polls a second apart prove nothing)
      const per = windowS / Math.max(dt, windowS);
      const tallies = new Map<string, Tally>();
      // only what happened since the previous poll (a truncated list shows older rows late)
      for (const c of d.opened) if (c.openTime > d.previousTime && !authFailed(c)) tally(tallies, c, c.openTime, true);
      for (const c of d.closed)
        if (c.closeTime > d.previousTime && !authFailed(c)) tally(tallies, c, c.closeTime, false);
      if (!learned) {
        // the first interval teaches the usual rates of the owners present from the start,
        // unless an owner is clearly storming already (then it is judged as usual)
        learned = true;
        for (const [key, x] of tallies) {
          const perWindow = Math.max(x.opens, x.closes) * per;
          if (perWindow >= t.stormMinOpens * t.stormFactor) continue;
          owners.set(key, {
            baseline: perWindow,
            storm: false,
            opened: 0,
            closed: 0,
            peakPerSecond: 0,
            lastActivity: 0n,
            clients: new Map(),
          });
          tallies.delete(key);
        }
      }
      for (const [key, o] of owners) if (!tallies.has(key)) step(key, o, undefined);
      for (const [key, x] of tallies) {
        let o = owners.get(key);
        if (o === undefined) {
          owners.set(
            key,
            (o = {
              baseline: 0,
              storm: false,
              opened: 0,
              closed: 0,
              peakPerSecond: 0,
              lastActivity: 0n,
              clients: new Map(),
            }),
          );
        }
        step(key, o, x);
      }

      function step(key: string, o: Owner, x: Tally | undefined): void {
        const count = x === undefined ? 0 : Math.max(x.opens, x.closes);
        const perWindow = count * per;
        const isStorm = perWindow >= t.stormMinOpens && perWindow >= t.stormFactor * o.baseline;
        if (!isStorm) {
          if (o.storm) {
            book.end(key, o.lastActivity, d.frame.poll.id);
            o.storm = false;
          }
          o.baseline = o.baseline === 0 ? perWindow : o.baseline * (1 - ALPHA) + perWindow * ALPHA;
          if (x === undefined && o.baseline < 0.01) owners.delete(key);
          return;
        }
        if (x === undefined) return;
        if (!o.storm) {
          o.storm = true;
          o.opened = 0;
          o.closed = 0;
          o.peakPerSecond = 0;
          o.clients = new Map();
          book.start(key, {
            kind: 'connections.storm',
            severity: 'warn',
            entity: key,
            start: x.firstAt,
            description: '',
            before: { usualPerWindow: perWindowText(o.baseline), window: formatHumanDuration(t.stormWindow) },
            pollId: d.frame.poll.id,
          });
        }
        o.opened += x.opens;
        o.closed += x.closes;
        o.peakPerSecond = Math.max(o.peakPerSecond, count / dt);
        // the end follows what is storming: opens, closes, or both
        const opensStorm = x.opens * per >= t.stormMinOpens;
        const closesStorm = x.closes * per >= t.stormMinOpens;
        const times =
          opensStorm && closesStorm ? [...x.openTimes, ...x.closeTimes] : opensStorm ? x.openTimes : x.closeTimes;
        o.lastActivity = activityEnd(times);
        for (const c of x.rows) o.clients.set(c.clientId, (o.clients.get(c.clientId) ?? 0) + 1);
        book.update(key, {
          severity: o.peakPerSecond * windowS >= 10 * t.stormMinOpens ? 'error' : 'warn',
          description: `connection storm from ${key}: ${o.opened} opened, ${o.closed} closed (peak ${rateInWindow(o.peakPerSecond, t.stormWindow)}, usually ${perWindowText(o.baseline)}, per ${formatHumanDuration(t.stormWindow)})`,
          after: stormValues(o),
          pollId: d.frame.poll.id,
        });
      }
    },
    finish() {
      return book.finish();
    },
  };
}

function perWindowText(v: number): string {
  return v < 10 ? v.toFixed(1) : String(Math.round(v));
}

function stormValues(o: Owner): Record<string, string> {
  return {
    opened: String(o.opened),
    closed: String(o.closed),
    peakPerSecond: o.peakPerSecond.toFixed(1),
    clients: topCounts(o.clients),
  };
}
