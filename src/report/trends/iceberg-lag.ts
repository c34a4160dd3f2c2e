/**
 * Iceberg commit lag over time, per partition or topic: the last commit lag, its range, and
 * whether commits are stalled at the end of the window (no committed offset moved for the
 * stall threshold while translation advanced), with the stalled buckets marked.
 */
import type { IcebergTopic } from '../../api/schema/iceberg.ts';
import { RESOURCES } from '../../api/schema/resources.ts';
import { comparePolls, framesOf } from '../timeline/frames.ts';
import { Buckets, maxAt } from './buckets.ts';
import type { Thresholds } from '../timeline/thresholds.ts';
import type { TrendClass, TrendRow, TrendsSource } from './types.ts';

interface Obs {
  lag: bigint;
  committed: bigint;
  translated: bigint;
  /** polls in a row without a commit, this one included */
  still?: number;
  /** time since a committed offset last moved (ns) */
  sinceCommit?: bigint;
}

/** What makes a commit stall material (trends only): records of lag and time without a commit. */
export interface CommitFloor {
  readonly records: bigint;
  readonly stall: bigint;
}

interface Group {
  /** when a committed offset last moved, and whether translation moved since */
  lastCommit: bigint;
  translatedSince: boolean;
  lastTime: bigint;
  first: Obs | undefined;
  last: Obs | undefined;
  min: bigint;
  max: bigint;
  partitions: Set<number>;
  series: number[];
  bucketLast: (Obs | undefined)[];
}

/**
 * `stalled` when translation advanced but no commit did, for more than one poll and at least
 * `floor.stall`, with at least `floor.records` of commit lag; else `ok` (commit lag is a
 * sawtooth, so a rise alone means little).
 */
function classify(a: Obs, z: Obs, floor: CommitFloor): TrendClass {
  if (z.committed > a.committed || z.translated <= a.translated) return 'ok';
  if (z.lag < floor.records || (z.still ?? 0) < 2 || (z.sinceCommit ?? 0n) < floor.stall) return 'ok';
  return 'stalled';
}

/** Computes Iceberg commit lag rows grouped by partition or topic. */
export function icebergLag(
  source: TrendsSource,
  by: string,
  window: { since: bigint; until: bigint; cluster?: string },
  buckets: Buckets,
  floor: CommitFloor,
): { rows: TrendRow[]; overall: number } {
  const ops = new Set<string>(RESOURCES['iceberg-topics'].operations);
  const polls = source
    .polls({ cluster: window.cluster, since: window.since, until: window.until })
    .filter((p) => p.outcome === 'ok' && ops.has(p.operation))
    .sort(comparePolls);
  const groups = new Map<string, Group>();
  for (const f of framesOf<IcebergTopic>(source.samples('iceberg-topics', window), polls)) {
    const b = buckets.index(f.time);
    const sums = new Map<string, { obs: Obs; parts: number[] }>();
    for (const t of f.rows) {
      for (const p of t.partitions) {
        const key = by === 'partition' ? `${t.topic}/${p.partition}` : t.topic;
        let s = sums.get(key);
        if (s === undefined) sums.set(key, (s = { obs: { lag: 0n, committed: 0n, translated: 0n }, parts: [] }));
        s.obs.lag += p.commitLag;
        s.obs.committed += p.lastCommittedOffset ?? 0n;
        s.obs.translated += p.lastTranslatedOffset ?? 0n;
        s.parts.push(p.partition);
      }
    }
    for (const [key, { obs, parts }] of sums) {
      let g = groups.get(key);
      if (g === undefined) {
        g = {
          lastCommit: f.time,
          translatedSince: false,
          lastTime: f.time,
          first: obs,
          last: obs,
          min: obs.lag,
          max: obs.lag,
          partitions: new Set(),
          series: buckets.empty(),
          bucketLast: [],
        };
        groups.set(key, g);
        obs.still = 0;
        obs.sinceCommit = 0n;
      } else if (g.last !== undefined) {
        const prev = g.last;
        if (obs.committed > prev.committed) {
          g.lastCommit = f.time;
          g.translatedSince = false;
          obs.still = 0;
        } else {
          if (obs.translated > prev.translated) g.translatedSince = true;
          obs.still = (prev.still ?? 0) + (f.time > g.lastTime ? 1 : 0);
        }
        obs.sinceCommit = f.time - g.lastCommit;
      }
      g.lastTime = f.time;
      for (const p of parts) g.partitions.add(p);
      g.last = obs;
      if (obs.lag < g.min) g.min = obs.lag;
      if (obs.lag > g.max) g.max = obs.lag;
      maxAt(g.series, b, Number(obs.lag));
      g.bucketLast[b] = obs;
    }
  }
  let overall = 0;
  const rows: TrendRow[] = [];
  for (const [key, g] of groups) {
    if (g.first === undefined || g.last === undefined) continue;
    overall += Number(g.last.lag);
    // stalled: no commit for the stall threshold while translation advanced, at the end of the window
    const stalledFor = g.translatedSince ? g.lastTime - g.lastCommit : 0n;
    const trend: TrendClass =
      stalledFor >= floor.stall && g.last.lag >= floor.records && (g.last.still ?? 0) > 1 ? 'stalled' : 'ok';
    rows.push({
      key,
      label: '',
      value: Number(g.last.lag),
      series: g.series,
      detail: {
        commitLag: String(g.last.lag),
        minLag: String(g.min),
        maxLag: String(g.max),
        partitions: g.partitions.size,
        commitsStalled: trend === 'stalled',
        noCommitForSeconds: Number(stalledFor) / 1e9,
      },
      trend,
      trendSeries: Array.from({ length: buckets.count }, (_, i) => {
        let a: Obs | undefined;
        for (let j = i - 1; j >= 0 && a === undefined; j--) a = g.bucketLast[j];
        const z = g.bucketLast[i];
        return a !== undefined && z !== undefined ? classify(a, z, floor) : undefined;
      }),
    });
  }
  return { rows, overall };
}

/** The material-stall floor of Iceberg trends, from the timeline's thresholds. */
export function icebergFloor(th: Thresholds): CommitFloor {
  return { records: th.iceberg.materialLag, stall: th.iceberg.commitStall };
}
