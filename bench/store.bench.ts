// History store: ingest, storage per connection-sample, state as of T, one connection's history.
// Run: node scripts/bench.mjs bench/store.bench.ts
//
// Data: test/helpers/connection-answers.ts, a deterministic world of 10,000 connections with 2 %
// churn per poll, 100 polls one minute apart (about 1,040,000 connection-samples), then 100 more
// for the marginal bytes per sample (what a longer recording adds); and, for the history figure,
// 1,000 connections over 1,000 polls.
//
// The state-as-of-T figures are measured in a child process that only reads the finished database
// (bench/lib/store-reads.ts), as flightrec's readers are processes of their own; the same cold
// read timed in this process after the ingest is reported next to them, without a goal.
//
// Every timing is taken twice: wall clock (the figures with goals) and the CPU time of the
// process (the `_cpu_ms` figures; it includes V8's helper threads, so it can exceed the wall
// time). On a loaded machine a wall time well above the CPU time means the bench waited for a
// core.
import { execFileSync } from 'node:child_process';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeAnswer, parseAnswer } from '../src/api/wire/answers.ts';
import type { ListKafkaConnectionsResponse } from '../src/api/schema/connection.ts';
import { createHistoryReader, createHistoryWriter, openDatabase, openHistoryMaintenance } from '../src/db/index.ts';
import type { PollRecord } from '../src/db/poll-record.ts';
import { ConnectionWorld } from '../test/helpers/connection-answers.ts';
import { listPollRecord, writeMorePolls } from './lib/list-poll.ts';
import { median, reportFigure, round, timeWallAndCpu, type WallCpuTiming } from './lib/figures.ts';

const CONNECTIONS = 10_000;
const POLLS = 100;
/** polls whose ingest is timed end to end from the JSON text (the others are written decoded) */
const TIMED = new Set(Array.from({ length: 21 }, (_, i) => 20 + i * 3));

const dir = mkdtempSync(join(tmpdir(), 'flightrec-bench-'));
const log = (s: string): void => void process.stderr.write(`${s}\n`);

function record(answer: ListKafkaConnectionsResponse, at: bigint, bytes: number): PollRecord {
  return listPollRecord(answer, { at, durationNs: 50_000_000n, bytes, round: `r${at}` });
}

/** Wall and CPU milliseconds of one call. */
function measure<T>(fn: () => T): { value: T; wall: number; cpu: number } {
  const c = process.cpuUsage();
  const t = performance.now();
  const value = fn();
  const wall = performance.now() - t;
  const d = process.cpuUsage(c);
  return { value, wall, cpu: (d.user + d.system) / 1000 };
}

