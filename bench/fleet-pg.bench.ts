// Fleet on PostgreSQL: one collector process (`node bin/flightrec.js collect`, the built CLI)
// records 20 simulated clusters of 2,000 connections each, on the default schedules
// (connections and shadow links every 30 s, Iceberg and upgrade every 60 s, up to 2 s of jitter),
// in real time, for FLIGHTREC_FLEET_MINUTES (default 10) minutes, into a fresh PostgreSQL database.
// The simulators run in another process (bench/lib/fleet-sims.ts), so the collector's CPU time is
// its own. Reported: the p99 duration of a round (from the collector's JSON log lines: the
// round's start to its end, every call and the store's writes included) and the collector's CPU
// share (utime + stime from /proc/<pid>/stat over the wall time, from its first round to the end).
// The PostgreSQL backends serving the collector are timed the same way, next to it. Rounds
// ending in the first 2 minutes (each cluster's first poll stores every connection as new) are
// left out of the p99 figure and reported apart. Then the `fleet` command over the recording is
// timed as a user runs it (whole command, goal at most 1 s for the 20 clusters).
//
// Needs `npm run build` (the bench runs dist/ as an operator would). Without a PostgreSQL server
// (FLIGHTREC_BENCH_PG, default postgres://postgres@127.0.0.1:5432/postgres) the figures are
// reported as skipped.
// Run: node scripts/bench.mjs bench/fleet-pg.bench.ts   (FLIGHTREC_FLEET_MINUTES=1 for a short run;
// FLIGHTREC_FLEET_ROUNDS=FILE writes every round's JSON line there, for a closer look)
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { repeat, runOnce, type Command } from './lib/alternation.ts';
import { reportFigure, round } from './lib/figures.ts';
import { openBenchServer, processCpuMs, reportSkipped, type BenchDatabase } from './lib/pg-bench-db.ts';

const CLUSTERS = 20;
const CONNECTIONS = 2_000;
const MINUTES = Number(process.env.FLIGHTREC_FLEET_MINUTES ?? 10);
/** Timed runs of the `fleet` command over the recording. */
const FLEET_RUNS = 5;
if (!(MINUTES > 0)) throw new Error('FLIGHTREC_FLEET_MINUTES must be a number of minutes above 0');
const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const log = (s: string): void => void process.stderr.write(`${s}\n`);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface SimCluster {
  name: string;
  baseUrl: string;
  links: { name: string; topics: string[] }[];
}

interface RoundLine {
  time: string;
  cluster?: string;
  operation?: string;
  outcome?: string;
  duration?: number;
  message: string;
  /** when this process read the line (performance.now()) */
  seenAt?: number;
}

/**
 * Options for the collector's node (FLIGHTREC_FLEET_NODE_ARGS, space-separated), e.g.
 * `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it: NODE_OPTIONS refuses --cpu-prof.
 */
const collectorNodeArgs = (process.env.FLIGHTREC_FLEET_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');

/** Rounds ending in the first WARMUP_MS of the recording are left out of the p99 figure (reported apart). */
const WARMUP_MS = Math.min(120_000, MINUTES * 30_000);

/** A child process with its output gathered line by line. */
function start(args: string[], onLine: (line: string, stream: 'out' | 'err') => void): ChildProcess {
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  for (const stream of ['out', 'err'] as const) {
    let pending = '';
    const source = stream === 'out' ? child.stdout! : child.stderr!;
    source.setEncoding('utf8');
    source.on('data', (chunk: string) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const l of lines) onLine(l, stream);
    });
  }
  return child;
}

const exited = (c: ChildProcess): Promise<number | null> =>
  c.exitCode !== null ? Promise.resolve(c.exitCode) : new Promise((done) => c.on('close', (code) => done(code)));

function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] ?? 0;
}

/** CPU ms of the server processes (backends) connected to the database, by pid. */
async function backendCpu(db: BenchDatabase): Promise<Map<number, number>> {
  const rows = await db.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
    [db.name],
  );
  const out = new Map<number, number>();
  for (const { pid } of rows) {
    const ms = processCpuMs(pid);
    if (ms !== undefined) out.set(pid, ms);
  }
  return out;
}

