/**
 * Child process of crash.test.ts: a collector recording the simulated cluster as fast as it can
 * into `argv[2]`, resuming at the first 30 s tick after the last committed poll (plus `argv[3]`
 * seconds of downtime). Prints `ready <first tick ms>` once recording starts, then runs until
 * killed (or, with `argv[4]` = `finish`, for 2 minutes of simulated time and exits 0).
 */
import { Collector, defaultCluster, defaultCollectorConfig } from '../../../src/collector/index.ts';
import { createHistoryWriter, openDatabase } from '../../../src/db/index.ts';
import { createWorld, DEFAULT_START_NS, simClock, startSimServer } from '../../../src/sim/index.ts';
import { CRASH_TOPICS, CRASH_WORLD } from './crash-world.ts';

const [path, downtime = '0', mode = 'run'] = process.argv.slice(2);
const db = openDatabase(path!);
const last = db.sqlite.prepare('SELECT max(started_at) FROM poll').safeIntegers().pluck().get() as bigint | null;
const TICK = 30_000_000_000n;
const resume = last === null ? DEFAULT_START_NS : (last / TICK + 1n) * TICK + BigInt(downtime) * 1_000_000_000n;

const world = createWorld({ ...CRASH_WORLD });
world.advanceTo(resume);
const sim = await startSimServer({ world, clock: 'manual' });
const described = sim.describe();
const every = '*/30 * * * * *';
const cluster = {
  ...defaultCluster('crash', sim.baseUrl),
  timeoutMs: 5000,
  shadowLinks: described.links.map((name) => ({
    name,
    topics: described.topics
      .filter((t) => t.link === name)
      .map((t) => t.topic)
      .slice(0, CRASH_TOPICS),
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
const { nowMs, advanceTo, sleep } = simClock(sim);
const collector = new Collector({
  config: { ...defaultCollectorConfig([cluster]), jitterMs: 0 },
  writer: createHistoryWriter(db, { batchFrames: 3 }),
  env: {},
  now: Date.now,
  nowNs: () => sim.world.now(),
  sleep,
});
process.stdout.write(`ready ${nowMs()}\n`);
const until = nowMs() + (mode === 'finish' ? 120_000 : 24 * 3600_000);
await collector.runVirtual(until, { nowMs, advanceTo });
const report = await collector.shutdown();
await sim.close();
process.stdout.write(`done ${JSON.stringify(report)}\n`);
process.exit(report.unwritten === 0 ? 0 : 1);
