/**
 * Shadow link status at time t: topics whose high watermarks chase the source's (capacity-limited
 * replication, so lag grows in spikes and pauses and drains afterwards), task states per broker
 * and shard, and the link state.
 */
import type { ShadowTopic, ShadowTopicPartition } from '../api/schema/shadow-topic.ts';
import type { ShadowLink, TaskStatus } from '../api/schema/shadow-link.ts';
import { flowIntegral, makeWave, normalizeMods, type Mod, type Wave } from './flow.ts';
import { hash, unit } from './rng.ts';
import { absNs } from './time.ts';
import { inAny, isUp, type Plan, type Window } from './plan.ts';
import { TASKS, type LinkSpec, type PartitionSpec, type TopicSpec } from './links.ts';
import type { LinkPlan, TopicPlan } from './link-plan.ts';
import { schemaRegistryStatus } from './schema-sync.ts';

/** Replication capacity relative to a partition's mean source rate. */
const CAP = 3;
/** Source metadata refresh period, seconds. */
const REFRESH = 1;

const DEFAULT_PROPERTIES = [
  'cleanup.policy',
  'compression.type',
  'delete.retention.ms',
  'max.compaction.lag.ms',
  'max.message.bytes',
  'min.compaction.lag.ms',
  'replication.factor',
  'retention.bytes',
  'retention.ms',
  'timestamp.type',
];

interface PartitionModel {
  readonly spec: PartitionSpec;
  readonly wave: Wave;
  readonly spikes: Mod[];
  readonly dw: number;
  readonly dp: number;
  /** candidate times (s) of the min-plus replication formula */
  readonly cuts: number[];
  readonly stopped: Window[];
}

/** Computes link and topic status; caches per-partition models. */
export class LinkStatusModel {
  readonly #models = new Map<string, PartitionModel>();

  readonly #plan: Plan;
  readonly #links: readonly LinkSpec[];
  readonly #linkPlans: Map<string, LinkPlan>;

  constructor(plan: Plan, links: readonly LinkSpec[], linkPlans: Map<string, LinkPlan>) {
    this.#plan = plan;
    this.#links = links;
    this.#linkPlans = linkPlans;
  }

  /** The link's spec, or undefined. */
  link(name: string): LinkSpec | undefined {
    return this.#links.find((l) => l.name === name);
  }

