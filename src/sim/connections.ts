/**
 * The connection population: a fixed number of client "slots", each a deterministic sequence
 * of connections (open, live, close, reconnect), plus the short-lived connections of storms and
 * authentication-failure waves. Everything derives from (seed, slot, generation), so the set of
 * connections at time t never depends on how the clock got there.
 */
import { APPS, pickApp, type AppProfile } from './catalog.ts';
import { hash, unit } from './rng.ts';
import { sec } from './time.ts';
import type { Wave } from './flow.ts';
import { isUp, nextDownIn, restartedIn, upBrokers, type Plan } from './plan.ts';

/** Where a connection comes from. */
export const CONN_KIND = { regular: 0, storm: 1, authFailure: 2 } as const;

/** One connection (one generation of a slot, or one storm / auth-failure connection). */
export interface Conn {
  readonly kind: 0 | 1 | 2;
  /** slot index, or the scenario event index for storm and auth-failure connections */
  readonly slot: number;
  /** generation within the slot, or the sequence number within the event */
  readonly gen: number;
  readonly app: number;
  /** µs since the world start */
  readonly open: number;
  /** µs since the world start (effective: a broker going down closes it early) */
  readonly close: number;
  readonly node: number;
  readonly shard: number;
  readonly port: number;
  /** per-connection hash for its own randomness */
  readonly h: number;
  /** how long it stays listed after closing, µs */
  readonly retain: number;
  /** the broker closed it (shown ABORTING just before the close) */
  readonly aborted: boolean;
  /** cached by the row builder: the connection UUID */
  uid?: string;
  /** cached by the row builder: the fluctuation of its traffic */
  wave?: Wave;
  /** cached by the row builder: the fields that never change */
  fixed?: object;
}

const HOUR = sec(3600);
const RETAIN_MIN = sec(120);
const RETAIN_SPAN = sec(180);
/** The longest a closed connection stays listed. */
export const MAX_RETAIN = RETAIN_MIN + RETAIN_SPAN;

function lifetime(a: AppProfile, u: number): number {
  if (a.shortLived) return sec(5 + 85 * u);
  return Math.max(sec(60), Math.round(-Math.log(1 - u * 0.999) * 4 * HOUR));
}

function gap(a: AppProfile, u: number): number {
  return a.shortLived ? sec(20 + 160 * u) : sec(0.2 + 4.8 * u);
}

/** The population of regular connections, advanced lazily and forward only. */
export class ConnectionPool {
  readonly #cur: Conn[] = [];
  readonly #closed: (Conn[] | undefined)[] = [];
  readonly #apps: number[] = [];
  #t = -Infinity;

  readonly #plan: Plan;

  constructor(plan: Plan) {
    this.#plan = plan;
    const { seed, connections } = plan.config;
    for (let s = 0; s < connections; s++) {
      const app = pickApp(unit(seed, s, 1));
      this.#apps.push(app);
      const a = APPS[app] as AppProfile;
      const h = hash(seed, s, 0, 77);
      const age = a.shortLived ? sec(90 * unit(h, 1)) : Math.round(12 * HOUR * unit(h, 1));
      this.#cur.push(this.#makeGen(s, 0, -age, a.shortLived ? undefined : Math.max(sec(30), lifetime(a, unit(h, 2)))));
      this.#closed.push(undefined);
    }
  }

  /** The application of a slot. */
  appOf(slot: number): number {
    return this.#apps[slot] as number;
  }

