/**
 * Shadow lag over time (source high watermark minus shadow high watermark), per partition,
 * topic or link: the last lag, its range, a trend class over the window and per bucket, and an
 * estimated time lag read from the source's recorded offset history (flagged when extrapolated).
 */
import type { ShadowTopicRow } from '../../api/schema/resources.ts';
import { RESOURCES } from '../../api/schema/resources.ts';
import { comparePolls, framesOf } from '../timeline/frames.ts';
import { Buckets, maxAt } from './buckets.ts';
import { SourceHistory, type TimeLag } from './source-history.ts';
import type { Thresholds } from '../timeline/thresholds.ts';
import type { TrendClass, TrendRow, TrendsSource } from './types.ts';

interface Part {
  readonly history: SourceHistory;
  shadow: bigint;
  source: bigint;
  state: string;
}

interface Obs {
  shadow: bigint;
  source: bigint;
  lag: bigint;
  /** the largest time lag of the row's partitions at this observation (ns), when known */
  timeLag?: bigint;
  /** polls of the row in a row without replication progress, this one included */
  still?: number;
}

/** What makes a lag material enough to be called stalled or stopped (trends only). */
export interface LagFloor {
  /** records of lag below which nothing is stalled or stopped */
  readonly records: bigint;
  /** time behind below which nothing is stalled or stopped (ns) */
  readonly timeLag: bigint;
}

interface Group {
  readonly parts: Set<string>;
  first: Obs | undefined;
  last: Obs | undefined;
  min: bigint;
  max: bigint;
  series: number[];
  bucketLast: (Obs | undefined)[];
  state: string;
  lastTime: bigint;
}

/**
 * The trend class of a stretch: `stopped` when the shadow made no progress while the source
 * moved, `stalled` when neither moved but lag remains, `growing` when the lag rose by more than
 * `growth` records, else `ok`. With a `floor`, stalled and stopped also need a material lag (at
 * least `floor.records` records and, when known, `floor.timeLag` behind) that persisted: the
 * last observation is the second poll or later without progress.
 */
export function classify(first: Obs, last: Obs, growth: number, floor?: LagFloor): TrendClass {
  if (last.shadow <= first.shadow) {
    if (floor !== undefined && !material(last, floor)) return 'ok';
    if (last.source > first.source) return 'stopped';
    return last.lag > 0n ? 'stalled' : 'ok';
  }
  return Number(last.lag - first.lag) > growth ? 'growing' : 'ok';
}

function material(o: Obs, floor: LagFloor): boolean {
  if (o.lag < floor.records) return false;
  if (o.timeLag !== undefined && o.timeLag < floor.timeLag) return false;
  return (o.still ?? 0) > 1;
}

