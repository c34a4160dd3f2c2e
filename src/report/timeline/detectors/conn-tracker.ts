/**
 * The connection stream digested once per poll for every connection detector, in one pass
 * over the rows: which uids are new, which were seen closed for the first time, which vanished
 * without closing, and the open connections counted per client id, broker and consumer group.
 * State per uid is a few fields and references to its tallies (never the row itself, so rows
 * die young), and a row costs one map lookup, or none when the previous poll listed the same
 * row object near the same place (the store's lean read shares one object per version).
 */
import type { ConnFacts, ConnFrame } from '../conn-frame.ts';
import type { Thresholds } from '../thresholds.ts';

/** Counts of one key (a client id, a broker, a consumer group) in one poll; reused across polls. */
export class Tally {
  readonly key: string;
  /** the poll generation these counts belong to */
  gen = 0;
  /** open connections */
  open = 0;
  /** (groups) open connections without activity */
  idle = 0;
  /** (groups) open connections idle for at least the threshold */
  long = 0;
  /** (groups) the shortest idle duration among those */
  minIdle = 0n;
  /** (brokers, clients) the earliest open time among the open connections */
  firstOpen = 0n;
  /** the principal of the first connection counted */
  principal = '';

  constructor(key: string) {
    this.key = key;
  }
}

/** Tallies by key; `touched` lists those counted in the current poll. */
export class TallyMap {
  readonly #map = new Map<string, Tally>();
  /** the tallies counted in the current poll */
  touched: Tally[] = [];

  /** The tally of a key (created on first use). */
  get(key: string): Tally {
    let t = this.#map.get(key);
    if (t === undefined) this.#map.set(key, (t = new Tally(key)));
    return t;
  }

  /** The open count of a key in poll `gen` (0 when not counted). */
  openAt(key: string, gen: number): number {
    const t = this.#map.get(key);
    return t !== undefined && t.gen === gen ? t.open : 0;
  }

  /** Starts counting `t` in poll `gen` (resets it the first time). */
  count(t: Tally, gen: number, principal: string): void {
    if (t.gen === gen) return;
    t.gen = gen;
    t.open = 0;
    t.idle = 0;
    t.long = 0;
    t.minIdle = 0n;
    t.firstOpen = 0n;
    t.principal = principal;
    this.touched.push(t);
  }
}

/** A connection with a request in flight longer than the threshold. */
export interface StuckRequest {
  readonly row: ConnFacts;
  readonly longest: bigint;
  readonly apiKey: number;
}

/** One poll of connections, with what changed since the previous one. */
export interface ConnDigest {
  readonly frame: ConnFrame;
  /** the poll generation (1 for the first poll) */
  readonly gen: number;
  /** the time of the previous poll (undefined for the first) */
  readonly previousTime: bigint | undefined;
  /** the first poll seen: everything in it is the baseline, nothing is "new" */
  readonly first: boolean;
  /** the answer held every connection (not truncated) */
  readonly complete: boolean;
  /** rows whose uid is seen for the first time: the "new" of src/report/connection-changes.ts */
  readonly opened: readonly ConnFacts[];
  /** rows seen in state CLOSED for the first time: "closed" there */
  readonly closed: readonly ConnFacts[];
  /** uids listed and not closed at the previous complete poll, no longer listed: "vanished" there (with their broker) */
  readonly vanished: readonly { readonly uid: string; readonly nodeId: number }[];
  /** open connections per client id, broker (decimal node id) and consumer group */
  readonly clients: TallyMap;
  readonly brokers: TallyMap;
  readonly groups: TallyMap;
  /** open connections with a request in flight longer than the threshold */
  readonly stuck: readonly StuckRequest[];
  /** open connections in this poll */
  readonly openCount: number;
  /** rows whose uid was already listed earlier in the same answer */
  readonly duplicates: number;
}

const CLOSED = 'KAFKA_CONNECTION_STATE_CLOSED';
const OPEN = 'KAFKA_CONNECTION_STATE_OPEN';
/** Slack when comparing a connection's idle time with its age. */
const SLACK = 1_000_000_000n;

/** What is kept per uid: small, and no reference to the row (rows are garbage after their poll). */
interface Entry {
  readonly uid: string;
  readonly nodeId: number;
  seen: number;
  closed: boolean;
  clientId: string;
  client: Tally;
  broker: Tally;
  groupId: string;
  group: Tally | undefined;
}

