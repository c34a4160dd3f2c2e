// The comparison users ask for: what an operator scripts today (save every answer into a file,
// plain and gzip'd, and ask jq) against flightrec, on the same simulator recording.
// Run: node scripts/bench.mjs bench/baseline.bench.ts   (about 3 minutes on 2 shared cores; needs jq)
//
// Recording: the simulated cluster with 10,000 connections (manual clock), 100 polls 30 s apart.
// Each poll is one plain HTTP POST of ListKafkaConnections (node's fetch, i.e. undici: what curl
// does), whose body is (a) saved as tmp/baseline-<pid>/poll-NNN.json and poll-NNN.json.gz (gzip
// level 6, the gzip command's default) and (b) parsed and written by flightrec's history writer
// into a SQLite file, exactly as the collector does with a body.
//
// Questions, answered both ways, checked to give the same answer, then timed:
//   q1 the filter query: open connections of one principal on node 1 at the last poll
//      (jq select over the last file / runQuery with the same filter at that instant);
//   q2 one connection's history over all 100 polls (jq over the 100 files / entityHistory);
//   q3 top 10 client ids by produce rate over 10 minutes (jq over the files of the window, with
//      the same arithmetic as trends: consecutive differences of totalRequestStatistics.
//      produceBytes per connection, a connection opened inside the window counted from zero, a
//      counter that went down counted from zero / computeTrends produce-bytes by client).
// The naive jq answer to q3, the difference between the first and the last file of the window,
// is checked against runQuery at both instants with the same arithmetic, and its agreement with
// the full answer is given in the note.
//
// jq runs as a child process (its time includes its start, negligible beside parsing 11 MB per
// file); flightrec runs in-process, each timed run opening the database afresh. When the CLI is
// built (dist/cli.js), the notes also give one end-to-end `flightrec` command per question (Node
// start and module loading included). Files are in the page cache (just written) on both sides.
// q1 is also timed over the gzip'd file (gzip -dc | jq); q2 and q3 only over the plain files,
// to bound the run time (jq parsing, not gunzip, is the cost). jq runs take the median of 3
// (q1) or one run (q2, q3: tens of seconds each).
// BASELINE_KEEP=1 keeps the files for a look with jq (about 1.3 GB).
import { deepStrictEqual, ok } from 'node:assert/strict';
import { execFile, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { formatTimestamp } from '../src/api/codec/timestamp.ts';
import type { KafkaConnection, ListKafkaConnectionsResponse } from '../src/api/schema/connection.ts';
import { operationPath } from '../src/api/schema/operations.ts';
import { encodeAnswer, parseAnswer } from '../src/api/wire/answers.ts';
import { createHistoryReader, createHistoryWriter, openDatabase } from '../src/db/index.ts';
import type { PollRecord } from '../src/db/poll-record.ts';
import { runQuery, type ReportReader } from '../src/report/index.ts';
import { computeTrends } from '../src/report/trends/index.ts';
import { startSimServer } from '../src/sim/index.ts';
import { listPollRecord } from './lib/list-poll.ts';
import { reportFigure, round, spreadOf, timeIt } from './lib/figures.ts';
import { childCpuMs } from './lib/alternation.ts';

const CONNECTIONS = 10_000;
const POLLS = 100;
const INTERVAL_S = 30;
const PAGE_SIZE = 20_000; // one page holds every connection (the recently closed ones too)
const PRINCIPAL = 'User:svc-fraud';
const NODE = 1;
const FILTER = `state = KAFKA_CONNECTION_STATE_OPEN AND authentication_info.user_principal = "${PRINCIPAL}" AND node_id = ${NODE}`;
/** q3's window: polls 60 to 80, 10 minutes */
const WINDOW = { from: 60, to: 80 } as const;
const TOP = 10;

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const dir = join(root, 'tmp', `baseline-${process.pid}`);
const dbPath = join(dir, 'flightrec.db');
const log = (s: string): void => void process.stderr.write(`${s}\n`);
const gzipAsync = promisify(gzip);
const pollFile = (i: number, gz = false): string =>
  join(dir, `poll-${String(i).padStart(3, '0')}.json${gz ? '.gz' : ''}`);

// --- jq programs (what the operator's scripts hold) ---------------------------------------------

/** q1: uids of the open connections of $p on node 1. */
const JQ_Q1 = `.connections[] | select(.state == "KAFKA_CONNECTION_STATE_OPEN" and .authenticationInfo.userPrincipal == $p and .nodeId == ${NODE}) | .uid`;
/** q2: the connection with uid $u in each file given, one line per file. */
const JQ_Q2 = '.connections[] | select(.uid == $u)';
/** q3 and its naive variant: one row per connection-sample of the files given (`jq -n`, oldest first). */
const JQ_ROWS = `[foreach inputs as $f (-1; . + 1; . as $i | $f.connections[]
  | {u: .uid, i: $i, c: .clientId, o: .openTime, v: (.totalRequestStatistics.produceBytes | tonumber)})]`;
/** the top clients of rows {c: client, d: increase} */
const JQ_TOP = `group_by(.c) | map({key: .[0].c, value: (map(.d) | add)}) | sort_by([-.value, .key]) | .[:${TOP}][] | "\\(.key) \\(.value)"`;
/**
 * q3: top clients by produced bytes over the files of the window, with the poll times in $times.
 * Per connection the sum of consecutive differences; at the first file: the baseline; first seen
 * later and opened after the previous poll: counted from zero; a counter that went down: counted
 * from zero. The rules of src/report/trends/counter-rates.ts. Written with sorts (group_by): the
 * obvious jq, accumulating into an object keyed by uid (`.last[$c.uid] = $v` in a reduce), copies
 * the object on every update in jq 1.6 and took 18 s of CPU for 3 files instead of 1.5 s.
 */
const JQ_Q3 = `${JQ_ROWS}
| group_by(.u)
| map(. as $s | range(0; length) as $k | $s[$k]
    | {c, d: (if $k == 0 then (if .i > 0 and .o > $times[.i - 1] then .v else 0 end)
              else .v as $v | $s[$k - 1].v as $l | if $v >= $l then $v - $l else $v end end)})
| ${JQ_TOP}`;
/** q3, naive: the difference between two files (the second minus the first, connections new in the second from zero). */
const JQ_Q3_NAIVE = `${JQ_ROWS}
| group_by(.u) | map(select(.[-1].i == 1) | {c: .[-1].c, d: (.[-1].v - (if .[0].i == 0 then .[0].v else 0 end))})
| ${JQ_TOP}`;

// --- helpers ----------------------------------------------------------------------------------

interface Run {
  out: string;
  wall: number;
  cpu: number;
}

/** Runs a command to completion; throws on a non-zero status. */
function run(cmd: string, args: readonly string[]): Run {
  const cpu0 = childCpuMs();
  const t0 = performance.now();
  const r: SpawnSyncReturns<string> = spawnSync(cmd, args, {
    cwd: dir,
    encoding: 'utf8',
    maxBuffer: 512 * 1024 * 1024,
  });
  const wall = performance.now() - t0;
  const cpu = childCpuMs() - cpu0;
  if (r.error) throw r.error;
  if (r.status !== 0)
    throw new Error(
      `${cmd} ${args.slice(0, 3).join(' ')} … exited with ${r.status ?? r.signal}: ${r.stderr.slice(0, 500)}`,
    );
  return { out: r.stdout, wall, cpu };
}

/** Runs a shell pipeline (`sh -c script sh args…`). */
const sh = (script: string, args: readonly string[]): Run => run('sh', ['-c', script, 'sh', ...args]);

/** Median run (by wall time) of n runs, with the spread of their wall times (spreadOf). */
function medianRun(n: number, fn: () => Run): Run & { spread: number } {
  const runs = Array.from({ length: n }, fn).sort((a, b) => a.wall - b.wall);
  return { ...runs[n >> 1]!, spread: spreadOf(runs.map((r) => r.wall)) };
}

const lines = (s: string): string[] => s.split('\n').filter((l) => l !== '');

/** A flightrec row in the server's JSON form (as jq prints it), parsed back for comparison. */
function wireRow(row: object): unknown {
  const text = encodeAnswer('ListKafkaConnections', { connections: [row as KafkaConnection], totalSize: 1n });
  return (JSON.parse(text) as { connections: unknown[] }).connections[0];
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** In-process timing of a flightrec question, each run opening the database afresh; CPU median too. */
function timeFlightrec(
  fn: (reader: ReportReader & ReturnType<typeof createHistoryReader>) => unknown,
  warmup: number,
  runs: number,
): { wall: number; cpu: number; p90: number } {
  const cpu: number[] = [];
  const t = timeIt(
    () => {
      const c = process.cpuUsage();
      const db = openDatabase(dbPath, { readonly: true });
      try {
        fn(createHistoryReader(db) as ReportReader & ReturnType<typeof createHistoryReader>);
      } finally {
        db.close();
      }
      const d = process.cpuUsage(c);
      cpu.push((d.user + d.system) / 1000);
    },
    { warmup, runs },
  );
  return { wall: t.medianMs, cpu: median(cpu.slice(warmup)), p90: t.p90Ms };
}

/** One end-to-end `flightrec` command when the CLI is built, else undefined. */
const cliEntry = join(root, 'bin', 'flightrec.js');
const cliBuilt = existsSync(join(root, 'dist', 'cli.js'));
function cli(args: readonly string[]): Run | undefined {
  if (!cliBuilt) return undefined;
  try {
    return run(process.execPath, [cliEntry, '--db', dbPath, '-o', 'json', ...args]);
  } catch (err) {
    log(`flightrec CLI failed (${(err as Error).message.split('\n')[0]}); CLI timings left out`);
    return undefined;
  }
}
const cliNote = (r: Run | undefined): string =>
  r === undefined ? '' : `; the CLI command end to end ${round(r.wall, 0)} ms`;

function record(
  answer: ListKafkaConnectionsResponse,
  at: bigint,
  bytes: number,
  i: number,
  fetchNs: bigint,
): PollRecord {
  return listPollRecord(answer, {
    at,
    durationNs: fetchNs,
    bytes,
    round: `r${i}`,
    cluster: 'sim',
    pageSize: PAGE_SIZE,
  });
}

// --- the run ----------------------------------------------------------------------------------

const jqVersion = spawnSync('jq', ['--version'], { encoding: 'utf8' });
if (jqVersion.error || jqVersion.status !== 0) throw new Error('jq is needed for the baseline (apt-get install jq)');
const loads: number[] = [loadavg()[0]!];
mkdirSync(dir, { recursive: true });
const sim = await startSimServer({ seed: 42, connections: CONNECTIONS, clock: 'manual', port: 0 });
const url = sim.baseUrl + operationPath('ListKafkaConnections');
const requestBody = JSON.stringify({ pageSize: PAGE_SIZE });
const headers = { 'content-type': 'application/json', 'connect-protocol-version': '1' };
let simOpen = true;
try {
  // --- 1. record: 100 polls, saved as files and written by flightrec
  const db = openDatabase(dbPath);
  const writer = createHistoryWriter(db);
  const times: bigint[] = [];
  const fetchMs: number[] = [];
  const saveMs: number[] = [];
  const recordMs: number[] = [];
  let jsonBytes = 0;
  let gzipBytes = 0;
  let samples = 0;
  /** uids listed in every poll so far, in the first poll's order */
  let everywhere: string[] = [];
  const started = performance.now();
  for (let i = 0; i < POLLS; i++) {
    if (i > 0) sim.advance(INTERVAL_S);
    const at = sim.world.now();
    times.push(at);
    const t0 = performance.now();
    const res = await fetch(url, { method: 'POST', headers, body: requestBody });
    const body = Buffer.from(await res.arrayBuffer());
    const fetched = performance.now() - t0;
    ok(res.status === 200, `poll ${i}: HTTP ${res.status}`);
    fetchMs.push(fetched);
    // (a) the operator's files; the gzip runs on libuv's pool while flightrec parses
    const t1 = performance.now();
    writeFileSync(pollFile(i), body);
    const gz = gzipAsync(body, { level: 6 });
    const t2 = performance.now();
    // (b) flightrec
    const answer = parseAnswer('ListKafkaConnections', body);
    writer.writePoll(record(answer, at, body.length, i, BigInt(Math.round(fetched * 1e6))));
    const t3 = performance.now();
    const gzBody = await gz;
    writeFileSync(pollFile(i, true), gzBody);
    saveMs.push(t2 - t1 + (performance.now() - t3)); // gzip overlapped with (b): its wait is counted, not its run
    recordMs.push(t3 - t2);
    ok(answer.connections.length === Number(answer.totalSize), `poll ${i}: a full answer`);
    jsonBytes += body.length;
    gzipBytes += gzBody.length;
    samples += answer.connections.length;
    const uids = new Set(answer.connections.map((c) => c.uid));
    everywhere = i === 0 ? [...uids] : everywhere.filter((u) => uids.has(u));
    if ((i + 1) % 25 === 0) {
      const m = (xs: number[]): number => round(median(xs.slice(-25)), 0);
      log(
        `  poll ${i + 1}: fetch ${m(fetchMs)} ms, save ${m(saveMs)} ms, flightrec ${m(recordMs)} ms (medians of the last 25); load average ${loadavg()[0]!.toFixed(1)}`,
      );
    }
  }
  writer.close();
  const flightrecBytes = statSync(dbPath).size + (existsSync(`${dbPath}-wal`) ? statSync(`${dbPath}-wal`).size : 0);
  const recordS = (performance.now() - started) / 1000;
  loads.push(loadavg()[0]!);
  log(
    `recorded ${POLLS} polls (${samples} connection-samples) in ${round(recordS, 1)} s: ${jsonBytes} B of JSON, ${gzipBytes} B gzip'd, ${flightrecBytes} B of SQLite; load average ${loads.at(-1)!.toFixed(1)}`,
  );

  // one real curl, at the last poll's instant (manual clock: the same answer, byte for byte); run
  // asynchronously, since the simulator answers from this process
  let curlNote = '';
  const curl = spawnSync('curl', ['--version'], { encoding: 'utf8' });
  if (!curl.error && curl.status === 0) {
    const out = join(dir, 'curl.json');
    const args = [
      '-sS',
      '--fail',
      '-X',
      'POST',
      '-H',
      'content-type: application/json',
      '-H',
      'connect-protocol-version: 1',
      '--data',
      requestBody,
      '-o',
      out,
      url,
    ];
    const t0 = performance.now();
    await new Promise<void>((done, fail) => execFile('curl', args, (err) => (err ? fail(err) : done())));
    const wall = performance.now() - t0;
    ok(readFileSync(out).equals(readFileSync(pollFile(POLLS - 1))), 'curl fetched the same bytes as the last poll');
    curlNote = `; one curl of the same answer ${round(wall, 0)} ms`;
  }

  simOpen = false;
  await sim.close(); // frees its memory; everything below reads files and the database
  const last = POLLS - 1;
  const files = Array.from({ length: POLLS }, (_, i) => relative(dir, pollFile(i)));
  const gzFiles = Array.from({ length: POLLS }, (_, i) => relative(dir, pollFile(i, true)));

  // --- 2. q1: the filter query at the last poll
  const q1jq = run('jq', ['-r', '--arg', 'p', PRINCIPAL, JQ_Q1, files[last]!]);
  const q1fr = (reader: ReportReader): string[] =>
    runQuery(reader, { resource: 'connections', at: times[last]!, filter: FILTER }).rows.map(
      (r) => (r as KafkaConnection).uid,
    );
  {
    const db2 = openDatabase(dbPath, { readonly: true });
    const mine = q1fr(createHistoryReader(db2) as unknown as ReportReader);
    db2.close();
    ok(mine.length > 0, 'q1 selects some connections');
    deepStrictEqual([...mine].sort(), lines(q1jq.out).sort(), 'q1: jq and flightrec select the same connections');
  }
  const q1Base = medianRun(3, () => run('jq', ['-r', '--arg', 'p', PRINCIPAL, JQ_Q1, files[last]!]));
  const q1Gzip = medianRun(3, () => sh('gzip -dc "$1" | jq -r --arg p "$2" "$3"', [gzFiles[last]!, PRINCIPAL, JQ_Q1]));
  const q1Fr = timeFlightrec((r) => q1fr(r), 2, 9);
  const q1Cli = cli(['query', 'connections', '--at', formatTimestamp(times[last]!), '--filter', FILTER]);
  const q1Count = lines(q1jq.out).length;
  log(`q1: ${q1Count} connections; jq ${round(q1Base.wall, 0)} ms, flightrec ${round(q1Fr.wall, 1)} ms`);

  // --- 3. q2: one connection's history over all polls
  ok(everywhere.length > 0, 'a connection is listed in every poll');
  const uid = everywhere[0]!;
  const q2Base = run('jq', ['-c', '--arg', 'u', uid, JQ_Q2, ...files]);
  {
    const db2 = openDatabase(dbPath, { readonly: true });
    const hist = createHistoryReader(db2).entityHistory('connections', { uid });
    db2.close();
    const got = lines(q2Base.out).map((l) => JSON.parse(l) as unknown);
    ok(
      got.length === POLLS && hist.length === POLLS,
      `q2: ${POLLS} samples (jq ${got.length}, flightrec ${hist.length})`,
    );
    hist.forEach((s, i) => {
      ok(s.poll.startTime === times[i], `q2: sample ${i} from poll ${i}`);
      deepStrictEqual(wireRow(s.row), got[i], `q2: sample ${i} of ${uid} is the same both ways`);
    });
  }
  loads.push(loadavg()[0]!);
  log(`q2: ${uid} in ${POLLS} files; jq ${round(q2Base.wall, 0)} ms (CPU ${round(q2Base.cpu, 0)} ms)`);
  const q2Fr = timeFlightrec((r) => r.entityHistory('connections', { uid }), 3, 15);
  const q2Cli = cli([
    'query',
    'connections',
    '--since',
    formatTimestamp(times[0]!),
    '--until',
    formatTimestamp(times[last]!),
    '--filter',
    `uid = "${uid}"`,
  ]);

  // --- 4. q3: top clients by produce rate over the window
  const win = Array.from({ length: WINDOW.to - WINDOW.from + 1 }, (_, k) => WINDOW.from + k);
  const winTimes = JSON.stringify(win.map((i) => formatTimestamp(times[i]!)));
  const since = times[WINDOW.from]!;
  const until = times[WINDOW.to]!;
  const seconds = Number(until - since) / 1e9;
  const q3Base = run('jq', ['-n', '-r', '--argjson', 'times', winTimes, JQ_Q3, ...win.map((i) => files[i]!)]);
  const parseTop = (out: string): [string, bigint][] =>
    lines(out).map((l) => {
      const sp = l.lastIndexOf(' ');
      return [l.slice(0, sp), BigInt(l.slice(sp + 1))];
    });
  const jqTop = parseTop(q3Base.out);
  const q3fr = (reader: ReportReader): [string, bigint][] =>
    computeTrends(reader, { metric: 'produce-bytes', by: 'client', since, until, top: TOP }).rows.map((r) => [
      r.key,
      BigInt(String(r.detail.increase)),
    ]);
  let frTop: [string, bigint][];
  {
    const db2 = openDatabase(dbPath, { readonly: true });
    const reader = createHistoryReader(db2) as unknown as ReportReader;
    frTop = q3fr(reader);
    const res = computeTrends(reader, { metric: 'produce-bytes', by: 'client', since, until, top: TOP });
    db2.close();
    ok(jqTop.length === TOP, `q3: jq gave ${jqTop.length} clients`);
    deepStrictEqual(frTop, jqTop, 'q3: jq and flightrec trends give the same top clients and increases');
    // rates: the same increase over the same window
    res.rows.forEach((r, k) =>
      ok(Math.abs(r.value - Number(jqTop[k]![1]) / seconds) <= 1e-9 * r.value, `q3: rate of ${r.key}`),
    );
  }
  const q3Fr = timeFlightrec((r) => q3fr(r), 1, 5);
  const q3Cli = cli([
    'trends',
    'produce-bytes',
    '--by',
    'client',
    '--since',
    formatTimestamp(since),
    '--until',
    formatTimestamp(until),
    '--top',
    String(TOP),
  ]);

  // the naive script: two files only; flightrec with runQuery at both instants and the same arithmetic
  const q3Naive = run('jq', ['-n', '-r', JQ_Q3_NAIVE, files[WINDOW.from]!, files[WINDOW.to]!]);
  const naiveTop = parseTop(q3Naive.out);
  {
    const db2 = openDatabase(dbPath, { readonly: true });
    const reader = createHistoryReader(db2) as unknown as ReportReader;
    const a = runQuery(reader, { resource: 'connections', at: since }).rows as KafkaConnection[];
    const b = runQuery(reader, { resource: 'connections', at: until }).rows as KafkaConnection[];
    db2.close();
    const before = new Map(a.map((c) => [c.uid, c.totalRequestStatistics.produceBytes]));
    const inc = new Map<string, bigint>();
    for (const c of b)
      inc.set(
        c.clientId,
        (inc.get(c.clientId) ?? 0n) + c.totalRequestStatistics.produceBytes - (before.get(c.uid) ?? 0n),
      );
    const mine = [...inc]
      .sort((x, y) => (x[1] > y[1] ? -1 : x[1] < y[1] ? 1 : x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0))
      .slice(0, TOP);
    deepStrictEqual(mine, naiveTop, 'q3 (two instants): jq and flightrec runQuery give the same answer');
  }
  const sameSet = naiveTop.filter(([k]) => jqTop.some(([j]) => j === k)).length;
  const sameOrder = naiveTop.every(([k], i) => jqTop[i]![0] === k);
  const maxOff = Math.max(
    ...jqTop
      .map(([k, v]) => {
        const n = naiveTop.find(([j]) => j === k)?.[1];
        return n === undefined ? Number.NaN : Math.abs(Number(n - v)) / Number(v);
      })
      .filter((x) => !Number.isNaN(x)),
  );
  loads.push(loadavg()[0]!);
  log(
    `q3: jq ${round(q3Base.wall, 0)} ms (CPU ${round(q3Base.cpu, 0)} ms), flightrec ${round(q3Fr.wall, 1)} ms; naive two-file jq ${round(q3Naive.wall, 0)} ms, ${sameSet}/${TOP} clients in common${sameOrder ? ', same order' : ''}, largest increase off by ${round(maxOff * 100, 2)} %`,
  );

  // --- 5. figures
  const load = `load average ${loads.map((l) => l.toFixed(1)).join(' → ')}`;
  const per = (b: number): number => round(b / samples, 1);
  const frPer = flightrecBytes / samples;
  reportFigure({
    name: 'baseline.bytes_per_connection_sample_json',
    value: per(jsonBytes),
    unit: 'B',
    note: `${POLLS} answers of ~${CONNECTIONS} connections saved as returned (${jsonBytes} B, ${samples} samples); fetch median ${round(median(fetchMs), 0)} ms${curlNote}`,
  });
  reportFigure({
    name: 'baseline.bytes_per_connection_sample_gzip',
    value: per(gzipBytes),
    unit: 'B',
    note: `the same answers, one gzip -6 per file (${gzipBytes} B); saving plain + gzip ${round(median(saveMs), 0)} ms per poll (median)`,
  });
  reportFigure({
    name: 'flightrec.bytes_per_connection_sample',
    value: per(flightrecBytes),
    unit: 'B',
    note: `the same recording in SQLite, everything kept (${flightrecBytes} B); parse + write ${round(median(recordMs), 0)} ms per poll (median); recording took ${round(recordS, 0)} s`,
  });
  reportFigure({
    name: 'ratio.bytes_per_connection_sample_json',
    value: round(jsonBytes / samples / frPer, 1),
    unit: 'x',
    better: 'higher',
    note: 'plain JSON files / flightrec',
  });
  reportFigure({
    name: 'ratio.bytes_per_connection_sample_gzip',
    value: round(gzipBytes / samples / frPer, 1),
    unit: 'x',
    better: 'higher',
    note: 'gzip files / flightrec',
  });

  const ratio = (b: number, f: number): number => round(b / f, b / f >= 100 ? 0 : 1);
  reportFigure({
    name: 'baseline.q1_filter_ms',
    value: round(q1Base.wall, 0),
    unit: 'ms',
    spread: q1Base.spread,
    note: `jq select over the last file (${q1Count} connections of ${PRINCIPAL} open on node ${NODE}), median of 3, CPU ${round(q1Base.cpu, 0)} ms; gzip -dc | jq ${round(q1Gzip.wall, 0)} ms; ${load}`,
  });
  reportFigure({
    name: 'flightrec.q1_filter_ms',
    value: round(q1Fr.wall, 1),
    unit: 'ms',
    note: `runQuery at the last poll with the filter, database opened per run, median of 9 (p90 ${round(q1Fr.p90, 1)}, CPU ${round(q1Fr.cpu, 1)} ms)${cliNote(q1Cli)}`,
  });
  reportFigure({
    name: 'ratio.q1_filter',
    value: ratio(q1Base.wall, q1Fr.wall),
    unit: 'x',
    better: 'higher',
    note: 'jq / flightrec, same answer',
  });
  reportFigure({
    name: 'baseline.q2_history_ms',
    value: round(q2Base.wall, 0),
    unit: 'ms',
    note: `one jq over the ${POLLS} files (one run), CPU ${round(q2Base.cpu, 0)} ms (not repeated over the gzip files, which q1 shows costing about the same)`,
  });
  reportFigure({
    name: 'flightrec.q2_history_ms',
    value: round(q2Fr.wall, 2),
    unit: 'ms',
    note: `entityHistory of one connection (${POLLS} samples), database opened per run, median of 15 (p90 ${round(q2Fr.p90, 2)}, CPU ${round(q2Fr.cpu, 2)} ms)${cliNote(q2Cli)}${q2Cli ? ' (query --since --until --filter uid)' : ''}`,
  });
  reportFigure({
    name: 'ratio.q2_history',
    value: ratio(q2Base.wall, q2Fr.wall),
    unit: 'x',
    better: 'higher',
    note: 'jq / flightrec, same answer',
  });
  reportFigure({
    name: 'baseline.q3_top_clients_ms',
    value: round(q3Base.wall, 0),
    unit: 'ms',
    note: `jq over the ${win.length} files of a 10-minute window (one run), CPU ${round(q3Base.cpu, 0)} ms. The naive script (first and last file only) ${round(q3Naive.wall, 0)} ms: ${sameSet}/${TOP} clients in common${sameOrder ? ', same order' : ', another order'}, increases off by up to ${round(maxOff * 100, 2)} %`,
  });
  reportFigure({
    name: 'flightrec.q3_top_clients_ms',
    value: round(q3Fr.wall, 1),
    unit: 'ms',
    note: `computeTrends produce-bytes by client, top ${TOP}, over the same ${win.length} polls, database opened per run, median of 5 (p90 ${round(q3Fr.p90, 1)}, CPU ${round(q3Fr.cpu, 1)} ms)${cliNote(q3Cli)}`,
  });
  reportFigure({
    name: 'ratio.q3_top_clients',
    value: ratio(q3Base.wall, q3Fr.wall),
    unit: 'x',
    better: 'higher',
    note: 'jq / flightrec, same answer',
  });
} finally {
  if (simOpen) await sim.close();
  if (process.env.BASELINE_KEEP === '1') log(`kept ${relative(root, dir)}`);
  else rmSync(dir, { recursive: true, force: true });
}
