/**
 * The simulated cluster's world: brokers, connections, shadow links, upgrade and Iceberg state,
 * all pure functions of (seed, scenario, time). `advanceTo` only moves forward; the same seed and
 * the same clock give the same answers whatever steps the clock took.
 */
import type { KafkaConnection } from '../api/schema/connection.ts';
import type { OperationName, RequestOf, ResponseOf } from '../api/schema/operations.ts';
import { ConnectionPool, forEachEventConn, type Conn } from './connections.ts';
import { RowBuilder } from './connection-row.ts';
import { SimError } from './errors.ts';
import { IcebergModel } from './iceberg.ts';
import { resolveLinkPlans } from './link-plan.ts';
import { LinkStatusModel } from './link-status.ts';
import { buildLinks, DEFAULT_LINKS, TASKS, type LinkSpec } from './links.ts';
import { DEFAULT_MEMORY_BUDGET, listConnections, type ConnectionSource } from './list-connections.ts';
import { resolvePlan, type Plan, type WorldConfig } from './plan.ts';
import { EMPTY_SCENARIO, type Scenario, type ScenarioEvent } from './scenario/types.ts';
import { DEFAULT_START_NS, relUs } from './time.ts';
import { UpgradeModel } from './upgrade.ts';

/** Options of createWorld. */
export interface WorldOptions {
  readonly seed: number;
  /** target number of open connections; default 200 (or the scenario's) */
  readonly connections?: number;
  /** number of brokers (node ids 0..n-1); default 3 */
  readonly brokers?: number;
  /** shadow link names; default dr-primary, analytics-mirror */
  readonly links?: readonly string[];
  /** absolute start, ns since the epoch; default 2026-01-01T00:00:00Z */
  readonly startTime?: bigint;
  /** the events to play; default none */
  readonly scenario?: Scenario;
  /** features_auto_finalization; default false */
  readonly autoFinalization?: boolean;
  /** shards (cores) per broker; default 4 */
  readonly shardsPerBroker?: number;
  /** ListKafkaConnections memory budget in bytes (3 KiB per row); default 64 MiB */
  readonly memoryBudgetBytes?: number;
}

/** What a collector needs to know to poll the world. */
export interface WorldDescription {
  readonly links: string[];
  readonly topics: { link: string; topic: string }[];
  readonly brokers: number[];
  readonly icebergTopics: string[];
}

/** The answer of an operation: the decoded response, or a typed error. */
export type SimResult<N extends OperationName> = ResponseOf<N> | SimError;

/** Options of an answer: `licence: false` makes ListKafkaConnections fail as on an unlicensed cluster. */
export interface AnswerOptions {
  readonly licence?: boolean;
}

/** How the simulator answers each operation: one handler per operation, none missing. */
export type SimHandlers = {
  readonly [N in OperationName]: (req: RequestOf<N>, opts: AnswerOptions) => SimResult<N>;
};

/** The simulated cluster state. */
export class SimWorld {
  /** the static configuration */
  readonly config: WorldConfig;
  /** the scenario being played */
  readonly scenario: Scenario;
  /** the scenario resolved against this world */
  readonly plan: Plan;
  /** the shadow links */
  readonly links: readonly LinkSpec[];
  readonly #pool: ConnectionPool;
  readonly #rowsOf: RowBuilder;
  readonly #linkStatus: LinkStatusModel;
  readonly #upgrade: UpgradeModel;
  readonly #iceberg: IcebergModel;
  readonly #memoryBudget: number;
  #t = 0;
  #cache: { t: number; conns: Conn[]; rows?: KafkaConnection[] } | undefined;

