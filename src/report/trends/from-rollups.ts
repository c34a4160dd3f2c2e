/**
 * The part of a trends window that raw history no longer covers, answered from rollups: which
 * resolution and up to where (the plan), and the rollup rows merged into the rows computed from
 * the raw part. Rates add increases, counts combine their minimum, maximum and mean, lags their
 * range; the raw part decides the last value whenever it has one.
 */
import type { RollupReader } from '../../db/rollups/rollup-store.ts';
import { formatTimestamp } from '../../api/codec/timestamp.ts';
import { rawStart } from '../rollup/raw-start.ts';
import { addAt, maxAt, type Buckets } from './buckets.ts';
import { classify } from './shadow-lag.ts';
import type { MetricName, TrendRow, TrendsSource } from './types.ts';

/** Where a window's rollup part ends and its raw part begins. */
export interface RollupPlan {
  /** bucket width in seconds */
  readonly resolution: number;
  /** the rollup part: buckets starting in [since, cut) */
  readonly since: bigint;
  readonly cut: bigint;
}

/** A rollup part as reports show it: `5m`, `1h`. */
export function resolutionLabel(seconds: number): string {
  return seconds % 3600 === 0 ? `${seconds / 3600}h` : `${seconds / 60}m`;
}

/** The note of a result read partly from rollups. */
export function rollupNote(plan: RollupPlan): string {
  return `from ${resolutionLabel(plan.resolution)} rollups before ${formatTimestamp(plan.cut)}`;
}

const SECOND = 1_000_000_000n;

/** The rollup part of [since, until], or undefined when raw history covers it (or nothing is rolled up). */
export function planRollups(
  source: TrendsSource,
  cluster: string | undefined,
  since: bigint,
  until: bigint,
): RollupPlan | undefined {
  if (source.rollups === undefined) return undefined;
  const rawFirst = rawStart(source, cluster);
  if (rawFirst !== undefined && rawFirst <= since) return undefined;
  // rollups answer only for what raw history lost: polls they summarised that raw history no longer holds
  const coverage = source
    .rollups()
    .coverage(cluster)
    .filter(
      (c) =>
        c.first !== undefined &&
        c.until > since &&
        c.firstPoll !== undefined &&
        (rawFirst === undefined || c.firstPoll < rawFirst),
    );
  if (coverage.length === 0) return undefined;
  const start = (w: bigint): bigint => since - (((since % w) + w) % w);
  const fits =
    coverage.find((c) => (c.first as bigint) <= start(BigInt(c.resolution) * SECOND)) ?? coverage[coverage.length - 1];
  if (fits === undefined) return undefined;
  const w = BigInt(fits.resolution) * SECOND;
  // raw history answers from the first bucket boundary at or after its first poll
  let cut = fits.until;
  if (rawFirst !== undefined) {
    // strictly after the first raw poll, so that the raw part has a poll before it (the counters' baseline)
    const boundary = rawFirst - (((rawFirst % w) + w) % w) + w;
    if (boundary < cut) cut = boundary;
  }
  if (cut > until + 1n) cut = until + 1n;
  return { resolution: fits.resolution, since: start(w), cut };
}

/** Where the rollups of what raw history lost begin (the default start of a window), if any. */
export function rollupStart(source: TrendsSource, cluster: string | undefined): bigint | undefined {
  if (source.rollups === undefined) return undefined;
  const rawFirst = rawStart(source, cluster);
  let start: bigint | undefined;
  for (const c of source.rollups().coverage(cluster)) {
    if (c.first === undefined || c.firstPoll === undefined || (rawFirst !== undefined && c.firstPoll >= rawFirst))
      continue;
    if (start === undefined || c.first < start) start = c.first;
  }
  return start;
}

const COUNTER_FIELDS: Partial<Record<MetricName, 'produceBytes' | 'fetchBytes' | 'requests' | 'produceBatches'>> = {
  'produce-bytes': 'produceBytes',
  'batch-size': 'produceBytes',
  'fetch-bytes': 'fetchBytes',
  requests: 'requests',
  batches: 'produceBatches',
};

