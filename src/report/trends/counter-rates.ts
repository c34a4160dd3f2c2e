/**
 * Rates from the cumulative request counters (`totalRequestStatistics`) of connections.
 *
 * Per connection, the increase over the window is the sum of the differences between its
 * consecutive samples; a counter that went down was reset and counts from zero; a connection
 * that opened after the previous poll counts from zero at its open time (so a connection that
 * opened and closed between two polls, still listed as recently closed, is counted whole); a
 * connection already open at the first poll of the window is the baseline. A new uid (a
 * reconnect, a restarted broker) is a new connection.
 *
 * Rate of one connection = its increase / the time it was observed (from its open time when it
 * opened inside the window, else from its first sample, to its last sample). Rate of a group =
 * the increases of its connections / the window (first to last poll). Batch size = produced
 * bytes / produced batches.
 */
import { RESOURCES, type PollRow } from '../../api/schema/resources.ts';
import { comparePolls } from '../timeline/frames.ts';
import { pollTime } from '../timeline/types.ts';
import { addAt, Buckets } from './buckets.ts';
import { counterFrames, type CounterFacts, type CounterFrame, type TotalCounter } from './counter-frames.ts';
import { connectionKey, connectionLabel } from './group-keys.ts';
import type { MetricName, TrendRow, TrendsSource } from './types.ts';

type Field = TotalCounter;
/** An integer, exact: a number while below 2^51 in size, else a bigint. */
type Exact = number | bigint;

const FIELDS: Readonly<Record<string, readonly [Field] | readonly [Field, Field]>> = {
  'produce-bytes': ['produceBytes'],
  'fetch-bytes': ['fetchBytes'],
  requests: ['requestCount'],
  batches: ['produceBatchCount'],
  'batch-size': ['produceBytes', 'produceBatchCount'],
};

interface Conn {
  last: Exact[];
  /** end of the observed span: the last sample, or the close time once closed */
  to: bigint;
  from: bigint;
  closed: boolean;
  /** the group whose uids hold this connection's uid since its last sample */
  group: Group | undefined;
}

interface Group {
  label: string;
  increase: Exact[];
  series: number[][];
  uids: Set<string>;
  closed: number;
  resets: number;
}

/** The counter-rate rows of a window, and the polls that bound it. */
export interface CounterRates {
  readonly rows: TrendRow[];
  /** the whole window's rate (or average batch size) */
  readonly overall: number;
  readonly resets: number;
}

/** Computes counter rates per group key in one pass over the connection samples. */
export function counterRates(
  source: TrendsSource,
  metric: MetricName,
  by: string,
  window: { since: bigint; until: bigint; cluster?: string },
  buckets: Buckets,
): CounterRates {
  const fields = FIELDS[metric] as readonly Field[];
  const ops = new Set<string>(RESOURCES.connections.operations);
  const polls: PollRow[] = source
    .polls({ cluster: window.cluster, since: window.since, until: window.until })
    .filter((p) => p.outcome === 'ok' && ops.has(p.operation))
    .sort(comparePolls);
  const t: Tally = {
    by,
    fields,
    buckets,
    conns: new Map(),
    groups: new Map(),
    deltas: new Array<Exact>(fields.length),
    prevTime: undefined,
    prevRows: [],
    prevConns: [],
    prevGroups: [],
    conns2: [],
    groups2: [],
  };
  for (const f of counterFrames(source, window, polls, fields)) tallyFrame(t, f);
  const { conns, groups } = t;
  const first = polls[0];
  const last = polls[polls.length - 1];
  const windowSeconds = first !== undefined && last !== undefined ? Number(pollTime(last) - pollTime(first)) / 1e9 : 0;
  const perBucket = buckets.seconds();
  const rows: TrendRow[] = [];
  let resets = 0;
  const total = fields.map(() => 0n);
  for (const [key, g] of groups) {
    resets += g.resets;
    g.increase.forEach((v, i) => (total[i] = (total[i] as bigint) + BigInt(v)));
    let span = windowSeconds;
    if (by === 'connection') {
      const conn = conns.get(key) as Conn;
      span = Number(conn.to - conn.from) / 1e9;
    }
    const value = ratio(metric, g.increase, span);
    const series =
      metric === 'batch-size'
        ? batchSeries(g.series)
        : (g.series[0] as number[]).map((v) => (Number.isNaN(v) ? v : v / perBucket));
    const detail: Record<string, string | number | boolean> = {
      increase: String(g.increase[0]),
      connections: g.uids.size,
      closedInWindow: g.closed,
      resets: g.resets,
      seconds: Math.round(span * 1000) / 1000,
    };
    if (metric === 'batch-size') detail.batches = String(g.increase[1]);
    rows.push({ key, label: g.label, value, series, detail });
  }
  return { rows, overall: ratio(metric, total, windowSeconds), resets };
}