  constructor(opts: WorldOptions) {
    const scenario = opts.scenario ?? EMPTY_SCENARIO;
    const brokers = opts.brokers ?? scenario.world.brokers ?? 3;
    this.config = {
      seed: opts.seed >>> 0,
      start: opts.startTime ?? DEFAULT_START_NS,
      brokers: Array.from({ length: brokers }, (_, i) => i),
      shardsPerBroker: opts.shardsPerBroker ?? 4,
      connections: opts.connections ?? scenario.world.connections ?? 200,
      links: [...(opts.links ?? scenario.world.links ?? DEFAULT_LINKS)],
      autoFinalization: opts.autoFinalization ?? scenario.world.autoFinalization ?? false,
    };
    this.scenario = scenario;
    this.plan = resolvePlan(this.config, scenario);
    this.links = buildLinks(this.config.seed, this.config.links, this.config.start);
    this.#linkStatus = new LinkStatusModel(this.plan, this.links, resolveLinkPlans(this.plan, this.links));
    this.#upgrade = new UpgradeModel(this.plan);
    this.#iceberg = new IcebergModel(this.plan);
    this.#pool = new ConnectionPool(this.plan);
    this.#rowsOf = new RowBuilder(this.plan);
    this.#memoryBudget = opts.memoryBudgetBytes ?? DEFAULT_MEMORY_BUDGET;
    this.#pool.advanceTo(0);
  }

