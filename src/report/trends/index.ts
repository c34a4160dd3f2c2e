/** `trends METRIC [--by KEY]`: validates the options, picks the window and runs the metric. */
import { formatHumanDuration } from '../../api/codec/duration.ts';
import { comparePolls } from '../timeline/frames.ts';
import { DEFAULT_THRESHOLDS } from '../timeline/thresholds.ts';
import { pollTime } from '../timeline/types.ts';
import type { RollupReader } from '../../db/rollups/rollup-store.ts';
import { Buckets } from './buckets.ts';
import { connectionCounts } from './connection-counts.ts';
import { counterRates } from './counter-rates.ts';
import {
  mergeConnectionCounts,
  mergeCounterRates,
  mergeLags,
  planRollups,
  resolutionLabel,
  rollupKeys,
  rollupNote,
  rollupStart,
  type RollupPlan,
} from './from-rollups.ts';
import { icebergFloor, icebergLag } from './iceberg-lag.ts';
import { shadowFloor, shadowLag } from './shadow-lag.ts';
import {
  isMetricName,
  METRIC_NAMES,
  METRICS,
  TrendsOptionsError,
  type TrendRow,
  type TrendsOptions,
  type TrendsResult,
  type TrendsSource,
} from './types.ts';

export * from './types.ts';
export { SourceHistory, type TimeLag } from './source-history.ts';

const DEFAULT_BUCKETS = 60;