/**
 * What the pass over the frames keeps: connections by uid, groups by key, the row's differences
 * (reused) and the previous poll's time. The pass is split into small functions (a frame, a row,
 * a new group, a new connection) so that the optimiser compiles each quickly, from its own
 * feedback, instead of the whole of counterRates again at every change of a row's types.
 */
interface Tally {
  readonly by: string;
  readonly fields: readonly Field[];
  readonly buckets: Buckets;
  readonly conns: Map<string, Conn>;
  readonly groups: Map<string, Group>;
  readonly deltas: Exact[];
  prevTime: bigint | undefined;
  /** the previous frame's rows, and by position the connection and group each was counted in */
  prevRows: readonly CounterFacts[];
  prevConns: Conn[];
  prevGroups: Group[];
  /** the same of the frame being added (the two pairs of lists swap at each frame: no garbage per frame) */
  conns2: Conn[];
  groups2: Group[];
}

/** How far ahead of the expected position a row is looked for in the previous frame. */
const LOOKAHEAD = 4;

/**
 * Adds the rows of one frame. Answers mostly list the same connections in the same order: a row
 * whose facts are the very object of a row at its place in the previous frame (the store's reads
 * share one object per stored version) has that row's uid and group key, so it takes that row's
 * connection and group instead of looking both up.
 */
function tallyFrame(t: Tally, f: CounterFrame): void {
  const b = t.buckets.index(f.time);
  const rows = f.rows;
  const n = rows.length;
  const prev = t.prevRows;
  const conns = t.conns2;
  const groups = t.groups2;
  let j = 0;
  for (let r = 0; r < n; r++) {
    const c = rows[r]!;
    let k = -1;
    for (let q = j; q < j + LOOKAHEAD && q < prev.length; q++) {
      if (prev[q] === c) {
        k = q;
        j = q + 1;
        break;
      }
    }
    tallyRow(t, f, r, b, k, conns, groups);
  }
  t.prevTime = f.time;
  t.prevRows = rows;
  t.conns2 = t.prevConns;
  t.groups2 = t.prevGroups;
  t.prevConns = conns;
  t.prevGroups = groups;
}

/**
 * Adds row `r` of a frame (bucket `b`): its differences since the connection's previous sample;
 * `k`: the row's place in the previous frame (the same facts), or -1. The row's connection and
 * group go to `conns[r]` and `groups[r]`.
 */
