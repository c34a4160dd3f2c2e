/** `trends METRIC [--by KEY]`: validates the options, picks the window and runs the metric. */
import { formatHumanDuration } from '../../api/codec/duration.ts';
import { comparePolls } from '../timeline/frames.ts';
import { DEFAULT_THRESHOLDS } from '../timeline/thresholds.ts';
import { pollTime } from '../timeline/types.ts';
import { Buckets } from './buckets.ts';
import { connectionCounts } from './connection-counts.ts';
import { counterRates } from './counter-rates.ts';
import { icebergLag } from './iceberg-lag.ts';
import { shadowLag } from './shadow-lag.ts';
import { isMetricName, METRIC_NAMES, METRICS, TrendsOptionsError, type TrendRow, type TrendsOptions, type TrendsResult, type TrendsSource } from './types.ts';

export * from './types.ts';
export { SourceHistory, type TimeLag } from './source-history.ts';

const DEFAULT_BUCKETS = 60;

/** Computes a trend over a window: one pass over the samples of the metric's resource. */
export function computeTrends(source: TrendsSource, opts: TrendsOptions): TrendsResult {
  if (!isMetricName(opts.metric)) {
    throw new TrendsOptionsError(`unknown metric ${JSON.stringify(opts.metric)}: expected one of ${METRIC_NAMES.join(', ')}`);
  }
  const spec = METRICS[opts.metric];
  const by = opts.by ?? spec.keys[0];
  if (!(spec.keys as readonly string[]).includes(by)) {
    throw new TrendsOptionsError(`${opts.metric} cannot be grouped by ${JSON.stringify(by)}: expected one of ${spec.keys.join(', ')}`);
  }
  if (opts.top !== undefined && (!Number.isSafeInteger(opts.top) || opts.top < 1)) throw new TrendsOptionsError('--top must be a whole number, at least 1');
  const all = source.polls({ cluster: opts.cluster, since: opts.since, until: opts.until }).slice().sort(comparePolls);
  const first = all[0];
  const last = all[all.length - 1];
  const since = opts.since ?? (first !== undefined ? pollTime(first) : 0n);
  const until = opts.until ?? (last !== undefined ? pollTime(last) : since);
  if (until < since) throw new TrendsOptionsError('--since must not be after --until');
  const resourceOps: Record<string, readonly string[]> = {
    connections: ['ListKafkaConnections'],
    'shadow-lag': ['ListShadowTopics', 'GetShadowTopic', 'GetShadowLink'],
    'iceberg-lag': ['GetIcebergStatus'],
  };
  const ops = resourceOps[opts.metric === 'shadow-lag' || opts.metric === 'iceberg-lag' ? opts.metric : 'connections'] as readonly string[];
  // never more buckets than polls of the busiest single stream (operation and target), so no bucket is empty by design
  const perStream = new Map<string, number>();
  for (const p of all) {
    if (p.outcome !== 'ok' || !ops.includes(p.operation) || p.fanoutCalls > 1) continue;
    const k = `${p.operation}\u0000${p.target}`;
    perStream.set(k, (perStream.get(k) ?? 0) + 1);
  }
  const pollsInWindow = Math.max(0, ...perStream.values());
  const buckets = new Buckets(since, until, Math.max(1, Math.min(opts.buckets ?? DEFAULT_BUCKETS, pollsInWindow)));
  const window = { since, until, cluster: opts.cluster };
  const th = opts.thresholds ?? DEFAULT_THRESHOLDS;
  const notes: string[] = [];
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
      const r = shadowLag(source, by, window, buckets, Number(th.shadow.lagGrowth) / 1e9);
      rows = r.rows;
      overall = r.overall;
      if (r.extrapolated) notes.push('some time lags lie before the recorded source history and are extrapolated from the average source rate');
      break;
    }
    case 'iceberg-lag': {
      const r = icebergLag(source, by, window, buckets, th.iceberg.commitStall);
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
  if (pollsInWindow === 0) notes.push(`no successful poll of ${ops.join(' or ')} between the bounds (${formatHumanDuration(until - since)})`);
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