/** The read figures of bench/lib/store-reads.ts, run in a child process on the finished database. */
function readInOwnProcess(
  db: string,
  at: bigint,
  other: bigint,
): { expected: number; cold: WallCpuTiming; warm: WallCpuTiming } {
  const script = fileURLToPath(new URL('./lib/store-reads.ts', import.meta.url));
  const out = execFileSync(process.execPath, ['--import', 'tsx', script, db, String(at), String(other)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return JSON.parse(out.trim().split('\n').at(-1)!) as { expected: number; cold: WallCpuTiming; warm: WallCpuTiming };
}

try {
  const load = loadavg()[0]!.toFixed(1);
  // 1. one connection's history over 1,000 polls (its own database: 1,000 connections), measured
  // first, before the large ingest fills the heap
  const hpath = join(dir, 'history.db');
  const hdb = openDatabase(hpath);
  const hw = createHistoryWriter(hdb, { sealOnClose: false }); // the last 8 polls stay head frames, as in a live store
  const hworld = new ConnectionWorld({ connections: 1_000, churn: 0.001, seed: 5 });
  let first: Set<string> | undefined;
  let last: ListKafkaConnectionsResponse | undefined;
  for (let i = 0; i < 1_000; i++) {
    const { at: t, answer } = hworld.next();
    first ??= new Set(answer.connections.map((c) => c.uid));
    last = answer;
    hw.writePoll(record(answer, t, 0));
  }
  hw.close();
  const uid = last!.connections.find((c) => first!.has(c.uid))!.uid;
  const hro = openDatabase(hpath, { readonly: true });
  const n = createHistoryReader(hro).entityHistory('connections', { uid }).length;
  if (n !== 1_000) throw new Error(`expected 1000 samples of ${uid}, got ${n}`);
  // fresh readers (cold data), warm code: enough untimed runs for V8 to optimise the path
  const readers = Array.from({ length: 45 }, () => createHistoryReader(hro));
  const history = timeWallAndCpu(() => readers.pop()!.entityHistory('connections', { uid }), { warmup: 20, runs: 25 });
  hro.close();

  // 2. ingest 100 polls of 10,000 connections
  // BENCH_STORE_DB=FILE keeps the 10,000-connection history there (a new file) for reruns of the
  // read half: the bench prints the command line
  const keep = process.env.BENCH_STORE_DB;
  if (keep !== undefined && existsSync(keep)) throw new Error(`BENCH_STORE_DB: ${keep} exists; name a new file`);
  const path = keep ?? join(dir, 'store.db');
  const db = openDatabase(path);
  const writer = createHistoryWriter(db);
  const world = new ConnectionWorld({ connections: CONNECTIONS, churn: 0.02, seed: 42 });
  const ingest: { wall: number; cpu: number; parse: number; write: number }[] = [];
  const writes: { wall: number; cpu: number }[] = [];
  let rawBytes = 0;
  let gzipBytes = 0;
  let anchorSamples = 0;
  let samples = 0;
  const times: bigint[] = [];
  const started = performance.now();
  for (let i = 0; i < POLLS; i++) {
    const { at, answer } = world.next();
    times.push(at);
    samples += answer.connections.length;
    if (TIMED.has(i)) {
      const body = Buffer.from(encodeAnswer('ListKafkaConnections', answer));
      rawBytes += body.length;
      gzipBytes += gzipSync(body).length;
      anchorSamples += answer.connections.length;
      const p = measure(() => parseAnswer('ListKafkaConnections', body));
      const w = measure(() => writer.writePoll(record(p.value, at, body.length)));
      ingest.push({ wall: p.wall + w.wall, cpu: p.cpu + w.cpu, parse: p.wall, write: w.wall });
      writes.push(w);
    } else {
      writes.push(measure(() => writer.writePoll(record(answer, at, 0))));
    }
  }
  writer.close();
  log(
    `ingested ${POLLS} polls (${samples} samples) in ${round((performance.now() - started) / 1000, 1)} s, load average ${load}`,
  );

  const ro = openDatabase(path, { readonly: true });
  const stats = openHistoryMaintenance(ro).stats();
  log(`file ${stats.fileBytes} bytes, ${stats.entities.connections} connections`);

  // 3. state of all connections as of T mid-history. "cold": a fresh reader per run (no cached
  // versions or strings; statements prepared beforehand). "warm": one reader answering
  // alternately for two instants in different batches, as a TUI scrubbing through time does.
  // Measured in a process that only reads (bench/lib/store-reads.ts), as `query`, `browse` and
  // `report` are: not in this one, whose heap still holds what the ingest of a million samples
  // left behind. For comparison, the cold read is also timed here, after the ingest.
  const at = times[60]! + 1n; // the 5th poll of its batch: chunks decode half way
  const other = times[27]! + 1n;
  const reads = readInOwnProcess(path, at, other);
  if (keep !== undefined)
    log(`kept ${keep}; the read half again: node --import tsx bench/lib/store-reads.ts ${keep} ${at} ${other}`);
  const expected = reads.expected;
  const fresh = Array.from({ length: 21 }, () => createHistoryReader(ro));
  const afterIngest = timeWallAndCpu(
    () => {
      if (fresh.pop()!.stateAt('connections', at).rows.length !== expected) throw new Error('stateAt changed');
    },
    { warmup: 6, runs: 15 },
  );
  ro.close();
  const state = reads.cold;
  const stateWarm = reads.warm;

  const ms = (v: number, d = 1): number => round(v, d);
  const writeWall = writes.map((w) => w.wall);
  reportFigure({
    name: 'store.ingest_poll_10k_median_ms',
    value: ms(median(ingest.map((x) => x.wall))),
    unit: 'ms',
    goal: { op: '<=', value: 150 },
    note: `parse+decode ${ms(median(ingest.map((x) => x.parse)))} ms + write+commit ${ms(median(ingest.map((x) => x.write)))} ms, medians of ${ingest.length} polls; load average ${load}`,
  });
  reportFigure({
    name: 'store.ingest_poll_10k_cpu_ms',
    value: ms(median(ingest.map((x) => x.cpu))),
    unit: 'ms',
    note: 'the same, CPU time',
  });
  reportFigure({
    name: 'store.write_poll_10k_median_ms',
    value: ms(median(writeWall)),
    unit: 'ms',
    note: `store only (write + commit), all ${POLLS} polls, batch seals included (p90 ${ms([...writeWall].sort((a, b) => a - b)[89]!)} ms); CPU ${ms(median(writes.map((w) => w.cpu)))} ms`,
  });
  reportFigure({
    name: 'store.bytes_per_connection_sample',
    value: ms(stats.fileBytes / samples),
    unit: 'B',
    goal: { op: '<=', value: 40 },
    note: `${stats.fileBytes} bytes / ${samples} samples, everything kept (${stats.entities.connections} connections)`,
  });
  reportFigure({
    name: 'store.bytes_per_connection_sample_stretch',
    value: ms(stats.fileBytes / samples),
    unit: 'B',
    goal: { op: '<=', value: 25 },
    note: 'store.bytes_per_connection_sample again, against the stretch goal of issue 36 (at most 25 B without slowing any read figure)',
  });
  reportFigure({
    name: 'store.raw_json_bytes_per_connection_sample',
    value: round(rawBytes / anchorSamples, 0),
    unit: 'B',
    note: 'anchor: the answer as the server writes it',
  });
  reportFigure({
    name: 'store.gzip_answer_bytes_per_connection_sample',
    value: ms(gzipBytes / anchorSamples),
    unit: 'B',
    note: 'anchor: one gzip (level 6) of each whole answer',
  });
  reportFigure({
    name: 'store.state_at_10k_ms',
    value: ms(state.wall),
    unit: 'ms',
    goal: { op: '<=', value: 50 },
    note: `${expected} rows as of a mid-history instant, fresh reader per run, in a process that only reads (min ${ms(state.min)}, p90 ${ms(state.p90)})`,
  });
  reportFigure({ name: 'store.state_at_10k_cpu_ms', value: ms(state.cpu), unit: 'ms', note: 'the same, CPU time' });
  reportFigure({
    name: 'store.state_at_10k_after_ingest_ms',
    value: ms(afterIngest.wall),
    unit: 'ms',
    note: `the same read in the process that just wrote the history, its heap full of the ingest's leftovers (min ${ms(afterIngest.min)}, p90 ${ms(afterIngest.p90)}, CPU ${ms(afterIngest.cpu)})`,
  });
  reportFigure({
    name: 'store.state_at_10k_warm_ms',
    value: ms(stateWarm.wall),
    unit: 'ms',
    note: `one reader alternating between two instants in different batches (min ${ms(stateWarm.min)}, CPU ${ms(stateWarm.cpu)})`,
  });
  reportFigure({
    name: 'store.entity_history_1000_polls_ms',
    value: ms(history.wall, 2),
    unit: 'ms',
    goal: { op: '<=', value: 10 },
    note: `1,000 samples of one connection (the last 8 from open head frames), fresh reader per run (min ${ms(history.min, 2)}, p90 ${ms(history.p90, 2)})`,
  });
  reportFigure({
    name: 'store.entity_history_1000_polls_cpu_ms',
    value: ms(history.cpu, 2),
    unit: 'ms',
    note: 'the same, CPU time',
  });

  // 4. what a longer recording adds per sample: the same world for as many polls again, the file
  // measured the same way; the store's fixed costs (its first pages, the open batch's working
  // space) are in both sizes and drop out
  const moreSamples = writeMorePolls(path, world, POLLS);
  const grownStats = openHistoryMaintenance(openDatabase(path, { readonly: true })).stats();
  reportFigure({
    name: 'store.marginal_bytes_per_connection_sample',
    value: ms((grownStats.fileBytes - stats.fileBytes) / moreSamples),
    unit: 'B',
    note: `the file grew from ${stats.fileBytes} to ${grownStats.fileBytes} bytes over ${POLLS} more polls of the same world (${moreSamples} samples)`,
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