/** The keys a metric can be grouped by when read from rollups. */
export function rollupKeys(metric: MetricName): readonly string[] {
  if (metric === 'connections') return ['broker', 'software', 'client', 'principal', 'listener'];
  if (metric === 'shadow-lag') return ['partition', 'topic', 'link'];
  if (metric === 'iceberg-lag') return ['topic'];
  return ['client', 'principal', 'listener', 'broker', 'software'];
}

const groupKey = (
  by: string,
  c: { nodeId: number; listener: string; principal: string; clientId: string; software: string },
): string =>
  by === 'broker'
    ? String(c.nodeId)
    : by === 'listener'
      ? c.listener
      : by === 'principal'
        ? c.principal
        : by === 'client'
          ? c.clientId
          : c.software;

/** Merges counter-rate rows of the raw part with the rollup part; returns the rows and the whole window's figure. */
export function mergeCounterRates(
  raw: readonly TrendRow[],
  rollups: RollupReader,
  q: {
    cluster: string | undefined;
    metric: MetricName;
    by: string;
    plan: RollupPlan;
    buckets: Buckets;
    rawLastPoll: bigint | undefined;
  },
): { rows: TrendRow[]; overall: number } {
  const field = COUNTER_FIELDS[q.metric] ?? 'requests';
  const acc = new Map<
    string,
    { inc: bigint; batches: bigint; closed: number; resets: number; series: number[]; batchSeries: number[] }
  >();
  const buckets = rollups.buckets(q.cluster, q.plan.resolution, q.plan.since, q.plan.cut);
  for (const c of rollups.conns(q.cluster, q.plan.resolution, q.plan.since, q.plan.cut)) {
    const k = groupKey(q.by, c);
    let a = acc.get(k);
    if (a === undefined)
      acc.set(
        k,
        (a = { inc: 0n, batches: 0n, closed: 0, resets: 0, series: q.buckets.empty(), batchSeries: q.buckets.empty() }),
      );
    const i = q.buckets.index(c.start);
    a.inc += c[field];
    a.batches += c.produceBatches;
    a.closed += c.closed;
    a.resets += c.resets;
    addAt(a.series, i, Number(c[field]));
    addAt(a.batchSeries, i, Number(c.produceBatches));
  }
  const firstPoll = buckets.find((b) => b.firstPoll !== undefined)?.firstPoll;
  const lastPoll = q.rawLastPoll ?? [...buckets].reverse().find((b) => b.lastPoll !== undefined)?.lastPoll;
  const seconds = firstPoll !== undefined && lastPoll !== undefined ? Number(lastPoll - firstPoll) / 1e9 : 0;
  const perBucket = q.buckets.seconds();
  const ratio = (inc: bigint, batches: bigint): number =>
    q.metric === 'batch-size'
      ? batches === 0n
        ? 0
        : Number(inc) / Number(batches)
      : seconds > 0
        ? Number(inc) / seconds
        : 0;
  const rows: TrendRow[] = [];
  const rawByKey = new Map(raw.map((r) => [r.key, r]));
  let total = 0n;
  let totalBatches = 0n;
  for (const key of new Set([...rawByKey.keys(), ...acc.keys()])) {
    const r = rawByKey.get(key);
    const a = acc.get(key);
    const inc = BigInt(String(r?.detail.increase ?? '0')) + (a?.inc ?? 0n);
    const batches = BigInt(String(r?.detail.batches ?? '0')) + (a?.batches ?? 0n);
    total += inc;
    totalBatches += batches;
    const series = q.buckets.empty().map((_, i) => {
      const mine = r?.series[i] ?? Number.NaN;
      if (!Number.isNaN(mine) || a === undefined) return mine;
      const v = a.series[i] as number;
      if (q.metric === 'batch-size') {
        const n = a.batchSeries[i] as number;
        return Number.isNaN(v) || Number.isNaN(n) || n === 0 ? Number.NaN : v / n;
      }
      return Number.isNaN(v) ? v : v / perBucket;
    });
    const detail: Record<string, string | number | boolean> = {
      increase: String(inc),
      connections: Number(r?.detail.connections ?? 0),
      closedInWindow: Number(r?.detail.closedInWindow ?? 0) + (a?.closed ?? 0),
      resets: Number(r?.detail.resets ?? 0) + (a?.resets ?? 0),
      seconds: Math.round(seconds * 1000) / 1000,
    };
    if (q.metric === 'batch-size') detail.batches = String(batches);
    rows.push({ key, label: '', value: ratio(inc, batches), series, detail });
  }
  return { rows, overall: ratio(total, totalBatches) };
}