/** Computes a trend over a window: one pass over the samples of the metric's resource. */
export function computeTrends(source: TrendsSource, opts: TrendsOptions): TrendsResult {
  if (!isMetricName(opts.metric)) {
    throw new TrendsOptionsError(
      `unknown metric ${JSON.stringify(opts.metric)}: expected one of ${METRIC_NAMES.join(', ')}`,
    );
  }
  const spec = METRICS[opts.metric];
  const by = opts.by ?? spec.keys[0];
  if (!(spec.keys as readonly string[]).includes(by)) {
    throw new TrendsOptionsError(
      `${opts.metric} cannot be grouped by ${JSON.stringify(by)}: expected one of ${spec.keys.join(', ')}`,
    );
  }
  if (opts.top !== undefined && (!Number.isSafeInteger(opts.top) || opts.top < 1))
    throw new TrendsOptionsError('--top must be a whole number, at least 1');
  const all = source.polls({ cluster: opts.cluster, since: opts.since, until: opts.until }).slice().sort(comparePolls);
  const first = all[0];
  const last = all[all.length - 1];
  const since = opts.since ?? rollupStart(source, opts.cluster) ?? (first !== undefined ? pollTime(first) : 0n);
  const until = opts.until ?? (last !== undefined ? pollTime(last) : since);
  if (until < since) throw new TrendsOptionsError('--since must not be after --until');
  const resourceOps: Record<string, readonly string[]> = {
    connections: ['ListKafkaConnections'],
    'shadow-lag': ['ListShadowTopics', 'GetShadowTopic', 'GetShadowLink'],
    'iceberg-lag': ['GetIcebergStatus'],
  };
  const ops = resourceOps[
    opts.metric === 'shadow-lag' || opts.metric === 'iceberg-lag' ? opts.metric : 'connections'
  ] as readonly string[];
  // never more buckets than polls of the busiest single stream (operation and target), so no bucket is empty by design
  const perStream = new Map<string, number>();
  for (const p of all) {
    if (p.outcome !== 'ok' || !ops.includes(p.operation) || p.fanoutCalls > 1) continue;
    const k = `${p.operation}\u0000${p.target}`;
    perStream.set(k, (perStream.get(k) ?? 0) + 1);
  }
  const pollsInWindow = Math.max(0, ...perStream.values());
  const notes: string[] = [];
  let plan: RollupPlan | undefined = planRollups(source, opts.cluster, since, until);
  if (plan !== undefined && !rollupKeys(opts.metric).includes(by)) {
    notes.push(`rollups do not keep ${opts.metric} by ${by}: only raw history is read`);
    plan = undefined;
  }
  if (plan !== undefined) return trendsWithRollups(source, opts, { since, until, by, pollsInWindow, plan, notes });
  const buckets = new Buckets(since, until, Math.max(1, Math.min(opts.buckets ?? DEFAULT_BUCKETS, pollsInWindow)));
  const window = { since, until, cluster: opts.cluster };
  const th = opts.thresholds ?? DEFAULT_THRESHOLDS;
  let rows: TrendRow[];
  let overall: number;
  switch (opts.metric) {
    case 'connections': {
      const r = connectionCounts(source, by, window, buckets);
      rows = r.rows;
      overall = r.overall;
      break;
    }
    case 'shadow-lag': {
      const r = shadowLag(source, by, window, buckets, Number(th.shadow.lagGrowth) / 1e9, shadowFloor(th));
      rows = r.rows;
      overall = r.overall;
      if (r.extrapolated)
        notes.push(
          'some time lags lie before the recorded source history and are extrapolated from the average source rate',
        );
      break;
    }
    case 'iceberg-lag': {
      const r = icebergLag(source, by, window, buckets, icebergFloor(th));
      rows = r.rows;
      overall = r.overall;
      break;
    }
    default: {
      const r = counterRates(source, opts.metric, by, window, buckets);
      rows = r.rows;
      overall = r.overall;
      if (r.resets > 0) notes.push(`${r.resets} counter resets seen (counted from zero)`);
    }
  }
  if (pollsInWindow === 0)
    notes.push(`no successful poll of ${ops.join(' or ')} between the bounds (${formatHumanDuration(until - since)})`);
  rows.sort((a, b) => b.value - a.value || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const total = rows.length;
  return {
    metric: opts.metric,
    by,
    unit: spec.unit,
    cluster: opts.cluster,
    since,
    until,
    buckets: buckets.count,
    rows: opts.top !== undefined ? rows.slice(0, opts.top) : rows,
    total,
    overall,
    notes,
  };
}

/** computeTrends for a window partly before raw history: the rollup part merged into the raw part. */
function trendsWithRollups(
  source: TrendsSource,
  opts: TrendsOptions,
  w: { since: bigint; until: bigint; by: string; pollsInWindow: number; plan: RollupPlan; notes: string[] },
): TrendsResult {
  const { since, until, by, plan, notes } = w;
  const rollups: RollupReader = source.rollups?.() ?? EMPTY_ROLLUPS;
  const spec = METRICS[opts.metric];
  const width = BigInt(plan.resolution) * 1_000_000_000n;
  const rollBuckets = Number((plan.cut - plan.since + width - 1n) / width);
  const buckets = new Buckets(
    since,
    until,
    Math.max(1, Math.min(opts.buckets ?? DEFAULT_BUCKETS, w.pollsInWindow + rollBuckets)),
  );
  const th = opts.thresholds ?? DEFAULT_THRESHOLDS;
  const rawPart = plan.cut <= until;
  const window = { since: plan.cut, until, cluster: opts.cluster };
  const q = { cluster: opts.cluster, by, plan, buckets };
  let merged: { rows: TrendRow[]; overall: number };
  switch (opts.metric) {
    case 'connections': {
      const r = rawPart ? connectionCounts(source, by, window, buckets) : { rows: [], overall: 0 };
      merged = mergeConnectionCounts(r.rows, r.overall, rollups, q);
      break;
    }
    case 'shadow-lag':
    case 'iceberg-lag': {
      const rows = !rawPart
        ? []
        : opts.metric === 'shadow-lag'
          ? shadowLag(source, by, window, buckets, Number(th.shadow.lagGrowth) / 1e9, shadowFloor(th)).rows
          : icebergLag(source, by, window, buckets, icebergFloor(th)).rows;
      merged = mergeLags(rows, rollups, { ...q, metric: opts.metric });
      break;
    }
    default: {
      // the raw part's counters start from the last poll before the cut (its baseline)
      const before = source
        .polls({ cluster: opts.cluster, since: plan.cut - width, until: plan.cut - 1n })
        .filter((p) => p.outcome === 'ok' && p.operation === 'ListKafkaConnections')
        .sort(comparePolls)
        .at(-1);
      const rawPolls = rawPart
        ? source
            .polls({ cluster: opts.cluster, since: plan.cut, until })
            .filter((p) => p.outcome === 'ok' && p.operation === 'ListKafkaConnections')
        : [];
      const last = rawPolls.sort(comparePolls).at(-1);
      const r = rawPart
        ? counterRates(
            source,
            opts.metric,
            by,
            { ...window, since: before === undefined ? plan.cut : pollTime(before) },
            buckets,
          )
        : { rows: [], resets: 0 };
      merged = mergeCounterRates(r.rows, rollups, {
        ...q,
        metric: opts.metric,
        rawLastPoll: last === undefined ? undefined : pollTime(last),
      });
      const resets = merged.rows.reduce((n, row) => n + Number(row.detail.resets ?? 0), 0);
      if (resets > 0) notes.push(`${resets} counter resets seen (counted from zero)`);
    }
  }
  notes.unshift(rollupNote(plan));
  const rows = merged.rows.sort((a, b) => b.value - a.value || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return {
    metric: opts.metric,
    by,
    unit: spec.unit,
    cluster: opts.cluster,
    since,
    until,
    buckets: buckets.count,
    rows: opts.top !== undefined ? rows.slice(0, opts.top) : rows,
    total: rows.length,
    overall: merged.overall,
    notes,
    rollups: { resolution: plan.resolution, before: plan.cut },
  };
}

export { resolutionLabel };

const EMPTY_ROLLUPS: RollupReader = {
  coverage: () => [],
  buckets: () => [],
  conns: () => [],
  shadow: () => [],
  iceberg: () => [],
  events: () => [],
  states: () => [],
};