/** Computes shadow lag rows grouped by partition, topic or link. */
export function shadowLag(
  source: TrendsSource,
  by: string,
  window: { since: bigint; until: bigint; cluster?: string },
  buckets: Buckets,
  growthSeconds: number,
  floor: LagFloor,
): { rows: TrendRow[]; overall: number; extrapolated: boolean } {
  const ops = new Set<string>(RESOURCES['shadow-topics'].operations);
  const polls = source
    .polls({ cluster: window.cluster, since: window.since, until: window.until })
    .filter((p) => p.outcome === 'ok' && ops.has(p.operation))
    .sort(comparePolls);
  const parts = new Map<string, Part>();
  const groups = new Map<string, Group>();
  let lastTime = window.until;
  for (const f of framesOf<ShadowTopicRow>(source.samples('shadow-topics', window), polls)) {
    const b = buckets.index(f.time);
    const touched = new Set<Group>();
    for (const t of f.rows) {
      for (const p of t.status.partitionInformation) {
        const pk = `${t.shadowLinkName}/${t.name}/${p.partitionId}`;
        let part = parts.get(pk);
        if (part === undefined)
          parts.set(pk, (part = { history: new SourceHistory(), shadow: 0n, source: 0n, state: '' }));
        part.history.add(
          p.sourceLastUpdatedTimestamp !== 0n ? p.sourceLastUpdatedTimestamp : f.time,
          Number(p.sourceHighWatermark),
        );
        part.shadow = p.highWatermark;
        part.source = p.sourceHighWatermark;
        part.state = t.status.state.replace('SHADOW_TOPIC_STATE_', '');
        const gk = by === 'partition' ? pk : by === 'topic' ? `${t.shadowLinkName}/${t.name}` : t.shadowLinkName;
        let g = groups.get(gk);
        if (g === undefined) {
          g = {
            parts: new Set(),
            first: undefined,
            last: undefined,
            min: 0n,
            max: 0n,
            series: buckets.empty(),
            bucketLast: [],
            state: '',
            lastTime: f.time,
          };
          groups.set(gk, g);
        }
        g.parts.add(pk);
        g.state = part.state;
        touched.add(g);
      }
    }
    for (const g of touched) {
      const obs: Obs = { shadow: 0n, source: 0n, lag: 0n };
      for (const pk of g.parts) {
        const part = parts.get(pk) as Part;
        obs.shadow += part.shadow;
        obs.source += part.source;
        obs.lag += part.source - part.shadow;
        const tl = part.history.timeLag(f.time, Number(part.shadow));
        if (tl !== undefined && (obs.timeLag === undefined || tl.ns > obs.timeLag)) obs.timeLag = tl.ns;
      }
      // answers of the same instant (several operations report one topic) count as one poll
      const prev = g.last;
      if (prev === undefined || obs.shadow > prev.shadow) obs.still = 0;
      else obs.still = (prev.still ?? 0) + (f.time > g.lastTime ? 1 : 0);
      g.lastTime = f.time;
      if (g.first === undefined) {
        g.first = obs;
        g.min = obs.lag;
        g.max = obs.lag;
      }
      g.last = obs;
      if (obs.lag < g.min) g.min = obs.lag;
      if (obs.lag > g.max) g.max = obs.lag;
      maxAt(g.series, b, Number(obs.lag));
      g.bucketLast[b] = obs;
    }
    lastTime = f.time;
  }
  let overall = 0;
  let anyExtrapolated = false;
  const rows: TrendRow[] = [];
  for (const [key, g] of groups) {
    if (g.first === undefined || g.last === undefined) continue;
    let rate = 0;
    let timeLag: TimeLag | undefined;
    for (const pk of g.parts) {
      const part = parts.get(pk) as Part;
      rate += part.history.ratePerSecond();
      const tl = part.history.timeLag(lastTime, Number(part.shadow));
      if (tl !== undefined && (timeLag === undefined || tl.ns > timeLag.ns)) timeLag = tl;
    }
    const growth = Math.max(500, rate * growthSeconds);
    const trendSeries = Array.from({ length: buckets.count }, (_, i) => {
      // progress over the bucket: from the last observation before it to its last one
      let a: Obs | undefined;
      for (let j = i - 1; j >= 0 && a === undefined; j--) a = g.bucketLast[j];
      const z = g.bucketLast[i];
      return a !== undefined && z !== undefined ? classify(a, z, growth, floor) : undefined;
    });
    overall += Number(g.last.lag);
    if (timeLag?.extrapolated === true) anyExtrapolated = true;
    const detail: Record<string, string | number | boolean> = {
      lag: String(g.last.lag),
      minLag: String(g.min),
      maxLag: String(g.max),
      partitions: g.parts.size,
      sourceRate: Math.round(rate * 10) / 10,
      state: g.state,
    };
    if (timeLag !== undefined) {
      detail.timeLagSeconds = Number(timeLag.ns) / 1e9;
      detail.extrapolated = timeLag.extrapolated;
    }
    rows.push({
      key,
      label: '',
      value: Number(g.last.lag),
      series: g.series,
      detail,
      trend: classify(g.first, g.last, growth, floor),
      trendSeries,
    });
  }
  return { rows, overall, extrapolated: anyExtrapolated };
}

/** The material-lag floor of shadow trends, from the timeline's thresholds. */
export function shadowFloor(th: Thresholds): LagFloor {
  return { records: th.shadow.materialLag, timeLag: th.shadow.materialTimeLag };
}
