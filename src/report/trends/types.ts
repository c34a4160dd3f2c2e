/**
 * `trends METRIC [--by KEY]`: the metrics, their grouping keys and the shapes of the results.
 * Rates come from cumulative counters, counts from connection states, lags from shadow and
 * Iceberg offsets; every result carries one series per row, in equal time buckets.
 */
import type { RollupReader } from '../../db/rollups/rollup-store.ts';
import type { ReportReader } from '../query.ts';
import type { Thresholds } from '../timeline/thresholds.ts';
import type { CounterFramesRead } from './counter-frames.ts';

/** Every metric, with the keys it can be grouped by (the first is the default). */
export const METRICS = {
  'produce-bytes': {
    unit: 'bytes/s',
    keys: ['connection', 'client', 'principal', 'group', 'listener', 'broker', 'software'],
    doc: 'produced bytes per second',
  },
  'fetch-bytes': {
    unit: 'bytes/s',
    keys: ['connection', 'client', 'principal', 'group', 'listener', 'broker', 'software'],
    doc: 'fetched bytes per second',
  },
  requests: {
    unit: 'requests/s',
    keys: ['connection', 'client', 'principal', 'group', 'listener', 'broker', 'software'],
    doc: 'requests per second',
  },
  batches: {
    unit: 'batches/s',
    keys: ['connection', 'client', 'principal', 'group', 'listener', 'broker', 'software'],
    doc: 'produced batches per second',
  },
  'batch-size': {
    unit: 'bytes',
    keys: ['connection', 'client', 'principal', 'group', 'listener', 'broker', 'software'],
    doc: 'average produced batch size',
  },
  connections: {
    unit: 'connections',
    keys: ['state', 'broker', 'software', 'client', 'principal', 'listener', 'group'],
    doc: 'listed connections',
  },
  'shadow-lag': {
    unit: 'records',
    keys: ['partition', 'topic', 'link'],
    doc: 'shadow lag: source high watermark minus shadow high watermark',
  },
  'iceberg-lag': { unit: 'records', keys: ['partition', 'topic'], doc: 'Iceberg commit lag' },
} as const;

/** A metric name. */
export type MetricName = keyof typeof METRICS;
/** All metric names. */
export const METRIC_NAMES = Object.keys(METRICS) as MetricName[];

/** True when `name` is a metric. */
export function isMetricName(name: string): name is MetricName {
  return Object.hasOwn(METRICS, name);
}

/** Bad metric, key or window: the message says what is accepted. */
export class TrendsOptionsError extends Error {
  override readonly name = 'TrendsOptionsError';
}

/** Options of computeTrends; times in ns since the epoch. */
export interface TrendsOptions {
  readonly metric: MetricName;
  /** grouping key; default the metric's first key */
  readonly by?: string;
  /** default: the first recorded poll */
  readonly since?: bigint;
  /** default: the last recorded poll */
  readonly until?: bigint;
  readonly cluster?: string;
  /** at most this many rows (largest first); default all */
  readonly top?: number;
  /** series buckets; default 60 (never more than the polls in the window) */
  readonly buckets?: number;
  readonly thresholds?: Thresholds;
}

/** What trends reads (the store's HistoryReader satisfies it). */
export type TrendsSource = Pick<ReportReader, 'polls' | 'samples'> & {
  /** the rollups, read for any part of the window raw history no longer covers */
  readonly rollups?: () => RollupReader;
  /** the store's narrow read of connection counters (counter trends read full samples without it) */
  readonly connectionCounters?: CounterFramesRead;
};

/** The lag trend of a window: progress made, or not, while the source moves. */
export type TrendClass = 'ok' | 'growing' | 'stalled' | 'stopped';

/** One row of a trends result. */
export interface TrendRow {
  /** the group key (`connection` rows: the uid) */
  readonly key: string;
  /** a short description of the key (client, principal, broker of a connection) */
  readonly label: string;
  /** the headline value: rate over the window, last count, last lag */
  readonly value: number;
  /** per bucket (NaN where nothing was observed) */
  readonly series: readonly number[];
  /** metric-specific figures, for the wide and JSON outputs */
  readonly detail: Readonly<Record<string, string | number | boolean>>;
  /** lag metrics: the trend class over the window and per bucket */
  readonly trend?: TrendClass;
  readonly trendSeries?: readonly (TrendClass | undefined)[];
}

/** What computeTrends returns. */
export interface TrendsResult {
  readonly metric: MetricName;
  readonly by: string;
  readonly unit: string;
  readonly cluster: string | undefined;
  readonly since: bigint;
  readonly until: bigint;
  /** bucket boundaries: `buckets` slices of (until - since) */
  readonly buckets: number;
  /** rows shown (after --top), largest value first */
  readonly rows: readonly TrendRow[];
  /** rows before --top */
  readonly total: number;
  /** the sum (rates, counts, lags) or overall average (batch size) across every row */
  readonly overall: number;
  /** notes for the reader (counter resets seen, extrapolated time lags) */
  readonly notes: readonly string[];
  /** set when part of the window was read from rollups: their resolution (seconds) and where raw history takes over */
  readonly rollups?: { readonly resolution: number; readonly before: bigint };
}