function tallyRow(t: Tally, f: CounterFrame, r: number, b: number, k: number, conns: Conn[], groups: Group[]): void {
  const c = f.rows[r]!;
  let g: Group;
  let conn: Conn | undefined;
  if (k >= 0) {
    g = t.prevGroups[k]!;
    conn = t.prevConns[k]!;
  } else {
    const key = connectionKey(t.by, c);
    g = t.groups.get(key) ?? newGroup(t, key, c);
    conn = t.conns.get(c.uid);
  }
  groups[r] = g;
  const totals = f.totals;
  const deltas = t.deltas;
  const nf = deltas.length;
  if (conn === undefined) conn = newConn(t, f, r);
  else {
    const last = conn.last;
    for (let i = 0; i < nf; i++) {
      const v = totals[i]![r]!;
      const before = last[i]!;
      if (v >= before) deltas[i] = subExact(v, before);
      else {
        // a counter that went down was reset: it counts from zero
        deltas[i] = v;
        g.resets++;
      }
      last[i] = v;
    }
    conn.to = f.time;
  }
  conns[r] = conn;
  if (conn.group !== g) {
    g.uids.add(c.uid);
    conn.group = g;
  }
  if (c.state === 'KAFKA_CONNECTION_STATE_CLOSED') {
    if (c.closeTime > conn.from) conn.to = c.closeTime;
    if (!conn.closed) {
      conn.closed = true;
      g.closed++;
    }
  }
  for (let i = 0; i < nf; i++) {
    const d = deltas[i]!;
    if (d === 0 || d === 0n) continue;
    g.increase[i] = addExact(g.increase[i]!, d);
    addAt(g.series[i]!, b, Number(d));
  }
}

/** The group of a key seen for the first time. */
function newGroup(t: Tally, key: string, c: CounterFacts): Group {
  const g: Group = {
    label: t.by === 'connection' ? connectionLabel(c) : '',
    increase: t.fields.map(() => 0),
    series: t.fields.map(() => t.buckets.empty()),
    uids: new Set(),
    closed: 0,
    resets: 0,
  };
  t.groups.set(key, g);
  return g;
}

/** The connection of row `r`'s uid, seen for the first time; its differences into `t.deltas`. */
function newConn(t: Tally, f: CounterFrame, r: number): Conn {
  const c = f.rows[r]!;
  const fresh = t.prevTime !== undefined && c.openTime > t.prevTime;
  const nf = t.deltas.length;
  const values = new Array<Exact>(nf);
  for (let i = 0; i < nf; i++) {
    values[i] = f.totals[i]![r]!;
    // a connection opened since the previous poll counts from zero, one seen at the window's start is the baseline
    t.deltas[i] = fresh ? values[i]! : 0;
  }
  const conn: Conn = { last: values, to: f.time, from: fresh ? c.openTime : f.time, closed: false, group: undefined };
  t.conns.set(c.uid, conn);
  return conn;
}

/** `a + b` exactly: numbers while the result stays below 2^51 (where number arithmetic is exact), else bigints. */
function addExact(a: Exact, b: Exact): Exact {
  if (typeof a === 'number' && typeof b === 'number') {
    const s = a + b;
    if (s < SAFE && s > -SAFE) return s;
  }
  return normal(BigInt(a) + BigInt(b));
}

/** `a - b` exactly (see addExact). */
function subExact(a: Exact, b: Exact): Exact {
  if (typeof a === 'number' && typeof b === 'number') {
    const d = a - b;
    if (d < SAFE && d > -SAFE) return d;
  }
  return normal(BigInt(a) - BigInt(b));
}

/** A bigint as a number when below 2^51 in size, else itself. */
function normal(v: bigint): Exact {
  return v < SAFE_BIG && v > -SAFE_BIG ? Number(v) : v;
}

const SAFE = 2 ** 51;
const SAFE_BIG = 2n ** 51n;

function ratio(metric: MetricName, increase: readonly Exact[], seconds: number): number {
  if (metric === 'batch-size') {
    const batches = increase[1]!;
    return batches === 0 || batches === 0n ? 0 : Number(increase[0]) / Number(batches);
  }
  return seconds > 0 ? Number(increase[0]) / seconds : 0;
}

function batchSeries(series: number[][]): number[] {
  const bytes = series[0] as number[];
  const batches = series[1] as number[];
  return bytes.map((v, i) => {
    const n = batches[i] as number;
    return Number.isNaN(v) || Number.isNaN(n) || n === 0 ? Number.NaN : v / n;
  });
}