async function main(): Promise<void> {
  const opened = await openBenchServer();
  if ('skipped' in opened) {
    reportSkipped('fleet_pg', opened.skipped);
    return;
  }
  const db = opened;
  const dir = mkdtempSync(join(tmpdir(), 'flightrec-fleet-'));
  const children: ChildProcess[] = [];
  const load0 = loadavg().map((x) => x.toFixed(1));
  try {
    // 1. the simulated fleet, in its own process
    let simsLine: string | undefined;
    const sims = start(
      ['--import', 'tsx', 'bench/lib/fleet-sims.ts', String(CLUSTERS), String(CONNECTIONS)],
      (line, stream) => {
        if (stream === 'out' && simsLine === undefined) simsLine = line;
        else if (line !== '') log(`sims: ${line}`);
      },
    );
    children.push(sims);
    for (let i = 0; i < 1200 && simsLine === undefined && sims.exitCode === null; i++) await sleep(50);
    if (simsLine === undefined) throw new Error('the simulators did not start');
    const fleet = JSON.parse(simsLine) as SimCluster[];

    // 2. the collector's config: every cluster, its shadow links and topics, default schedules
    const config = join(dir, 'fleet.yaml');
    writeFileSync(
      config,
      stringify({
        clusters: fleet.map((c) => ({ name: c.name, baseUrl: c.baseUrl, shadowLinks: c.links })),
      }),
    );

    // 3. the collector, on the built CLI, JSON log lines on stderr
    const rounds: RoundLine[] = [];
    const other: string[] = [];
    let firstRoundAt: number | undefined;
    const onLine = (line: string): void => {
      if (line === '') return;
      let parsed: RoundLine | undefined;
      try {
        parsed = JSON.parse(line) as RoundLine;
      } catch {
        other.push(line);
        return;
      }
      if (parsed.operation === undefined) {
        other.push(parsed.message);
        if (other.length < 40) log(`collector: ${parsed.message}`);
        return;
      }
      firstRoundAt ??= performance.now();
      rounds.push({ ...parsed, seenAt: performance.now() });
    };
    const waitFirstRound = async (c: ChildProcess): Promise<void> => {
      for (let i = 0; i < 1200 && firstRoundAt === undefined && c.exitCode === null; i++) await sleep(50);
      await sleep(100); // its exit status, when it stopped
    };
    const how = 'node bin/flightrec.js collect --config FILE --db URL --log-format json';
    const collector = start(
      [
        ...collectorNodeArgs,
        join(root, 'bin/flightrec.js'),
        'collect',
        '--config',
        config,
        '--db',
        db.url,
        '--log-format',
        'json',
      ],
      onLine,
    );
    children.push(collector);
    await waitFirstRound(collector);
    const pid = collector.pid!;
    if (firstRoundAt === undefined) throw new Error(`the collector recorded nothing: ${other.slice(-5).join(' | ')}`);
    const cpu0 = processCpuMs(pid)!;
    const wall0 = performance.now();
    const server0 = await backendCpu(db);
    log(
      `recording ${CLUSTERS} clusters × ${CONNECTIONS} connections for ${MINUTES} min (load average ${load0.join(' ')})`,
    );
    const endAt = wall0 + MINUTES * 60_000;
    const dbBytes = async (): Promise<number> =>
      Number(
        (await db.query<{ bytes: string }>('SELECT pg_database_size(current_database())::text AS bytes'))[0]!.bytes,
      );
    /** the database's size once the start-up is over (every cluster's connections stored once) */
    let warm: { at: number; bytes: number } | undefined;
    while (performance.now() < endAt && collector.exitCode === null) {
      await sleep(Math.min(30_000, endAt - performance.now()));
      if (warm === undefined && performance.now() - firstRoundAt >= WARMUP_MS && performance.now() < endAt) {
        warm = { at: performance.now(), bytes: await dbBytes() };
      }
      const ok = rounds.filter((r) => r.outcome === 'ok').length;
      log(`  ${round((performance.now() - wall0) / 60_000, 1)} min: ${rounds.length} rounds (${ok} ok)`);
    }
    if (collector.exitCode !== null) throw new Error(`the collector stopped early: ${other.slice(-5).join(' | ')}`);
    const cpu1 = processCpuMs(pid)!;
    const wall1 = performance.now();
    const server1 = await backendCpu(db);
    const end = { at: performance.now(), bytes: await dbBytes() };
    const load1 = loadavg().map((x) => x.toFixed(1));
    const measured = rounds.length;
    collector.kill('SIGINT');
    const code = await exited(collector);
    if (code !== 0) throw new Error(`the collector exited with ${code}: ${other.slice(-5).join(' | ')}`);
    sims.kill('SIGTERM');
    await exited(sims);

    // the fleet view of what was recorded, as a user types it (whole command, after one untimed run)
    const fleetCmd: Command = {
      cmd: process.execPath,
      args: [join(root, 'bin/flightrec.js'), '--db', db.url, 'fleet'],
      cwd: root,
    };
    const fleetLines =
      runOnce(fleetCmd)
        .out.split('\n')
        .filter((l) => l.trim() !== '').length - 1;
    const fleetLoad0 = loadavg()[0]!.toFixed(1);
    const fleetTimes = repeat(fleetCmd, FLEET_RUNS);
    const fleetLoad1 = loadavg()[0]!.toFixed(1);

    // 4. what was recorded
    const stored = await db.query<{ operation: string; ok: string; n: string }>(
      'SELECT operation, ok::text, count(*)::text AS n FROM poll GROUP BY operation, ok ORDER BY operation, ok',
    );
    const bytes = await db.query<{ bytes: string }>('SELECT pg_database_size(current_database())::text AS bytes');
    const inWindow = rounds.slice(0, measured);
    if (process.env.FLIGHTREC_FLEET_ROUNDS !== undefined) {
      writeFileSync(process.env.FLIGHTREC_FLEET_ROUNDS, rounds.map((r) => JSON.stringify(r)).join('\n'));
    }
    const steady = inWindow.filter((r) => (r.seenAt ?? 0) - firstRoundAt! >= WARMUP_MS);
    const conn = steady.filter((r) => r.operation === 'ListKafkaConnections').map((r) => r.duration ?? 0);
    const all = steady.map((r) => r.duration ?? 0);
    const everyRound = inWindow.map((r) => r.duration ?? 0);
    const failed = inWindow.filter((r) => r.outcome !== 'ok' && r.outcome !== 'nothing_to_poll');
    const wallS = (wall1 - wall0) / 1000;
    const cpuShare = (cpu1 - cpu0) / (wall1 - wall0);
    let serverMs = 0;
    for (const [p, ms] of server1) serverMs += ms - (server0.get(p) ?? 0);
    const summary = stored.map((r) => `${r.operation}${r.ok === '1' ? '' : ' (failed)'} ${r.n}`).join(', ');
    log(`stored polls: ${summary}; database ${bytes[0]!.bytes} bytes`);
    if (failed.length > 0)
      log(
        `failed rounds: ${failed
          .slice(0, 5)
          .map((r) => r.message)
          .join(' | ')}`,
      );
    const shortRun = MINUTES === 10 ? '' : ` (a ${MINUTES}-minute run, not the 10 minutes of the goal)`;
    reportFigure({
      name: 'fleet_pg.round_p99_ms',
      value: quantile(all, 0.99),
      unit: 'ms',
      goal: { op: '<=', value: 5000 },
      note:
        `p99 of ${all.length} rounds (every operation; the first ${WARMUP_MS / 1000} s of recording left out, see fleet_pg.round_p99_all_ms) of ${CLUSTERS} clusters × ${CONNECTIONS} connections recorded in real time for ${MINUTES} min into PostgreSQL${shortRun}; ` +
        `ListKafkaConnections rounds: p50 ${quantile(conn, 0.5)} ms, p99 ${quantile(conn, 0.99)} ms, max ${conn.length === 0 ? 0 : Math.max(...conn)} ms (${conn.length} rounds); ` +
        `${failed.length} rounds not ok; collector: ${how}; load average ${load0.join(' ')} → ${load1.join(' ')}`,
    });
    reportFigure({
      name: 'fleet_pg.fleet_command_ms',
      value: round(fleetTimes.wall.median, 1),
      unit: 'ms',
      goal: { op: '<=', value: 1000 },
      note:
        `node bin/flightrec.js --db URL fleet over the ${CLUSTERS} clusters just recorded (${fleetLines} lines; every line's open events from its timeline over the default 6 h window): ` +
        `median wall of ${FLEET_RUNS} runs after an untimed one (min ${round(fleetTimes.wall.min, 0)}, max ${round(fleetTimes.wall.max, 0)} ms), CPU ${round(fleetTimes.cpu.median, 0)} ms (the server's not included); load average ${fleetLoad0} → ${fleetLoad1}`,
    });
    reportFigure({
      name: 'fleet_pg.round_p99_all_ms',
      value: quantile(everyRound, 0.99),
      unit: 'ms',
      note: `p99 of all ${everyRound.length} rounds, the start-up included (each cluster's first ListKafkaConnections poll stores every connection as new, and the 20 first polls queue in the one store thread); max ${everyRound.length === 0 ? 0 : Math.max(...everyRound)} ms`,
    });
    reportFigure({
      name: 'fleet_pg.collector_cpu_cores',
      value: round(cpuShare, 3),
      unit: 'cores',
      goal: { op: '<=', value: 1 },
      note: `collector process utime+stime ${round((cpu1 - cpu0) / 1000, 1)} s over ${round(wallS, 1)} s of wall time (/proc/PID/stat, from its first round); the PostgreSQL backends serving it used ${round(serverMs / 1000, 1)} s (${round(serverMs / (wall1 - wall0), 3)} cores)`,
    });
    if (warm !== undefined && end.at > warm.at) {
      const perHour = ((end.bytes - warm.bytes) / (end.at - warm.at)) * 3_600_000;
      reportFigure({
        name: 'fleet_pg.db_growth_mb_per_hour',
        value: round(perHour / 1e6, 1),
        unit: 'MB/h',
        note: `pg_database_size from the end of the start-up (${round(warm.bytes / 1e6, 1)} MB) to the end (${round(end.bytes / 1e6, 1)} MB) over ${round((end.at - warm.at) / 60_000, 1)} min: every table, indexes included, no VACUUM; ${round((perHour * 24 * 30) / 1e9, 1)} GB for 30 days at this rate`,
      });
    }
    reportFigure({
      name: 'fleet_pg.postgres_backend_cpu_cores',
      value: round(serverMs / (wall1 - wall0), 3),
      unit: 'cores',
      note: `CPU of the PostgreSQL server processes connected to the bench database over the same window (${server1.size} backends); database size at the end ${bytes[0]!.bytes} bytes; stored polls: ${summary}`,
    });
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    await db.drop();
  }
}

await main();
