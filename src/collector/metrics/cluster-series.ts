/**
 * The cluster's own series, from the latest successful poll of each operation: open connections
 * by node and listener (a whole round, fan-out calls merged by connection uid), shadow lag by
 * link and topic, Iceberg commit lag by topic, the upgrade state. Everything is kept per cluster
 * and handed out bounded (top N plus `other`) with sanitized label values.
 */
import type { ResponseOf } from '../../api/schema/operations.ts';
import type { PollRecord } from '../../db/poll-record.ts';
import type { RoundResult } from '../poller.ts';
import { DEFAULT_TOP_N, gaugeValue, labelValue, topN, type BoundedSeries } from './labels.ts';

const OPEN = 'KAFKA_CONNECTION_STATE_OPEN';
const UPGRADE_PREFIX = 'FINALIZATION_STATE_';

interface PendingConnections {
  readonly round: string;
  /** uid -> `node\u0000listener` (label values already sanitized) */
  readonly open: Map<string, string>;
}

interface ClusterState {
  pending?: PendingConnections;
  /** open connections by `node\u0000listener`, from the latest complete round */
  connections?: Map<string, number>;
  /** link -> topic -> summed partition lag */
  readonly shadowLag: Map<string, Map<string, bigint>>;
  /** topic -> summed partition commit lag */
  icebergLag?: Map<string, bigint>;
  upgradeState?: string;
}

/** The latest cluster-side values, per cluster; fed with every stored record and every finished round. */
export class ClusterSeries {
  readonly #clusters = new Map<string, ClusterState>();
  readonly #n: number;

  /** `n`: most label values kept per metric and cluster before the rest is summed into `other`. */
  constructor(n: number = DEFAULT_TOP_N) {
    this.#n = n;
  }

  #state(cluster: string): ClusterState {
    let s = this.#clusters.get(cluster);
    if (s === undefined) {
      s = { shadowLag: new Map() };
      this.#clusters.set(cluster, s);
    }
    return s;
  }

  /** Takes one poll attempt; failed attempts leave the previous values in place. */
  record(r: PollRecord): void {
    if (!r.outcome.ok) return;
    const s = this.#state(r.cluster);
    const answer: unknown = r.outcome.answer;
    switch (r.operation) {
      case 'ListKafkaConnections': {
        if (s.pending?.round !== r.round) s.pending = { round: r.round, open: new Map() };
        for (const c of (answer as ResponseOf<'ListKafkaConnections'>).connections) {
          if (c.state !== OPEN) continue;
          s.pending.open.set(c.uid, `${labelValue(String(c.nodeId))}\u0000${labelValue(c.listenerName)}`);
        }
        return;
      }
      case 'ListShadowTopics': {
        const topics = new Map<string, bigint>();
        for (const t of (answer as ResponseOf<'ListShadowTopics'>).shadowTopics)
          topics.set(t.name, topicLag(t.status.partitionInformation));
        s.shadowLag.set(r.target, topics);
        return;
      }
      case 'GetShadowTopic': {
        const slash = r.target.indexOf('/');
        const link = slash < 0 ? r.target : r.target.slice(0, slash);
        const t = (answer as ResponseOf<'GetShadowTopic'>).shadowTopic;
        const topics = s.shadowLag.get(link) ?? new Map<string, bigint>();
        topics.set(t.name, topicLag(t.status.partitionInformation));
        s.shadowLag.set(link, topics);
        return;
      }
      case 'GetIcebergStatus': {
        const lag = new Map<string, bigint>();
        for (const t of (answer as ResponseOf<'GetIcebergStatus'>).topics) {
          lag.set(
            t.topic,
            t.partitions.reduce((sum, p) => sum + p.commitLag, 0n),
          );
        }
        s.icebergLag = lag;
        return;
      }
      case 'GetUpgradeStatus': {
        const state = String((answer as ResponseOf<'GetUpgradeStatus'>).state);
        s.upgradeState = (state.startsWith(UPGRADE_PREFIX) ? state.slice(UPGRADE_PREFIX.length) : state).toLowerCase();
        return;
      }
      case 'GetShadowLink':
        return;
    }
  }

  /** Ends a round: a connections round that finished without failure replaces the open-connection counts. */
  round(r: RoundResult): void {
    if (r.operation !== 'ListKafkaConnections') return;
    const s = this.#clusters.get(r.cluster);
    const pending = s?.pending;
    if (s === undefined || pending === undefined || pending.round !== r.round) return;
    s.pending = undefined;
    if (r.failures.length > 0 || r.stopped) return;
    const counts = new Map<string, number>();
    for (const key of pending.open.values()) counts.set(key, (counts.get(key) ?? 0) + 1);
    s.connections = counts;
  }

  /** Open connections: labels [cluster, node, listener]. */
  openConnections(): BoundedSeries[] {
    return this.#each((cluster, s) =>
      topN(
        [...(s.connections ?? new Map<string, number>())].map(([k, value]) => ({ labels: k.split('\u0000'), value })),
        this.#n,
      ).map((x) => ({ labels: [cluster, ...x.labels], value: x.value })),
    );
  }

  /** Shadow lag: labels [cluster, link, topic]. */
  shadowLag(): BoundedSeries[] {
    return this.#each((cluster, s) => {
      const all: BoundedSeries[] = [];
      for (const [link, topics] of s.shadowLag) {
        for (const [topic, lag] of topics)
          all.push({ labels: [labelValue(link), labelValue(topic)], value: gaugeValue(lag) });
      }
      return topN(all, this.#n).map((x) => ({ labels: [cluster, ...x.labels], value: x.value }));
    });
  }

  /** Iceberg commit lag: labels [cluster, topic]. */
  icebergCommitLag(): BoundedSeries[] {
    return this.#each((cluster, s) =>
      topN(
        [...(s.icebergLag ?? new Map<string, bigint>())].map(([t, lag]) => ({
          labels: [labelValue(t)],
          value: gaugeValue(lag),
        })),
        this.#n,
      ).map((x) => ({ labels: [cluster, ...x.labels], value: x.value })),
    );
  }

  /** Upgrade state: labels [cluster, state], value 1 (one series per cluster). */
  upgradeState(): BoundedSeries[] {
    return this.#each((cluster, s) =>
      s.upgradeState === undefined ? [] : [{ labels: [cluster, labelValue(s.upgradeState)], value: 1 }],
    );
  }

  #each(fn: (cluster: string, s: ClusterState) => BoundedSeries[]): BoundedSeries[] {
    return [...this.#clusters].flatMap(([cluster, s]) => fn(labelValue(cluster), s));
  }
}

/** The lag of a shadow topic: the sum over its partitions of source high watermark minus shadow high watermark (never negative). */
function topicLag(
  partitions: readonly { readonly highWatermark: bigint; readonly sourceHighWatermark: bigint }[],
): bigint {
  let sum = 0n;
  for (const p of partitions) {
    const d = p.sourceHighWatermark - p.highWatermark;
    if (d > 0n) sum += d;
  }
  return sum;
}