  #makeGen(slot: number, gen: number, openAt: number, remaining?: number): Conn {
    const { seed, shardsPerBroker } = this.#plan.config;
    const app = this.#apps[slot] as number;
    const a = APPS[app] as AppProfile;
    const h = hash(seed, slot, gen, 77);
    const up = upBrokers(this.#plan, Math.max(0, openAt));
    const node = up[hash(h, 3) % up.length] as number;
    const planned = openAt + (remaining ?? lifetime(a, unit(h, 2)));
    const close = Math.min(planned, nextDownIn(this.#plan, node, Math.max(0, openAt), planned));
    return {
      kind: 0,
      slot,
      gen,
      app,
      open: openAt,
      close,
      node,
      shard: hash(h, 4) % shardsPerBroker,
      port: 32768 + (hash(h, 5) % 28232),
      h,
      retain: RETAIN_MIN + Math.round(RETAIN_SPAN * unit(h, 6)),
      aborted: a.role === 'admin' && unit(h, 7) < 0.1,
    };
  }

  /** Moves the population forward to t (µs); earlier times are ignored. */
  advanceTo(t: number): void {
    if (t <= this.#t) return;
    this.#t = t;
    for (let s = 0; s < this.#cur.length; s++) {
      let c = this.#cur[s] as Conn;
      if (c.close > t) continue;
      let kept = this.#closed[s];
      while (c.close <= t) {
        if (c.close + c.retain > t) (kept ??= []).push(c);
        const a = APPS[c.app] as AppProfile;
        c = this.#makeGen(s, c.gen + 1, c.close + gap(a, unit(c.h, 8)));
      }
      this.#cur[s] = c;
      this.#closed[s] = kept;
    }
    for (let s = 0; s < this.#closed.length; s++) {
      const kept = this.#closed[s];
      if (kept !== undefined && (kept[0] as Conn).close + MAX_RETAIN <= t) {
        const left = kept.filter((c) => c.close + c.retain > t);
        this.#closed[s] = left.length > 0 ? left : undefined;
      }
    }
  }

  /** Calls `fn` for every listed regular connection at t (call advanceTo(t) first). */
  forEach(t: number, fn: (c: Conn) => void): void {
    const plan = this.#plan;
    const downs = plan.downs.size > 0;
    for (let s = 0; s < this.#cur.length; s++) {
      const kept = this.#closed[s];
      if (kept !== undefined) {
        for (const c of kept) {
          if (c.close + c.retain <= t) continue;
          if (downs && (!isUp(plan, c.node, t) || restartedIn(plan, c.node, c.close, t))) continue;
          fn(c);
        }
      }
      const c = this.#cur[s] as Conn;
      if (c.open <= t && (!downs || isUp(plan, c.node, t))) fn(c);
    }
  }
}

/** Calls `fn` for every listed storm and auth-failure connection at t. */
export function forEachEventConn(plan: Plan, t: number, fn: (c: Conn) => void): void {
  const { seed, shardsPerBroker } = plan.config;
  const emit = (
    kind: 1 | 2,
    index: number,
    app: number,
    from: number,
    to: number,
    rate: number,
    life: (h: number) => number,
    maxLife: number,
  ): void => {
    if (t < from) return;
    const period = 1e6 / rate;
    const total = Math.ceil((to - from) / period);
    const kLo = Math.max(0, Math.floor((t - from - maxLife - MAX_RETAIN) / period));
    const kHi = Math.min(total - 1, Math.floor((t - from) / period));
    for (let k = kLo; k <= kHi; k++) {
      const h = hash(seed, index + 0x1000, k, 91);
      const open = Math.round(from + k * period + period * unit(h, 1));
      if (open > t || open >= to) continue;
      const up = upBrokers(plan, open);
      const node = up[k % up.length] as number;
      const planned = open + life(h);
      const close = Math.min(planned, nextDownIn(plan, node, open, planned));
      const retain = RETAIN_MIN + Math.round(RETAIN_SPAN * unit(h, 6));
      if (close + retain <= t) continue;
      if (!isUp(plan, node, t) || (close <= t && restartedIn(plan, node, close, t))) continue;
      fn({
        kind,
        slot: index,
        gen: k,
        app,
        open,
        close,
        node,
        shard: hash(h, 4) % shardsPerBroker,
        port: 32768 + (hash(h, 5) % 28232),
        h,
        retain,
        aborted: kind === 2,
      });
    }
  };
  for (const s of plan.storms) {
    emit(
      1,
      s.index,
      s.app,
      s.from,
      s.to,
      s.rate,
      (h) => Math.max(sec(0.2), Math.round(-Math.log(1 - unit(h, 2) * 0.99) * s.lifetime)),
      s.lifetime * 5,
    );
  }
  for (const f of plan.authFails) {
    emit(2, f.index, -1, f.from, f.to, f.rate, (h) => sec(0.05 + 0.75 * unit(h, 2)), sec(0.8));
  }
}
