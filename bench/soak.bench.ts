// Soak: the collector records the simulated cluster (in another process, over loopback HTTP) for 7
// simulated days at 1,000 connections with `retention: { raw: 1d, rollups: 3d }`, in accelerated time (the
// simulator's clock is manual: the bench moves it over IPC before each round; nothing waits in real time),
// pruning between polls as it would in production. Reported: the database size at the end of each
// simulated day (it must plateau: the last three days within 10 %), the peak RSS of this process alone
// (the collector, its store, the pruner and the rollup worker thread, and tsx: the simulator runs in
// bench/lib/soak-sim.ts), the p99 of the ingest time of a ListKafkaConnections poll (the store's write
// of it) on the last day against the first, and the longest slice of pruning work (the most a
// scheduled poll can wait for pruning).
//
// Schedules: ListKafkaConnections every SOAK_EVERY (default 10m), the other operations every
// SOAK_OTHERS_EVERY (default 30m), instead of the production 30 s / 60 s. One ListKafkaConnections
// round of 1,000 connections costs about 85 ms of CPU here (simulator, HTTP, decoding, scrubbing,
// storing), so 30 s polls for 7 days (20,160 rounds, plus five times as many of the other
// operations) would take about an hour of CPU; the 7 days and 1,000 connections stay, the polls
// are sparser. A retention pass follows a round when a simulated minute has passed since the last.
// The ingest p99 of the first day leaves out its first hour (the JIT warming up).
//
// The ingest notes split out the polls that sealed a connection batch (the writer checkpoints the WAL
// after them) with the WAL frames their checkpoint had to write back.
//
// Run: node scripts/bench.mjs bench/soak.bench.ts   (SOAK_DAYS, SOAK_EVERY, SOAK_OTHERS_EVERY, SOAK_CONNECTIONS override;
// SOAK_TRACE_RSS=1 logs each new high of RSS; SOAK_NO_CHECKPOINT=1 leaves out the checkpoint ending a retention pass,
// SOAK_CHECKPOINT_HERE=1 runs it on the store's own connection, SOAK_CHECKPOINT_THREAD=1 always in the checkpoint
// thread; by default it runs in the rollups' thread once that runs, as `collect` does)
// `node --import tsx bench/soak.bench.ts --loaded-only` prints the RSS of a process that only loads
// this file's modules (what tsx and the code cost before any work) and ends.
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import {
  Collector,
  defaultCluster,
  defaultCollectorConfig,
  type CollectorConfig,
  type RetentionStore,
} from '../src/collector/index.ts';
import {
  openRecordingStore,
  RetentionPruner,
  type FlightrecDb,
  type PollRecord,
  type StoredPoll,
} from '../src/db/index.ts';
import type { BackgroundCheckpoint } from '../src/db/engines/store-engine.ts';
import { DEFAULT_THRESHOLDS } from '../src/report/timeline/thresholds.ts';
import { RollUpThread } from '../src/report/rollup/index.ts';
import { DEFAULT_START_NS } from '../src/sim/time.ts';
import { reportFigure, round } from './lib/figures.ts';
import { startSoakSim, type SoakSim } from './lib/soak-sim.ts';

const DAY_MS = 86_400_000;
const DAYS = Number(process.env.SOAK_DAYS ?? 7);
const EVERY = process.env.SOAK_EVERY ?? '10m';
const OTHERS_EVERY = process.env.SOAK_OTHERS_EVERY ?? '30m';
const WARMUP_MS = 3_600_000;
const CONNECTIONS = Number(process.env.SOAK_CONNECTIONS ?? 1000);
const log = (s: string): void => void process.stderr.write(`${s}\n`);
/** this file runs from source through tsx (not bundled): only with SOAK_FROM_SOURCE does it measure that */
const FROM_SOURCE = import.meta.url.endsWith('.ts');
/** what the collector's process runs, for the notes */
const RUNS = FROM_SOURCE ? 'the sources through tsx' : 'the code bundled as dist/ is, by plain node';