/** Merges connection-count rows of the raw part with the rollup part. */
export function mergeConnectionCounts(
  raw: readonly TrendRow[],
  rawOverall: number,
  rollups: RollupReader,
  q: { cluster: string | undefined; by: string; plan: RollupPlan; buckets: Buckets },
): { rows: TrendRow[]; overall: number } {
  const buckets = rollups.buckets(q.cluster, q.plan.resolution, q.plan.since, q.plan.cut);
  const pollsAt = q.buckets.empty().map(() => 0);
  let polls = 0;
  for (const b of buckets) {
    const i = q.buckets.index(b.start);
    pollsAt[i] = (pollsAt[i] as number) + b.connPolls;
    polls += b.connPolls;
  }
  const lastStart = [...buckets].reverse().find((b) => b.connPolls > 0)?.start;
  // per key and bucket: the sum of the groups' figures
  const per = new Map<string, Map<bigint, { min: number; max: number; last: number; sum: number }>>();
  for (const c of rollups.conns(q.cluster, q.plan.resolution, q.plan.since, q.plan.cut)) {
    const k = groupKey(q.by, c);
    let m = per.get(k);
    if (m === undefined) per.set(k, (m = new Map()));
    const s = m.get(c.start) ?? { min: 0, max: 0, last: 0, sum: 0 };
    m.set(c.start, {
      min: s.min + c.openMin,
      max: s.max + c.openMax,
      last: s.last + c.openLast,
      sum: s.sum + c.openSum,
    });
  }
  const polled = buckets.filter((b) => b.connPolls > 0).length;
  const rawByKey = new Map(raw.map((r) => [r.key, r]));
  const rows: TrendRow[] = [];
  let rollLast = 0;
  for (const key of new Set([...rawByKey.keys(), ...per.keys()])) {
    const r = rawByKey.get(key);
    const m = per.get(key) ?? new Map<bigint, { min: number; max: number; last: number; sum: number }>();
    let min = m.size < polled ? 0 : Number.POSITIVE_INFINITY;
    let max = 0;
    let sum = 0;
    const sums = q.buckets.empty().map(() => 0);
    for (const [start, s] of m) {
      min = Math.min(min, s.min);
      max = Math.max(max, s.max);
      sum += s.sum;
      const i = q.buckets.index(start);
      sums[i] = (sums[i] as number) + s.sum;
    }
    if (!Number.isFinite(min)) min = 0;
    const last = lastStart === undefined ? 0 : (m.get(lastStart)?.last ?? 0);
    rollLast += last;
    const rawPolls = Number(r?.detail.polls ?? 0);
    const allPolls = rawPolls + polls;
    const mean = allPolls === 0 ? 0 : Math.round(((Number(r?.detail.mean ?? 0) * rawPolls + sum) / allPolls) * 10) / 10;
    rows.push({
      key,
      label: '',
      value: raw.length > 0 || rawPolls > 0 ? (r?.value ?? 0) : last,
      series: q.buckets.empty().map((_, i) => {
        const mine = r?.series[i] ?? Number.NaN;
        const n = pollsAt[i] as number;
        return Number.isNaN(mine) && n > 0 ? (sums[i] as number) / n : mine;
      }),
      detail: {
        min: r === undefined ? min : Math.min(min, Number(r.detail.min)),
        max: r === undefined ? max : Math.max(max, Number(r.detail.max)),
        mean,
        polls: allPolls,
      },
    });
  }
  return { rows, overall: raw.length > 0 ? rawOverall : rollLast };
}

interface LagObs {
  shadow: bigint;
  source: bigint;
  lag: bigint;
}