  #model(link: LinkSpec, topic: TopicSpec, p: PartitionSpec, tp: TopicPlan): PartitionModel {
    const key = `${link.name}/${topic.name}/${p.id}`;
    let m = this.#models.get(key);
    if (m === undefined) {
      const spikes = normalizeMods(tp.spikes);
      const cuts = new Set<number>([0]);
      for (const w of tp.stopped) for (const x of [w.from, w.to]) if (Number.isFinite(x)) cuts.add(x / 1e6);
      for (const s of spikes)
        for (const x of [s.from, s.to]) for (const d of [0, p.delay * 0.7, p.delay, p.delay * 1.3]) cuts.add(x + d);
      m = {
        spec: p,
        wave: makeWave(p.h, 0.3),
        spikes,
        dw: (2 * Math.PI) / (120 + 480 * unit(p.h, 7)),
        dp: 2 * Math.PI * unit(p.h, 8),
        cuts: [...cuts].sort((a, b) => a - b),
        stopped: tp.stopped,
      };
      this.#models.set(key, m);
    }
    return m;
  }

  #source(m: PartitionModel, x: number): number {
    return m.spec.h0 + m.spec.rate * flowIntegral(m.wave, x, m.spikes);
  }

  #ideal(m: PartitionModel, x: number): number {
    const d = m.spec.delay * (1 + 0.3 * Math.sin(m.dw * x + m.dp));
    return this.#source(m, x - d);
  }

  /** Replication capacity consumed from 0 to x (records). */
  #capacity(m: PartitionModel, x: number): number {
    let stoppedFor = 0;
    for (const w of m.stopped) {
      const a = w.from / 1e6;
      const b = w.to / 1e6;
      if (x > a) stoppedFor += Math.min(x, b) - a;
    }
    return CAP * m.spec.rate * (x - stoppedFor);
  }

  #replicated(m: PartitionModel, x: number): number {
    let best = this.#ideal(m, x);
    const kx = this.#capacity(m, x);
    for (const b of m.cuts) {
      if (b > x) break;
      const v = this.#ideal(m, b) + kx - this.#capacity(m, b);
      if (v < best) best = v;
    }
    return best;
  }

  /** The last source refresh at or before x (s), skipping frozen windows. */
  #lastRefresh(m: PartitionModel, x: number, frozen: Window[]): number {
    const phase = unit(m.spec.h, 9) * REFRESH;
    let at = x;
    for (const w of frozen) if (x * 1e6 >= w.from && x * 1e6 < w.to) at = w.from / 1e6;
    return Math.floor((at - phase) / REFRESH) * REFRESH + phase;
  }

  #partition(m: PartitionModel, tp: TopicPlan, t: number): ShadowTopicPartition {
    const x = t / 1e6;
    const refreshed = this.#lastRefresh(m, x, tp.frozen);
    const srcHwm = Math.floor(this.#source(m, refreshed));
    let hwm = Math.min(Math.floor(this.#replicated(m, x)), srcHwm);
    const term = tp.terminal;
    if (term !== undefined && t > term.done) hwm += Math.floor(m.spec.rate * 0.6 * ((t - term.done) / 1e6));
    const lso = m.spec.transactional ? srcHwm - (hash(m.spec.h, Math.floor(refreshed)) % 40) : srcHwm;
    return {
      partitionId: BigInt(m.spec.id),
      highWatermark: BigInt(Math.max(0, hwm)),
      sourceHighWatermark: BigInt(srcHwm),
      sourceLastStableOffset: BigInt(Math.max(0, lso)),
      sourceLastUpdatedTimestamp: absNs(this.#plan.config.start, Math.round(refreshed * 1e6)),
    };
  }

  /** A shadow topic at t (µs). */
  topic(link: LinkSpec, topic: TopicSpec, t: number): ShadowTopic {
    const lp = this.#linkPlans.get(link.name) as LinkPlan;
    const tp = lp.topics.get(topic.name) as TopicPlan;
    const term = tp.terminal;
    let state: ShadowTopic['status']['state'] = 'SHADOW_TOPIC_STATE_ACTIVE';
    if (term !== undefined && t >= term.done)
      state = term.kind === 'failover' ? 'SHADOW_TOPIC_STATE_FAILED_OVER' : 'SHADOW_TOPIC_STATE_PROMOTED';
    else if (term !== undefined && t >= term.at)
      state = term.kind === 'failover' ? 'SHADOW_TOPIC_STATE_FAILING_OVER' : 'SHADOW_TOPIC_STATE_PROMOTING';
    else if (inAny(tp.faulted, t)) state = 'SHADOW_TOPIC_STATE_FAULTED';
    else if (inAny(lp.paused, t)) state = 'SHADOW_TOPIC_STATE_PAUSED';
    return {
      name: topic.name,
      topicId: topic.topicId,
      sourceTopicName: topic.name,
      sourceTopicId: topic.sourceTopicId,
      status: {
        state,
        partitionInformation: topic.partitions.map((p) => this.#partition(this.#model(link, topic, p, tp), tp, t)),
      },
    };
  }

  /** Task statuses of a link at t. */
  tasks(link: LinkSpec, t: number): TaskStatus[] {
    const lp = this.#linkPlans.get(link.name) as LinkPlan;
    const { brokers, shardsPerBroker, seed } = this.#plan.config;
    const lh = hash(seed, link.index, 41);
    const leader = brokers[lh % brokers.length] as number;
    const cfg = link.configurations;
    const placements: [string, number, boolean][] = [];
    for (const b of brokers) placements.push([TASKS.topicSync, b, cfg.topicMetadataSyncOptions.paused]);
    for (const b of brokers) placements.push([TASKS.offsetSync, b, cfg.consumerOffsetSyncOptions.paused]);
    placements.push([TASKS.securitySync, leader, cfg.securitySyncOptions.paused]);
    placements.push([TASKS.roleSync, leader, cfg.roleSyncOptions.paused]);
    if (link.schemaApi)
      placements.push([
        TASKS.schemaSync,
        leader,
        cfg.schemaRegistrySyncOptions.shadowSchemaRegistryApi?.paused ?? false,
      ]);
    return placements.map(([name, brokerId, cfgPaused]) => {
      const shard = hash(lh, brokerId, name.length) % shardsPerBroker;
      let state: TaskStatus['state'] = 'TASK_STATE_ACTIVE';
      let reason = '';
      const fault = lp.taskFaults.find(
        (f) => f.task === name && (f.broker === undefined || f.broker === brokerId) && t >= f.from && t < f.to,
      );
      const unavailable = lp.unavailable.find((w) => t >= w.from && t < w.to);
      if (!isUp(this.#plan, brokerId, t)) {
        state = 'TASK_STATE_NOT_RUNNING';
        reason = `broker ${brokerId} is down`;
      } else if (inAny(lp.paused, t)) {
        state = 'TASK_STATE_PAUSED';
        reason = 'shadow link is paused';
      } else if (fault !== undefined) {
        state = 'TASK_STATE_FAULTED';
        reason = fault.reason;
      } else if (unavailable !== undefined) {
        state = 'TASK_STATE_LINK_UNAVAILABLE';
        reason = unavailable.reason;
      } else if (cfgPaused) {
        state = 'TASK_STATE_PAUSED';
        reason = 'paused by configuration';
      }
      return { name, state, reason, brokerId, shard };
    });
  }

  /** The whole shadow link at t. */
  shadowLink(link: LinkSpec, t: number): ShadowLink {
    const lp = this.#linkPlans.get(link.name) as LinkPlan;
    const tm = link.configurations.topicMetadataSyncOptions;
    const props = tm.excludeDefault ? ['cleanup.policy', 'max.message.bytes', 'timestamp.type'] : DEFAULT_PROPERTIES;
    return {
      name: link.name,
      uid: link.uid,
      configurations: link.configurations,
      status: {
        state: inAny(lp.paused, t) ? 'SHADOW_LINK_STATE_PAUSED' : 'SHADOW_LINK_STATE_ACTIVE',
        shadowTopics: link.topics.map((tp) => this.topic(link, tp, t)),
        syncedShadowTopicProperties: [...new Set([...props, ...tm.syncedShadowTopicProperties])].sort(),
        taskStatuses: this.tasks(link, t),
        schemaRegistrySyncStatus: schemaRegistryStatus(this.#plan, link, lp, t),
      },
    };
  }
}