/** A six-field cron expression firing every `every` (whole minutes). */
function cronEvery(every: string): string {
  const m = /^([0-9]+)m$/.exec(every);
  if (m === null) throw new Error(`SOAK_EVERY must be whole minutes such as 10m, got ${every}`);
  return `0 */${m[1]} * * * *`;
}

function p99(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(0.99 * s.length) - 1))] ?? 0;
}

/**
 * Frames of the WAL not yet written back into the database (what the next checkpoint copies): the
 * wal-index header's mxFrame less the checkpoint's nBackfill, read from the -shm file (native order).
 */
function pendingWalFrames(path: string): number {
  const buf = Buffer.alloc(100);
  let fd: number;
  try {
    fd = openSync(`${path}-shm`, 'r');
  } catch {
    return 0;
  }
  try {
    if (readSync(fd, buf, 0, 100, 0) < 100) return 0;
  } finally {
    closeSync(fd);
  }
  return Math.max(0, buf.readUInt32LE(16) - buf.readUInt32LE(96));
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0
    ? 0
    : s.length % 2 === 1
      ? s[(s.length - 1) / 2]!
      : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

const fileBytes = (path: string): number => {
  const size = (p: string): number => statSync(p, { throwIfNoEntry: false })?.size ?? 0;
  return size(path) + size(`${path}-wal`);
};

interface Slice {
  readonly kind: 'step' | 'cleanup' | 'rollups' | 'checkpoint';
  readonly ms: number;
  readonly cpuMs: number;
}

/** Runs `fn` as one slice of pruning work, its wall clock and CPU kept in `slices`. */
function timeSlice<T>(slices: Slice[], kind: Slice['kind'], fn: () => T): T {
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  try {
    return fn();
  } finally {
    const c = process.cpuUsage(cpu);
    slices.push({ kind, ms: performance.now() - t0, cpuMs: (c.user + c.system) / 1000 });
  }
}

/** Where a retention pass's checkpoint runs: the rollups' thread (as `collect` does), the checkpoint thread, here, or nowhere. */
const CHECKPOINT_WHERE =
  process.env.SOAK_NO_CHECKPOINT !== undefined
    ? 'none'
    : process.env.SOAK_CHECKPOINT_HERE !== undefined
      ? 'here'
      : process.env.SOAK_CHECKPOINT_THREAD !== undefined
        ? 'thread'
        : 'rollups';

/**
 * The pruner with each of its slices (one transaction each) timed: wall clock and CPU. The
 * checkpoint's slice is its call (on a file it hands the work to another thread, whose answers
 * are kept in `offThread`; once the rollups' thread runs, `checkpointElsewhere` does it there);
 * with SOAK_CHECKPOINT_HERE it runs on the store's own connection, as
 * it did before it had a thread of its own.
 */
function timedStore(
  pruner: RetentionPruner,
  slices: Slice[],
  offThread: BackgroundCheckpoint[],
  db: () => FlightrecDb,
): RetentionStore {
  const timed = <T>(kind: Slice['kind'], fn: () => T): T => timeSlice(slices, kind, fn);
  return {
    clusters: () => pruner.clusters(),
    usedBytes: () => pruner.usedBytes(),
    oldestPoll: () => pruner.oldestPoll(),
    step: (cluster, cutoff, maxPolls) => timed('step', () => pruner.step(cluster, cutoff, maxPolls)),
    cleanup: (cluster, maxRows) => timed('cleanup', () => pruner.cleanup(cluster, maxRows)),
    pruneRollups: (cutoff, maxRows) => timed('rollups', () => pruner.pruneRollups(cutoff, maxRows)),
    log: (e) => pruner.log(e),
    ...(CHECKPOINT_WHERE !== 'none'
      ? {
          checkpoint: () => {
            if (CHECKPOINT_WHERE === 'here') return timed('checkpoint', () => void db().engine.passiveCheckpoint());
            const pending = timed('checkpoint', () => pruner.checkpoint());
            return pending?.then((r) => void offThread.push(r));
          },
        }
      : {}),
  };
}

const mem = (): NodeJS.MemoryUsage => process.memoryUsage();

/** The clock of the simulator in the other process: read locally, moved over IPC. */
function soakClock(sim: SoakSim): {
  nowNs: () => bigint;
  nowMs: () => number;
  advanceTo: (ms: number) => Promise<void>;
  sleep: (ms: number, signal?: AbortSignal) => Promise<boolean>;
} {
  const nowMs = (): number => Number(sim.nowNs() / 1_000_000n);
  const advanceTo = (ms: number): Promise<void> => sim.advanceTo(BigInt(Math.floor(ms)) * 1_000_000n);
  return {
    nowNs: () => sim.nowNs(),
    nowMs,
    advanceTo,
    sleep: async (ms, signal) => {
      if (signal?.aborted) return false;
      await advanceTo(nowMs() + ms);
      return true;
    },
  };
}

/** The peak RSS of a process that only loads this file's modules through tsx (no work done). */
function loadedOnlyRss(): number {
  const self = fileURLToPath(import.meta.url);
  const out = execFileSync(process.execPath, [...(FROM_SOURCE ? ['--import', 'tsx'] : []), self, '--loaded-only'], {
    encoding: 'utf8',
  });
  return Number(out.trim());
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'flightrec-soak-'));
  const path = join(dir, 'soak.db');
  const sim = await startSoakSim({ seed: 7, connections: CONNECTIONS, startNs: DEFAULT_START_NS });
  const cron = cronEvery(OTHERS_EVERY);
  const cluster = {
    ...defaultCluster('soak', sim.baseUrl),
    shadowLinks: sim.links.map((name) => ({
      name,
      topics: sim.topics.filter((t) => t.link === name).map((t) => t.topic),
    })),
    schedules: {
      ListKafkaConnections: cronEvery(EVERY),
      GetShadowLink: cron,
      ListShadowTopics: cron,
      GetShadowTopic: cron,
      GetIcebergStatus: cron,
      GetUpgradeStatus: cron,
    },
  };
  const config: CollectorConfig = {
    ...defaultCollectorConfig([cluster]),
    jitterMs: 0,
    // raw 1d as #16 asks; rollups 3d so that the rollups' own retention is exercised too and the size can
    // settle within 7 days (kept forever, the rollups add about 4 MB a simulated day here)
    retention: { rawMs: DAY_MS, rollupsMs: 3 * DAY_MS, maxSizeBytes: null },
  };
  let db: FlightrecDb | undefined;
  const store = openRecordingStore(path, {
    onOpen: (opened) => {
      db = opened;
    },
  });
  const day = (): number => Math.floor((clock.nowMs() - start) / DAY_MS);
  const ingest: number[][] = Array.from({ length: DAYS }, () => []);
  const ingestCpu: number[][] = Array.from({ length: DAYS }, () => []);
  // the polls that sealed a connection batch (the writer checkpoints the WAL after them), apart
  const sealIngest: number[][] = Array.from({ length: DAYS }, () => []);
  // and the WAL frames their checkpoint had to write back (pending before the poll)
  const sealFrames: number[][] = Array.from({ length: DAYS }, () => []);
  const lastSealed = (): number | null =>
    db!.sqlite.prepare('SELECT max(id) FROM conn_batch WHERE sealed = 1').pluck().get() as number | null;
  const timed = (r: PollRecord, fn: () => StoredPoll): StoredPoll => {
    const sealedBefore = r.operation === 'ListKafkaConnections' ? lastSealed() : null;
    const framesBefore = r.operation === 'ListKafkaConnections' ? pendingWalFrames(path) : 0;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const out = fn();
    const ms = performance.now() - t0;
    const c = process.cpuUsage(cpu0);
    const warm = clock.nowMs() - start >= WARMUP_MS;
    if (r.operation === 'ListKafkaConnections' && r.outcome.ok && warm) {
      const d = Math.min(DAYS - 1, day());
      ingest[d]!.push(ms);
      ingestCpu[d]!.push((c.user + c.system) / 1000);
      if (lastSealed() !== sealedBefore) {
        sealIngest[d]!.push(ms);
        sealFrames[d]!.push(framesBefore);
      }
    }
    return out;
  };
  const writer = { ...store, storePoll: (r: PollRecord) => timed(r, () => store.storePoll(r)) };
  const clock = soakClock(sim);
  const start = clock.nowMs();
  const startRss = process.memoryUsage().rss;
  let peakRss = startRss;
  const slices: Slice[] = [];
  const offThread: BackgroundCheckpoint[] = [];
  let loggedRss = startRss;
  // the peak of this process as the rounds see it; a new high (10 MB above the last told) is logged with the simulated time
  const sampleRss = (): void => {
    const m = mem();
    peakRss = Math.max(peakRss, m.rss);
    if (process.env.SOAK_TRACE_RSS !== undefined && m.rss > loggedRss + 10e6) {
      loggedRss = m.rss;
      log(
        `rss ${(m.rss / 1e6).toFixed(0)} MB at +${((clock.nowMs() - start) / 3_600_000).toFixed(2)} h: heap ${(m.heapUsed / 1e6).toFixed(0)} ` +
          `of ${(m.heapTotal / 1e6).toFixed(0)}, external ${(m.external / 1e6).toFixed(0)}, array buffers ${(m.arrayBuffers / 1e6).toFixed(0)} MB`,
      );
    }
  };
  // raw history is summarised (rollups, in their worker thread, as `collect` does) before it is pruned
  const rollUps = new RollUpThread({ database: path, thresholds: DEFAULT_THRESHOLDS });
  const collector = new Collector({
    config,
    writer,
    env: {},
    now: () => clock.nowMs(),
    nowNs: clock.nowNs,
    sleep: clock.sleep,
    retentionStore: timedStore(new RetentionPruner(() => db!), slices, offThread, () => db!),
    rollUp: (name, untilNs) => rollUps.run(name, untilNs),
    // as `collect` does: while the rollups' thread runs, the pass's checkpoint is done there
    ...(CHECKPOINT_WHERE !== 'rollups'
      ? {}
      : {
          checkpointElsewhere: () =>
            timeSlice(slices, 'checkpoint', () => rollUps.checkpoint())?.then((r) => void offThread.push(r)),
        }),
    onRound: () => sampleRss(),
    onStored: () => sampleRss(),
  });
  const sizes: number[] = [];
  const used: number[] = [];
  const wall = performance.now();
  const cpu = process.cpuUsage();
  // the day's figures are taken when the clock is about to leave it (after its last round)
  const advanceTo = async (ms: number): Promise<void> => {
    while (sizes.length < DAYS && ms >= start + (sizes.length + 1) * DAY_MS) {
      sizes.push(fileBytes(path));
      used.push(new RetentionPruner(db!).usedBytes());
      const s = collector.stats;
      log(
        `day ${sizes.length}: file ${(sizes.at(-1)! / 1e6).toFixed(1)} MB, in use ${(used.at(-1)! / 1e6).toFixed(1)} MB, ` +
          `rounds ${s.rounds}, pruned polls ${s.prunedPolls}, longest prune slice ${s.maxPruneDelayMs.toFixed(1)} ms, ` +
          `rss ${(peakRss / 1e6).toFixed(0)} MB (now ${(mem().rss / 1e6).toFixed(0)}, heap ${(mem().heapUsed / 1e6).toFixed(0)}, ` +
          `external ${(mem().external / 1e6).toFixed(0)}), ${((performance.now() - wall) / 1000).toFixed(0)} s; ` +
          `ingest p99 ${p99(ingest[sizes.length - 1]!).toFixed(1)} ms (CPU ${p99(ingestCpu[sizes.length - 1]!).toFixed(1)}), ` +
          `median of the ${sealIngest[sizes.length - 1]!.length} sealing polls ${median(sealIngest[sizes.length - 1]!).toFixed(1)} ms, ` +
          `WAL frames pending before them ${median(sealFrames[sizes.length - 1]!)}`,
      );
    }
    await clock.advanceTo(ms);
  };
  await collector.runVirtual(start + DAYS * DAY_MS, { nowMs: clock.nowMs, advanceTo });
  await advanceTo(start + DAYS * DAY_MS + 1);
  const stats = { ...collector.stats };
  // a failing rollup or prune is only told to the collector's reporter (none here): a soak that pruned nothing measured nothing
  if (DAYS >= 2 && stats.prunedPolls === 0) throw new Error('the soak pruned no poll: retention failed (rollups?)');
  const endHeap = process.memoryUsage().heapUsed;
  await collector.shutdown();
  await rollUps.close();
  const simPeak = await sim.peakRss();
  await sim.close();
  const used_ = process.cpuUsage(cpu);
  peakRss = Math.max(peakRss, process.resourceUsage().maxRSS * 1024);
  const loaded = loadedOnlyRss();
  rmSync(dir, { recursive: true, force: true });

  const last3 = sizes.slice(-3);
  const spread = last3.length === 0 ? 0 : (Math.max(...last3) - Math.min(...last3)) / Math.min(...last3);
  const first = p99(ingest[0]!);
  const last = p99(ingest[DAYS - 1]!);
  sizes.forEach((b, i) =>
    reportFigure({
      name: `soak.db_size_day${i + 1}_mb`,
      value: round(b / 1e6, 1),
      unit: 'MB',
      note: `in use ${round(used[i]! / 1e6, 1)} MB`,
    }),
  );
  reportFigure({
    name: 'soak.db_size_last3_spread_pct',
    value: round(spread * 100, 1),
    unit: '%',
    goal: { op: '<=', value: 10 },
  });
  reportFigure({
    name: 'soak.peak_rss_mb',
    value: round(peakRss / 1e6, 0),
    unit: 'MB',
    goal: { op: '<=', value: 300 },
    note:
      `the collector's process alone (store, pruner, rollup worker and checkpoint threads), running ${RUNS}; the simulator in another ` +
      `(its own peak ${round(simPeak / 1e6, 0)} MB); a process that only loads the same modules the same way: ` +
      `${round(loaded / 1e6, 0)} MB; ${round(startRss / 1e6, 0)} MB before the first poll, heap in use at the end ${round(endHeap / 1e6, 0)} MB`,
  });
  const cpuNote = (d: number): string =>
    `CPU p99 ${round(p99(ingestCpu[d]!), 1)} ms; ${ingest[d]!.length} ListKafkaConnections polls, ` +
    `of which ${sealIngest[d]!.length} sealed a batch (and checkpointed): their median ${round(median(sealIngest[d]!), 1)} ms with ${median(sealFrames[d]!)} WAL frames to write back (median)`;
  reportFigure({ name: 'soak.ingest_p99_day1_ms', value: round(first, 1), unit: 'ms', note: cpuNote(0) });
  reportFigure({ name: `soak.ingest_p99_day${DAYS}_ms`, value: round(last, 1), unit: 'ms', note: cpuNote(DAYS - 1) });
  reportFigure({
    name: 'soak.ingest_p99_last_vs_first_pct',
    value: round(((last - first) / first) * 100, 1),
    unit: '%',
    goal: { op: '<=', value: 20 },
  });
  const done = offThread.flatMap((c) => (c.ok ? [c] : []));
  const checkpointCalls = slices.filter((x) => x.kind === 'checkpoint');
  reportFigure({
    name: 'soak.max_prune_delay_ms',
    value: round(stats.maxPruneDelayMs, 1),
    unit: 'ms',
    goal: { op: '<=', value: 50 },
    note:
      CHECKPOINT_WHERE === 'none'
        ? 'no checkpoint at the end of a pass (SOAK_NO_CHECKPOINT)'
        : CHECKPOINT_WHERE === 'here'
          ? `the pass's checkpoint on the store's own connection (SOAK_CHECKPOINT_HERE): longest ${round(Math.max(0, ...checkpointCalls.map((x) => x.ms)), 1)} ms of ${checkpointCalls.length}`
          : `the pass's checkpoint in ${CHECKPOINT_WHERE === 'rollups' ? "the rollups' thread (the checkpoint thread before its first job)" : 'the checkpoint thread (SOAK_CHECKPOINT_THREAD)'}: ${offThread.length} (${offThread.length - done.length} skipped or failed), ` +
            `there ${round(median(done.map((c) => c.ms)), 1)} ms median, ${round(Math.max(0, ...done.map((c) => c.ms)), 1)} ms longest, ` +
            `${median(done.map((c) => c.checkpointed))} frames written back (median); the longest call here ${round(Math.max(0, ...checkpointCalls.map((x) => x.ms)), 1)} ms`,
  });
  const stepMs = slices.filter((x) => x.kind === 'step').map((x) => x.ms);
  // at a high load the wall time of a slice is mostly waiting for a core or the disk: their CPU tells
  const over50 = slices.filter((x) => x.ms > 50);
  const cleanupMs = slices.filter((x) => x.kind === 'cleanup').map((x) => x.ms);
  reportFigure({
    name: 'soak.prune_slice_p99_ms',
    value: round(p99(stepMs), 1),
    unit: 'ms',
    note:
      `${stepMs.length} steps; longest cleanup ${round(Math.max(0, ...cleanupMs), 1)} ms of ${cleanupMs.length}; most CPU in one slice ${round(Math.max(0, ...slices.map((x) => x.cpuMs)), 1)} ms; ` +
      `${over50.length} of ${slices.length} slices over 50 ms (${over50.map((x) => `${x.kind} ${round(x.ms, 0)} ms, CPU ${round(x.cpuMs, 1)}`).join('; ')})`,
  });
  for (const x of [...slices].sort((a, b) => b.ms - a.ms).slice(0, 5))
    log(`slow slice: ${x.kind} ${x.ms.toFixed(1)} ms (CPU ${x.cpuMs.toFixed(1)} ms)`);
  reportFigure({
    name: 'soak.pruned_polls',
    value: stats.prunedPolls,
    unit: 'polls',
    note: `${stats.retentionRuns} retention passes, ${stats.rounds} rounds`,
  });
  reportFigure({
    name: 'soak.run_s',
    value: round((performance.now() - wall) / 1000, 0),
    unit: 's',
    note: `CPU ${round((used_.user + used_.system) / 1e6, 0)} s; ${CONNECTIONS} connections, connections every ${EVERY}, the rest every ${OTHERS_EVERY}, ${DAYS} days`,
  });
}

if (process.argv[2] === '--loaded-only') process.stdout.write(`${process.resourceUsage().maxRSS * 1024}\n`);
else if (FROM_SOURCE && process.env.SOAK_FROM_SOURCE === undefined) {
  // run as production does: the bench bundled as dist/ is, by plain node (this process only builds and waits)
  const { runBuilt } = await import('./lib/soak-built.ts');
  const code = await runBuilt(fileURLToPath(new URL('..', import.meta.url)), 'bench/soak.bench.ts');
  if (code !== 0) throw new Error(`the built soak bench failed (exit ${code})`);
} else await main();
