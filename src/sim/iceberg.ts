/** Iceberg translation and commit progress: offsets advance, commits stall when the catalog fails. */
import type { IcebergPartition, IcebergStatus, IcebergTopic } from '../api/schema/iceberg.ts';
import { flowIntegral, makeWave, type Wave } from './flow.ts';
import { hash, unit } from './rng.ts';
import { sec } from './time.ts';
import { eventsOf, windowOf, type Plan, type Window } from './plan.ts';
import { mergeWindows } from './link-plan.ts';
import { ScenarioError } from './scenario/types.ts';

interface IcebergPartitionSpec {
  readonly id: number;
  readonly rate: number;
  readonly h0: number;
  readonly wave: Wave;
  /** translation lag behind the log, µs */
  readonly lag: number;
}

interface IcebergTopicSpec {
  readonly name: string;
  readonly state: IcebergTopic['lifecycleState'];
  readonly partitions: readonly IcebergPartitionSpec[];
  /** commit interval, µs */
  readonly commitEvery: number;
  stalls: Window[];
}

const TOPICS: readonly [string, IcebergTopic['lifecycleState'], number][] = [
  ['orders', 'ICEBERG_LIFECYCLE_STATE_LIVE', 6],
  ['clickstream', 'ICEBERG_LIFECYCLE_STATE_LIVE', 12],
  ['payments', 'ICEBERG_LIFECYCLE_STATE_LIVE', 3],
  ['fraud-scores', 'ICEBERG_LIFECYCLE_STATE_LIVE', 3],
  ['legacy-events', 'ICEBERG_LIFECYCLE_STATE_CLOSED', 2],
];
const TRANSLATE_EVERY = sec(10);

/** The Iceberg coordinator's view. */
export class IcebergModel {
  readonly #topics: IcebergTopicSpec[];
  readonly #unreachable: (Window & { code: string; message: string })[] = [];

  constructor(plan: Plan) {
    const seed = plan.config.seed;
    this.#topics = TOPICS.map(([name, state, count], ti) => ({
      name,
      state,
      commitEvery: sec(30 + 30 * (ti % 3)),
      stalls: [],
      partitions: Array.from({ length: count }, (_, p) => {
        const h = hash(seed, ti, p, 0x1ce);
        // fraud-scores is new: its last partition has no data yet; legacy-events no longer grows
        const rate =
          name === 'fraud-scores' && p === count - 1
            ? 0
            : state === 'ICEBERG_LIFECYCLE_STATE_CLOSED'
              ? 0
              : 1 + 300 * unit(h, 1) ** 2;
        const h0 = name === 'fraud-scores' ? 0 : Math.floor(10_000 + 5e8 * unit(h, 2));
        return { id: p, rate, h0, wave: makeWave(h, 0.3), lag: sec(1 + 4 * unit(h, 3)) };
      }),
    }));
    for (const e of eventsOf(plan, 'iceberg_catalog_unreachable')) {
      this.#unreachable.push({
        ...windowOf(e),
        code: e.errorCode ?? 'io_error',
        message: e.errorMessage ?? 'failed to load table metadata: connect to catalog timed out',
      });
    }
    for (const e of eventsOf(plan, 'iceberg_commit_stall')) {
      const targets = this.#topics.filter((t) => e.topic === undefined || t.name === e.topic);
      if (targets.length === 0) {
        throw new ScenarioError(
          plan.source,
          e.line,
          0,
          `events[${e.index}].topic`,
          `no Iceberg topic ${JSON.stringify(e.topic)} (topics: ${this.#topics.map((t) => t.name).join(', ')})`,
        );
      }
      for (const t of targets) t.stalls.push(windowOf(e));
    }
  }

  /** Names of the Iceberg topics. */
  topicNames(): string[] {
    return this.#topics.map((t) => t.name);
  }

  #log(p: IcebergPartitionSpec, x: number): number {
    return p.h0 + p.rate * flowIntegral(p.wave, x / 1e6, undefined);
  }

  /** The last successful commit at or before t: commit ticks inside a blocked window fail. */
  #lastCommit(topic: IcebergTopicSpec, blocked: Window[], t: number): number {
    let tick = Math.floor(t / topic.commitEvery) * topic.commitEvery;
    for (let i = blocked.length - 1; i >= 0; i--) {
      const w = blocked[i] as Window;
      if (tick >= w.from && tick < w.to)
        tick = Math.ceil(w.from / topic.commitEvery) * topic.commitEvery - topic.commitEvery;
    }
    return tick;
  }

  #partition(topic: IcebergTopicSpec, p: IcebergPartitionSpec, blocked: Window[], t: number): IcebergPartition {
    const translatedAt = (x: number): number | undefined => {
      const tick = Math.floor((x - p.lag) / TRANSLATE_EVERY) * TRANSLATE_EVERY;
      const end = Math.floor(this.#log(p, tick));
      return end > 0 ? end - 1 : undefined;
    };
    const translated = translatedAt(t);
    const committedTick = this.#lastCommit(topic, blocked, t);
    const committed = translatedAt(committedTick);
    const out: IcebergPartition = {
      partition: p.id,
      commitLag: BigInt(translated === undefined ? 0 : translated - (committed ?? -1)),
    };
    if (committed !== undefined) out.lastCommittedOffset = BigInt(committed);
    if (translated !== undefined) out.lastTranslatedOffset = BigInt(translated);
    return out;
  }

  /** The status at t (µs), for the named topics (all when empty). */
  status(t: number, filter: readonly string[]): IcebergStatus {
    const down = this.#unreachable.find((w) => t >= w.from && t < w.to);
    const topics = this.#topics
      .filter((topic) => filter.length === 0 || filter.includes(topic.name))
      .map((topic): IcebergTopic => {
        const blocked = mergeWindows([...this.#unreachable, ...topic.stalls]);
        return {
          topic: topic.name,
          lifecycleState: topic.state,
          partitions: topic.partitions.map((p) => this.#partition(topic, p, blocked, t)),
        };
      });
    return {
      catalog: down
        ? { reachable: false, errorCode: down.code, errorMessage: down.message }
        : { reachable: true, errorCode: '', errorMessage: '' },
      topics,
    };
  }
}
