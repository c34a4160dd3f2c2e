/**
 * The collector's `/metrics`: a prom-client registry of its own (never the global one) with the
 * polls and rounds by cluster, operation and outcome, poll durations, the last successful poll,
 * connection coverage, held-back and dropped polls, database size, retention work, process
 * metrics, and the cluster's own bounded series from the latest polls (ClusterSeries).
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { PollRecord } from '../../db/poll-record.ts';
import type { CollectorStats } from '../output.ts';
import type { RoundResult } from '../poller.ts';
import { ClusterSeries } from './cluster-series.ts';
import { DEFAULT_TOP_N, gaugeValue, labelValue, type BoundedSeries } from './labels.ts';

/** Prefix of every series name. */
export const METRIC_PREFIX = 'flightrec_';

/** Buckets of the poll duration histogram, seconds. */
export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Where the metrics read what they do not observe themselves. */
export interface MetricsSources {
  /** the collector's live counters (undefined until the collector exists) */
  readonly stats: () => CollectorStats | undefined;
  /** the database size in bytes (file plus WAL), undefined while unknown */
  readonly dbSize?: () => number | undefined;
  /** most label values per metric and cluster for the cluster's own series (default 20) */
  readonly topN?: number;
  /** the receivers of the live alerts and their counters (none without alerts) */
  readonly alerts?: () => readonly AlertDeliveryStats[];
}

/** The delivery counters of one receiver of the live alerts. */
export interface AlertDeliveryStats {
  /** the receiver's name (the kind and host, or its `name:`) */
  readonly receiver: string;
  readonly sent: number;
  readonly failed: number;
  readonly dropped: number;
  readonly queued: number;
}

const NS_PER_S = 1e9;

/** The collector's metrics; feed it every stored record and every finished round. */
export class CollectorMetrics {
  /** the registry served on /metrics */
  readonly registry = new Registry();
  readonly #series: ClusterSeries;
  readonly #polls: Counter<'cluster' | 'operation' | 'outcome'>;
  readonly #rounds: Counter<'cluster' | 'operation' | 'outcome'>;
  readonly #duration: Histogram<'cluster' | 'operation'>;
  readonly #lastOk: Gauge<'cluster' | 'operation'>;
  readonly #coverage: Gauge<'cluster'>;
  readonly #rowsCovered: Gauge<'cluster'>;
  readonly #totalSize: Gauge<'cluster'>;