/** Merges lag rows (shadow or Iceberg) of the raw part with the rollup part. */
export function mergeLags(
  raw: readonly TrendRow[],
  rollups: RollupReader,
  q: {
    cluster: string | undefined;
    metric: 'shadow-lag' | 'iceberg-lag';
    by: string;
    plan: RollupPlan;
    buckets: Buckets;
  },
): { rows: TrendRow[]; overall: number } {
  const per = new Map<
    string,
    Map<bigint, { min: bigint; max: bigint; obs: LagObs; parts: Set<string>; state: string }>
  >();
  const add = (
    key: string,
    start: bigint,
    part: string,
    min: bigint,
    max: bigint,
    obs: LagObs,
    state: string,
  ): void => {
    let m = per.get(key);
    if (m === undefined) per.set(key, (m = new Map()));
    const s = m.get(start);
    if (s === undefined) {
      m.set(start, { min, max, obs: { ...obs }, parts: new Set([part]), state });
      return;
    }
    s.min += min;
    s.max += max;
    s.obs.shadow += obs.shadow;
    s.obs.source += obs.source;
    s.obs.lag += obs.lag;
    s.parts.add(part);
    s.state = state;
  };
  if (q.metric === 'shadow-lag') {
    for (const s of rollups.shadow(q.cluster, q.plan.resolution, q.plan.since, q.plan.cut)) {
      const part = `${s.link}/${s.topic}/${s.partition}`;
      const key = q.by === 'partition' ? part : q.by === 'topic' ? `${s.link}/${s.topic}` : s.link;
      add(
        key,
        s.start,
        part,
        s.lagMin,
        s.lagMax,
        { shadow: s.shadowLast, source: s.sourceLast, lag: s.lagLast },
        s.state,
      );
    }
  } else {
    for (const t of rollups.iceberg(q.cluster, q.plan.resolution, q.plan.since, q.plan.cut)) {
      add(t.topic, t.start, t.topic, t.lagMin, t.lagMax, { shadow: 0n, source: 0n, lag: t.lagLast }, '');
    }
  }
  const rawByKey = new Map(raw.map((r) => [r.key, r]));
  const rows: TrendRow[] = [];
  let overall = 0;
  for (const key of new Set([...rawByKey.keys(), ...per.keys()])) {
    const r = rawByKey.get(key);
    const m = [
      ...(per.get(key) ??
        new Map<bigint, { min: bigint; max: bigint; obs: LagObs; parts: Set<string>; state: string }>()),
    ].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const lagName = q.metric === 'shadow-lag' ? 'lag' : 'commitLag';
    let min = r === undefined ? undefined : BigInt(String(r.detail.minLag));
    let max = r === undefined ? undefined : BigInt(String(r.detail.maxLag));
    const series = q.buckets.empty();
    for (const [start, s] of m) {
      if (min === undefined || s.min < min) min = s.min;
      if (max === undefined || s.max > max) max = s.max;
      maxAt(series, q.buckets.index(start), Number(s.max));
    }
    const first = m[0]?.[1];
    const last = m[m.length - 1]?.[1];
    const value = r !== undefined ? r.value : Number(last?.obs.lag ?? 0n);
    overall += value;
    const detail: Record<string, string | number | boolean> = r === undefined ? {} : { ...r.detail };
    detail[lagName] = r === undefined ? String(last?.obs.lag ?? 0n) : String(r.detail[lagName]);
    detail.minLag = String(min ?? 0n);
    detail.maxLag = String(max ?? 0n);
    if (r === undefined) detail.partitions = last?.parts.size ?? 0;
    if (r === undefined && q.metric === 'shadow-lag') detail.state = last?.state ?? '';
    const trend =
      r?.trend ??
      (q.metric === 'shadow-lag' && first !== undefined && last !== undefined
        ? classify(first.obs, last.obs, 500)
        : 'ok');
    rows.push({
      key,
      label: '',
      value,
      series: series.map((v, i) => (Number.isNaN(r?.series[i] ?? Number.NaN) ? v : (r?.series[i] as number))),
      detail,
      trend,
      trendSeries: q.buckets.empty().map((_, i) => r?.trendSeries?.[i]),
    });
  }
  return { rows, overall };
}
