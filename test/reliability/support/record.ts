/**
 * Records the simulated cluster through the fault proxy into a real database, in simulated
 * time (back-off passes in simulated time too), the way `collect --simulate` does, with the
 * collector's rounds, lines and shutdown report kept for the test.
 */
import { ConnectClient } from '../../../src/api/client/index.ts';
import {
  Collector,
  createReporter,
  defaultCluster,
  defaultCollectorConfig,
  type ClientFactory,
  type CollectorConfig,
  type RoundResult,
  type ShutdownReport,
} from '../../../src/collector/index.ts';
import { createHistoryWriter, openDatabase, type FlightrecDb } from '../../../src/db/index.ts';
import { createWorld, parseScenario, simClock, startSimServer, type SimServer } from '../../../src/sim/index.ts';
import { startFaultProxy, type FaultProxy, type ProxyRule } from './fault-proxy.ts';

/** What to record. */
export interface RecordSpec {
  readonly dbPath: string;
  /** scenario YAML (simulator events) */
  readonly scenario: string;
  readonly rules?: readonly ProxyRule[];
  /** simulated seconds to record */
  readonly seconds: number;
  readonly seed?: number;
  readonly connections?: number;
  /** topics per shadow link polled with GetShadowTopic (default 1) */
  readonly topicsPerLink?: number;
  /** per-call timeout, ms (default 300) */
  readonly timeoutMs?: number;
  /** cron of every operation (default every 30 s) */
  readonly every?: string;
  /** largest answer the client reads (default the client's own) */
  readonly maxAnswerBytes?: number;
  /** called with the open database before recording (to inject store faults) */
  readonly onDb?: (db: FlightrecDb) => void;
  /** called after every round */
  readonly onRound?: (r: RoundResult, collector: Collector) => void;
}

/** What a recording left. */
export interface Recording {
  readonly rounds: RoundResult[];
  /** the collector's stderr lines */
  readonly lines: string[];
  readonly log: FaultProxy['log'];
  readonly report: ShutdownReport;
  readonly collector: Collector;
  /** the world start, ns since the epoch */
  readonly start: bigint;
}

/** Records a scenario through the fault proxy; the simulator and proxy are closed afterwards. */
export async function recordThroughProxy(spec: RecordSpec): Promise<Recording> {
  const scenario = parseScenario(spec.scenario, 'reliability');
  const world = createWorld({ seed: spec.seed ?? 7, scenario, connections: spec.connections ?? 120 });
  const sim: SimServer = await startSimServer({ world, clock: 'manual', overlapWaitMs: 200 });
  const proxy = await startFaultProxy(sim, spec.rules ?? []);
  try {
    const described = sim.describe();
    const every = spec.every ?? '*/30 * * * * *';
    const cluster = {
      ...defaultCluster('sim', proxy.url),
      timeoutMs: spec.timeoutMs ?? 300,
      shadowLinks: described.links.map((name) => ({
        name,
        topics: described.topics
          .filter((t) => t.link === name)
          .map((t) => t.topic)
          .slice(0, spec.topicsPerLink ?? 1),
      })),
      schedules: {
        ListKafkaConnections: every,
        GetShadowLink: every,
        ListShadowTopics: every,
        GetShadowTopic: every,
        GetIcebergStatus: every,
        GetUpgradeStatus: every,
      },
    };
    const config: CollectorConfig = { ...defaultCollectorConfig([cluster]), jitterMs: 0 };
    const db = openDatabase(spec.dbPath);
    spec.onDb?.(db);
    const writer = createHistoryWriter(db);
    const { nowMs, advanceTo, sleep } = simClock(sim);
    const clientFactory: ClientFactory | undefined =
      spec.maxAnswerBytes === undefined
        ? undefined
        : (c) =>
            new ConnectClient({
              baseUrl: c.baseUrl,
              servicePrefix: c.servicePrefix,
              timeoutMs: c.timeoutMs,
              maxAnswerBytes: spec.maxAnswerBytes,
            });
    const rounds: RoundResult[] = [];
    const lines: string[] = [];
    const collector: Collector = new Collector({
      config,
      writer,
      env: {},
      now: Date.now,
      nowNs: () => sim.world.now(),
      sleep,
      reporter: createReporter({ write: (s: string) => lines.push(s) }),
      ...(clientFactory === undefined ? {} : { clientFactory }),
      onRound: (r) => {
        rounds.push(r);
        spec.onRound?.(r, collector);
      },
    });
    const start = sim.world.now();
    await collector.runVirtual(nowMs() + spec.seconds * 1000, { nowMs, advanceTo });
    const report = await collector.shutdown();
    return { rounds, lines, log: proxy.log, report, collector, start };
  } finally {
    await proxy.close();
    await sim.close();
  }
}