  /** Registers every metric on a new registry. */
  constructor(sources: MetricsSources) {
    const registers = [this.registry];
    const p = METRIC_PREFIX;
    const stat = (pick: (s: CollectorStats) => number) => (): number | undefined => {
      const s = sources.stats();
      return s === undefined ? undefined : pick(s);
    };
    this.#series = new ClusterSeries(sources.topN ?? DEFAULT_TOP_N);
    this.#polls = new Counter({
      name: `${p}polls_total`,
      help: 'Poll attempts (calls, retries included) by cluster, operation and outcome (ok or the Connect error code).',
      labelNames: ['cluster', 'operation', 'outcome'],
      registers,
    });
    this.#rounds = new Counter({
      name: `${p}rounds_total`,
      help: 'Scheduled rounds by cluster, operation and outcome (ok, failed, stopped, standby).',
      labelNames: ['cluster', 'operation', 'outcome'],
      registers,
    });
    this.#duration = new Histogram({
      name: `${p}poll_duration_seconds`,
      help: 'Duration of one poll attempt (one call), seconds.',
      labelNames: ['cluster', 'operation'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.#lastOk = new Gauge({
      name: `${p}last_successful_poll_timestamp_seconds`,
      help: 'End of the latest successful poll, seconds since the epoch (the collector clock).',
      labelNames: ['cluster', 'operation'],
      registers,
    });
    this.#coverage = new Gauge({
      name: `${p}connections_coverage_ratio`,
      help: 'Share of the matching connections the latest ListKafkaConnections round gathered (1 = complete).',
      labelNames: ['cluster'],
      registers,
    });
    this.#rowsCovered = new Gauge({
      name: `${p}connections_rows_covered`,
      help: 'Distinct connections gathered by the latest ListKafkaConnections round.',
      labelNames: ['cluster'],
      registers,
    });
    this.#totalSize = new Gauge({
      name: `${p}connections_total_size`,
      help: 'totalSize the cluster reported in the latest ListKafkaConnections round (float; exact up to 2^53).',
      labelNames: ['cluster'],
      registers,
    });
    fromStats(
      registers,
      'gauge',
      `${p}held_polls`,
      'Polls held in memory because the database refuses writes.',
      stat((s) => s.unwritten),
    );
    fromStats(
      registers,
      'gauge',
      `${p}held_bytes`,
      'Estimated memory of the held polls, bytes.',
      stat((s) => s.heldBytes),
    );
    fromStats(
      registers,
      'counter',
      `${p}polls_dropped_total`,
      'Held polls dropped (oldest first) past the memory budget.',
      stat((s) => s.dropped),
    );
    fromStats(
      registers,
      'counter',
      `${p}polls_lost_recorded_total`,
      'not_stored polls written to record dropped ones.',
      stat((s) => s.lostRecorded),
    );
    fromStats(
      registers,
      'counter',
      `${p}polls_unstorable_total`,
      'Answers stored as failed polls because they could not be stored as received.',
      stat((s) => s.unstorable),
    );
    fromStats(
      registers,
      'counter',
      `${p}database_reopened_total`,
      'Times the database file was found deleted or replaced and reopened.',
      stat((s) => s.reopened),
    );
    fromStats(registers, 'gauge', `${p}database_size_bytes`, 'Size of the database file plus its WAL, bytes.', () =>
      sources.dbSize?.(),
    );
    fromStats(
      registers,
      'counter',
      `${p}retention_runs_total`,
      'Retention passes run.',
      stat((s) => s.retentionRuns),
    );
    fromStats(
      registers,
      'counter',
      `${p}retention_pruned_polls_total`,
      'Polls removed by retention.',
      stat((s) => s.prunedPolls),
    );
    fromStats(
      registers,
      'counter',
      `${p}retention_pruned_bytes_total`,
      'Bytes of the database file retention freed.',
      stat((s) => s.prunedBytes),
    );
    fromStats(
      registers,
      'gauge',
      `${p}retention_max_prune_delay_seconds`,
      'Longest delay retention added to a scheduled poll, seconds.',
      stat((s) => s.maxPruneDelayMs / 1000),
    );
    const series = this.#series;
    bounded(
      registers,
      `${p}cluster_open_connections`,
      'Open connections by broker node and listener, latest complete round (top N, rest in other).',
      ['cluster', 'node', 'listener'],
      () => series.openConnections(),
    );
    bounded(
      registers,
      `${p}cluster_shadow_lag`,
      'Shadow topic lag (source minus shadow high watermark, summed over partitions) by link and topic, latest poll (top N, rest in other).',
      ['cluster', 'link', 'topic'],
      () => series.shadowLag(),
    );
    bounded(
      registers,
      `${p}cluster_iceberg_commit_lag`,
      'Iceberg records written but not committed, summed over partitions, by topic, latest poll (top N, rest in other).',
      ['cluster', 'topic'],
      () => series.icebergCommitLag(),
    );
    bounded(
      registers,
      `${p}cluster_upgrade_state`,
      'Upgrade finalization state of the cluster, latest poll: 1 on the current state.',
      ['cluster', 'state'],
      () => series.upgradeState(),
    );
    alertSeries(registers, () => sources.alerts?.() ?? []);
    collectDefaultMetrics({ register: this.registry, prefix: p });
    dropGaugesNamedTotal(this.registry);
  }

  /** Takes one stored poll attempt (after secrets were removed). */
  record(r: PollRecord): void {
    const cluster = labelValue(r.cluster);
    const operation = r.operation;
    this.#polls.inc({ cluster, operation, outcome: r.outcome.ok ? 'ok' : labelValue(r.outcome.code) });
    const seconds = Number(r.endedAt - r.startedAt) / NS_PER_S;
    if (seconds >= 0) this.#duration.observe({ cluster, operation }, seconds);
    if (r.outcome.ok) this.#lastOk.set({ cluster, operation }, Number(r.endedAt / 1_000_000n) / 1000);
    this.#series.record(r);
  }

  /** Takes one finished round. */
  round(r: RoundResult): void {
    const cluster = labelValue(r.cluster);
    const outcome = r.standby === true ? 'standby' : r.failures.length > 0 ? 'failed' : r.stopped ? 'stopped' : 'ok';
    this.#rounds.inc({ cluster, operation: r.operation, outcome });
    this.#series.round(r);
    const c = r.coverage;
    if (c === undefined) return;
    const total = gaugeValue(c.totalSize);
    this.#rowsCovered.set({ cluster }, c.rowsCovered);
    this.#totalSize.set({ cluster }, total);
    this.#coverage.set({ cluster }, total === 0 ? 1 : Math.min(1, c.rowsCovered / total));
  }

  /** The page served on /metrics: the Prometheus text format and its content type. */
  async page(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/** A metric without labels whose value is read at scrape time (nothing is exported while it is undefined). */
function fromStats(
  registers: Registry[],
  type: 'gauge' | 'counter',
  name: string,
  help: string,
  read: () => number | undefined,
): void {
  if (type === 'gauge') {
    new Gauge({
      name,
      help,
      registers,
      collect() {
        const v = read();
        if (v === undefined) this.reset();
        else this.set(v);
      },
    });
    return;
  }
  new Counter({
    name,
    help,
    registers,
    collect() {
      this.reset();
      const v = read();
      if (v !== undefined && v > 0) this.inc(v);
    },
  });
}

/** prom-client's gauges named like counters, which `promtool check metrics` refuses. */
const GAUGES_NAMED_TOTAL = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/**
 * Drops prom-client's totals of active handles, requests and resources: gauges named like
 * counters (`promtool check metrics` refuses a gauge ending in `_total`); the same counts by
 * type stay (`nodejs_active_handles`, `nodejs_active_requests`, `nodejs_active_resources`).
 */
function dropGaugesNamedTotal(registry: Registry): void {
  for (const name of GAUGES_NAMED_TOTAL) registry.removeSingleMetric(`${METRIC_PREFIX}${name}`);
}

/** The delivery counters of the live alerts by receiver, read at scrape time. */
function alertSeries(registers: Registry[], read: () => readonly AlertDeliveryStats[]): void {
  const p = METRIC_PREFIX;
  const counters = [
    ['sent', 'Alerts delivered to the receiver (Alertmanager: alerts in accepted posts; webhook: events).'],
    ['failed', 'Alerts the receiver did not accept after every retry (given up).'],
    ['dropped', 'Alerts dropped unsent: the receiver’s queue was full, or the collector stopped first.'],
  ] as const;
  for (const [what, help] of counters) {
    new Counter({
      name: `${p}alerts_${what}_total`,
      help,
      labelNames: ['receiver'],
      registers,
      collect() {
        this.reset();
        for (const s of read()) this.inc({ receiver: labelValue(s.receiver) }, s[what]);
      },
    });
  }
  new Gauge({
    name: `${p}alerts_queued`,
    help: 'Alerts waiting to be delivered to the receiver, or being delivered.',
    labelNames: ['receiver'],
    registers,
    collect() {
      this.reset();
      for (const s of read()) this.set({ receiver: labelValue(s.receiver) }, s.queued);
    },
  });
}

/** A gauge rebuilt from bounded series at every scrape (old label sets disappear). */
function bounded<L extends string>(
  registers: Registry[],
  name: string,
  help: string,
  labelNames: readonly L[],
  read: () => BoundedSeries[],
): void {
  new Gauge<L>({
    name,
    help,
    labelNames,
    registers,
    collect() {
      this.reset();
      for (const s of read()) {
        const labels: Partial<Record<L, string>> = {};
        labelNames.forEach((l, i) => {
          labels[l] = s.labels[i] ?? '';
        });
        this.set(labels, s.value);
      }
    },
  });
}