/** True for a connection in state OPEN. */
export function isOpen(c: ConnFacts): boolean {
  return c.state === OPEN;
}

/** True for a connection whose authentication failed. */
export function authFailed(c: ConnFacts): boolean {
  return c.authenticationInfo.state === 'AUTHENTICATION_STATE_FAILURE';
}

/** Tracks uids across polls and digests each frame. */
export class ConnTracker {
  readonly #uids = new Map<string, Entry>();
  readonly #clients = new TallyMap();
  readonly #brokers = new TallyMap();
  readonly #groups = new TallyMap();
  readonly #groupIdle: bigint;
  readonly #inFlightStuck: bigint;
  /** the same thresholds as numbers, when exact (else NaN: compared as bigints) */
  readonly #groupIdleNumber: number;
  readonly #inFlightStuckNumber: number;
  #generation = 0;
  #previousTime: bigint | undefined;
  /** the previous frame's rows and their entries, by position: a row listed again nearby is found without a lookup */
  #previousRows: readonly ConnFacts[] = [];
  #previousEntries: Entry[] = [];

  constructor(th: Thresholds['connections']) {
    this.#groupIdle = th.groupIdle;
    this.#inFlightStuck = th.inFlightStuck;
    this.#groupIdleNumber = exactNumber(th.groupIdle);
    this.#inFlightStuckNumber = exactNumber(th.inFlightStuck);
  }