  /** The current simulated time, ns since the epoch. */
  now(): bigint {
    return this.config.start + BigInt(this.#t) * 1000n;
  }

  /** Simulated time since the world start, ns. */
  elapsed(): bigint {
    return BigInt(this.#t) * 1000n;
  }

  /** Moves the clock to an absolute time (ns since the epoch); earlier times are ignored. */
  advanceTo(tNs: bigint): void {
    const t = relUs(tNs - this.config.start);
    if (t <= this.#t) return;
    this.#t = t;
    this.#cache = undefined;
    this.#pool.advanceTo(t);
  }

  /** Moves the clock forward by a number of seconds. */
  advanceBy(seconds: number): void {
    this.advanceTo(this.now() + BigInt(Math.round(seconds * 1e6)) * 1000n);
  }

  #conns(): { t: number; conns: Conn[]; rows?: KafkaConnection[] } {
    if (this.#cache === undefined) {
      const conns: Conn[] = [];
      this.#pool.forEach(this.#t, (c) => conns.push(c));
      forEachEventConn(this.plan, this.#t, (c) => conns.push(c));
      this.#cache = { t: this.#t, conns };
    }
    return this.#cache;
  }

  /** Every connection the cluster lists now (open, aborting and recently closed). */
  connections(): KafkaConnection[] {
    const c = this.#conns();
    c.rows ??= c.conns.map((x) => this.#rowsOf.build(x, c.t));
    return c.rows;
  }

  /** The scenario's events with every entity default filled in (broker, link, topic, group, ...). */
  events(): ScenarioEvent[] {
    const lastBroker = this.config.brokers[this.config.brokers.length - 1] ?? 0;
    return this.scenario.events.map((e): ScenarioEvent => {
      const link = this.links.find((l) => l.name === (e.link ?? this.links[0]?.name));
      switch (e.kind) {
        case 'broker_down':
          return { ...e, broker: e.broker ?? lastBroker };
        case 'connection_storm':
          return {
            ...e,
            client: e.client ?? 'reporting-batch',
            rate: e.rate ?? 20,
            lifetime: e.lifetime ?? 3_000_000_000n,
          };
        case 'auth_failures':
          return {
            ...e,
            principal: e.principal ?? 'User:svc-legacy',
            listener: e.listener ?? 'external',
            rate: e.rate ?? 10,
          };
        case 'consumer_group_idle':
          return { ...e, group: e.group ?? 'analytics-etl' };
        case 'task_faulted':
          return { ...e, link: link?.name, task: e.task ?? TASKS.topicSync };
        case 'topic_faulted':
          return { ...e, link: link?.name, topic: e.topic ?? link?.topics[0]?.name };
        case 'link_paused':
        case 'link_unavailable':
        case 'failover':
        case 'promotion':
        case 'source_traffic_spike':
          return { ...e, link: link?.name };
        case 'iceberg_catalog_unreachable':
          return { ...e, errorCode: e.errorCode ?? 'io_error' };
        default:
          return e;
      }
    });
  }

  /** What the world serves: links, shadow topics, brokers, Iceberg topics. */
  describe(): WorldDescription {
    return {
      links: this.links.map((l) => l.name),
      topics: this.links.flatMap((l) => l.topics.map((t) => ({ link: l.name, topic: t.name }))),
      brokers: [...this.config.brokers],
      icebergTopics: this.#iceberg.topicNames(),
    };
  }

  /** ListKafkaConnections; `licence: false` answers failed_precondition. */
  listKafkaConnections(
    req: RequestOf<'ListKafkaConnections'>,
    opts: AnswerOptions = {},
  ): SimResult<'ListKafkaConnections'> {
    if (opts.licence === false) {
      return new SimError(
        'failed_precondition',
        'ListKafkaConnections requires an enterprise license: the cluster has no valid license installed',
      );
    }
    const source: ConnectionSource = {
      rows: () => [...this.connections()],
      first: (n) => {
        const c = this.#conns();
        return c.rows !== undefined ? c.rows.slice(0, n) : c.conns.slice(0, n).map((x) => this.#rowsOf.build(x, c.t));
      },
      count: () => this.#conns().conns.length,
    };
    return listConnections(source, req, this.#memoryBudget);
  }

  #findLink(name: string, field = 'name'): LinkSpec | SimError {
    if (name === '') return new SimError('invalid_argument', `${field} must not be empty`);
    return this.#linkStatus.link(name) ?? new SimError('not_found', `shadow link ${JSON.stringify(name)} not found`);
  }

  /** GetShadowLink. */
  getShadowLink(req: RequestOf<'GetShadowLink'>): SimResult<'GetShadowLink'> {
    const link = this.#findLink(req.name);
    if (link instanceof SimError) return link;
    return { shadowLink: this.#linkStatus.shadowLink(link, this.#t) };
  }

  /** ListShadowTopics. */
  listShadowTopics(req: RequestOf<'ListShadowTopics'>): SimResult<'ListShadowTopics'> {
    const link = this.#findLink(req.shadowLinkName, 'shadow_link_name');
    if (link instanceof SimError) return link;
    return { shadowTopics: link.topics.map((t) => this.#linkStatus.topic(link, t, this.#t)) };
  }

  /** GetShadowTopic. */
  getShadowTopic(req: RequestOf<'GetShadowTopic'>): SimResult<'GetShadowTopic'> {
    if (req.name === '') return new SimError('invalid_argument', 'name must not be empty');
    const link = this.#findLink(req.shadowLinkName, 'shadow_link_name');
    if (link instanceof SimError) return link;
    const topic = link.topics.find((t) => t.name === req.name);
    if (topic === undefined)
      return new SimError(
        'not_found',
        `shadow topic ${JSON.stringify(req.name)} not found in shadow link ${JSON.stringify(link.name)}`,
      );
    return { shadowTopic: this.#linkStatus.topic(link, topic, this.#t) };
  }

  /** GetUpgradeStatus. */
  getUpgradeStatus(): SimResult<'GetUpgradeStatus'> {
    return this.#upgrade.status(this.#t);
  }

  /** GetIcebergStatus. */
  getIcebergStatus(req: RequestOf<'GetIcebergStatus'> = { topicsFilter: [] }): SimResult<'GetIcebergStatus'> {
    return this.#iceberg.status(this.#t, req.topicsFilter);
  }

  /** Answers any operation from its decoded request. */
  answer<N extends OperationName>(op: N, req: RequestOf<N>, opts: AnswerOptions = {}): SimResult<N> {
    return this.#handlers[op](req, opts);
  }

  /** The handler of every operation (a new operation does not compile until it has one). */
  readonly #handlers: SimHandlers = {
    ListKafkaConnections: (req, opts) => this.listKafkaConnections(req, opts),
    GetShadowLink: (req) => this.getShadowLink(req),
    ListShadowTopics: (req) => this.listShadowTopics(req),
    GetShadowTopic: (req) => this.getShadowTopic(req),
    GetUpgradeStatus: () => this.getUpgradeStatus(),
    GetIcebergStatus: (req) => this.getIcebergStatus(req),
  };
}

/** Creates a world (deterministic for a seed, a scenario and a clock). */
export function createWorld(opts: WorldOptions): SimWorld {
  return new SimWorld(opts);
}