  /** Digests the next frame. */
  digest(frame: ConnFrame): ConnDigest {
    const gen = ++this.#generation;
    const first = gen === 1;
    const complete = frame.poll.coverage !== 'truncated';
    const opened: ConnFacts[] = [];
    const closed: ConnFacts[] = [];
    const vanished: { uid: string; nodeId: number }[] = [];
    const stuck: StuckRequest[] = [];
    const clients = this.#clients,
      brokers = this.#brokers,
      groups = this.#groups,
      groupIdle = this.#groupIdle,
      inFlightStuck = this.#inFlightStuck,
      groupIdleNumber = this.#groupIdleNumber,
      inFlightStuckNumber = this.#inFlightStuckNumber;
    clients.touched = [];
    brokers.touched = [];
    groups.touched = [];
    const { rows, idle: idles, inFlightOffsets, inFlightApiKeys, inFlightDurations } = frame;
    // a young connection has been idle since it opened when idle >= now - openTime - SLACK; one
    // opened before oldBefore is older than groupIdle, more than any idle time below groupIdle
    const youngSince = frame.time - SLACK;
    const oldBefore = youngSince - groupIdle;
    let openCount = 0;
    let duplicates = 0;
    let seen = 0;
    const previousRows = this.#previousRows,
      previousEntries = this.#previousEntries;
    const entries = new Array<Entry>(rows.length);
    let j = 0;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      const state = row.state;
      const isOpen = state === OPEN;
      const isClosed = !isOpen && state === CLOSED;
      // the same row object as nearby in the previous frame: the same uid, so the same entry
      let e: Entry | undefined;
      for (let k = j; k < j + 4 && k < previousRows.length; k++) {
        if (previousRows[k] === row) {
          e = previousEntries[k];
          j = k + 1;
          break;
        }
      }
      e ??= this.#uids.get(row.uid);
      if (e === undefined) {
        const groupId = row.groupId;
        e = {
          uid: row.uid,
          nodeId: row.nodeId,
          seen: gen,
          closed: isClosed,
          clientId: row.clientId,
          client: clients.get(row.clientId),
          broker: brokers.get(String(row.nodeId)),
          groupId,
          group: groupId === '' ? undefined : groups.get(groupId),
        };
        this.#uids.set(row.uid, e);
        entries[i] = e;
        seen++;
        opened.push(row);
        if (isClosed) closed.push(row);
      } else {
        entries[i] = e;
        if (e.seen === gen) {
          duplicates++;
          continue;
        }
        if (isClosed && !e.closed) closed.push(row);
        e.seen = gen;
        seen++;
        e.closed = isClosed;
        if (row.clientId !== e.clientId) {
          e.clientId = row.clientId;
          e.client = clients.get(row.clientId);
        }
        if (row.groupId !== e.groupId) {
          e.groupId = row.groupId;
          e.group = row.groupId === '' ? undefined : groups.get(row.groupId);
        }
      }
      if (!isOpen) continue;
      openCount++;
      const principal = row.authenticationInfo.userPrincipal;
      const c = e.client;
      clients.count(c, gen, principal);
      if (c.open === 0 || row.openTime < c.firstOpen) c.firstOpen = row.openTime;
      c.open++;
      const b = e.broker;
      brokers.count(b, gen, principal);
      if (b.open === 0 || row.openTime < b.firstOpen) b.firstOpen = row.openTime;
      b.open++;
      const firstRequest = inFlightOffsets[i]!;
      const endRequest = inFlightOffsets[i + 1]!;
      const g = e.group;
      if (g !== undefined) {
        groups.count(g, gen, principal);
        g.open++;
        if (firstRequest === endRequest) {
          const idle = idles[i]!;
          if (
            typeof idle === 'number' && groupIdleNumber === groupIdleNumber
              ? idle >= groupIdleNumber
              : idle >= groupIdle
          ) {
            g.idle++;
            if (g.long === 0 || idle < g.minIdle) g.minIdle = BigInt(idle);
            g.long++;
          } else if (row.openTime !== 0n && row.openTime >= oldBefore && idle >= youngSince - row.openTime) {
            // a young connection that has done nothing since it opened does not break the idleness
            g.idle++;
          }
        }
      }
      if (firstRequest !== endRequest) {
        let longest: number | bigint = 0;
        let apiKey = -1;
        for (let k = firstRequest; k < endRequest; k++) {
          const duration = inFlightDurations[k]!;
          if (duration > longest) {
            longest = duration;
            apiKey = inFlightApiKeys[k]!;
          }
        }
        const isStuck =
          typeof longest === 'number' && inFlightStuckNumber === inFlightStuckNumber
            ? longest >= inFlightStuckNumber
            : longest >= inFlightStuck;
        if (isStuck) stuck.push({ row, longest: BigInt(longest), apiKey });
      }
    }
    this.#previousRows = rows;
    this.#previousEntries = entries;
    // only when some uid known before was not listed now (the common case lists them all)
    if (complete && this.#uids.size > seen) {
      // by value: entries iterated as [key, value] pairs would cost an array each
      for (const e of this.#uids.values()) {
        if (e.seen === gen) continue;
        if (!e.closed) vanished.push({ uid: e.uid, nodeId: e.nodeId });
        this.#uids.delete(e.uid);
      }
    }
    const d: ConnDigest = {
      frame,
      gen,
      previousTime: this.#previousTime,
      first,
      complete,
      opened,
      closed,
      vanished,
      clients,
      brokers,
      groups,
      stuck,
      openCount,
      duplicates,
    };
    this.#previousTime = frame.time;
    return d;
  }
}

/** A bigint as a number when that is exact, else NaN. */
function exactNumber(v: bigint): number {
  return v >= -MAX_EXACT && v <= MAX_EXACT ? Number(v) : NaN;
}
const MAX_EXACT = BigInt(Number.MAX_SAFE_INTEGER);

/** Who a connection belongs to for storms: its principal, else its client id. */
export function ownerOf(c: ConnFacts): string {
  const p = c.authenticationInfo.userPrincipal;
  return p !== '' ? `principal/${p}` : `client/${c.clientId}`;
}

/** Counts values and returns the most frequent ones, for evidence (`a (12), b (3)`). */
export function topValues(values: Iterable<string>, n = 3): string {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return topCounts(counts, n);
}

/** The most frequent entries of a count map, for evidence (`a (12), b (3), +4 more`). */
export function topCounts(counts: ReadonlyMap<string, number>, n = 3): string {
  const sorted = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const shown = sorted.slice(0, n).map(([v, c]) => `${v} (${c})`);
  if (sorted.length > n) shown.push(`+${sorted.length - n} more`);
  return shown.join(', ');
}

/** A peak rate (per second) in the window's unit, so that one phrase has one unit: `450` per 1m00s. */
export function rateInWindow(perSecond: number, window: bigint): string {
  const v = (perSecond * Number(window)) / 1e9;
  return v < 10 ? v.toFixed(1) : String(Math.round(v));
}
