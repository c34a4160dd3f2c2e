// The machine's own speed at the time of a bench, so that a figure compared with an earlier run
// can be told apart from the machine having become slower or faster in between (a shared machine's
// speed changes from boot to boot and with the other work on it).
//
//   node scripts/bench-reference.mjs          prints the reference: {"version":1,"ms":…,"parts":…}
//   node scripts/bench-reference.mjs --work   does the work once (what each timed command runs)
//   node scripts/bench-reference.mjs --parts  times the parts in one process, prints them as JSON
//
// Two kinds of measurement, the same in every run and every version of flightrec:
//
// - the whole command (REFERENCE_VERSION 1, unchanged since the first references, so that
//   results files written before the parts existed stay comparable): a fresh `node` process doing
//   the work below, timed from outside, REFERENCE_RUNS times; `ms` is the median, `runs` the times.
// - the parts (PARTS_VERSION), each timed inside PARTS_RUNS fresh processes: `start`, the process's
//   own start until its first line runs (ms); `cold`, the work's first run in that process (heap
//   growing into fresh pages, code not yet compiled; ms); `warm`, the median of WARM_RUNS later
//   runs of the same work (the CPU alone; ms); `startCpu` and `warmCpu`, the CPU time (user and
//   system) of the start and of a warm run, which waiting for a core does not lengthen (ms);
//   `sqlite`, an in-memory SQLite table of 20,000 rows written and read through better-sqlite3,
//   loading the addon included (ms); `fault`, the time per fresh 4 KiB page of memory first touched
//   (µs; recorded to explain a change, not compared).
// - `spawn` and `spawnCpu` (added later in the same PARTS_VERSION: a reference without them is
//   compared on the others): `node -e 0` as a whole fresh process timed from outside, SPAWN_RUNS
//   times after an untimed one; `spawn` is each run's wall time (ms), `spawnCpu` the children's CPU
//   time (user and system, from /proc/self/stat) over the runs divided by their number (ms; one
//   value, the kernel counts it in 10 ms ticks). Unlike `start`, which a process reads of itself at
//   its first line, these include what every spawned command pays besides: the fork and exec, the
//   loader, the exit and the wait. On 2026-12-07 `node -e 0` took 143 ms against 78 in the bench of
//   whole commands while the whole reference moved 1.34-1.47x: the figures of spawned commands
//   (jq over one file, the browser's first frame) moved 1.6-1.7x, beyond every reading then.
//
// Why parts: the whole command is one mix, timed by the wall clock: about a third of its CPU time
// is the kernel's, mostly page faults (about 8,300 against 2,200 for `node -e 0`; a fresh page
// costs 11-14 µs on this VM, 20-40 under load), and another process on the machine lengthens it. A
// mix moves with the machine in its own proportions: on 2026-12-06 the whole command took
// 0.42-0.69x its earlier time while the 70 figures of time of unchanged code moved 0.36-1.78x (half
// of them 0.71-0.94x, median 0.79x). A figure of time is a mix of its own; the spread of the parts'
// changes says how far the machine's change is known (bench-compare.mjs).
//
// The work resembles flightrec's (JSON text parsed and written, strings, maps, sorting, bigints)
// and takes about 100-200 ms on a core of this kind of machine. It never changes: a change would
// make every earlier reference incomparable (the versions say which work a reference timed).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

/** Which fixed whole-command work a reference measured; references of different versions are never compared. */
export const REFERENCE_VERSION = 1;

/**
 * How the parts are measured; parts of different versions are never compared. A part added without
 * changing the others (spawn, spawnCpu) keeps the version: only references that both have it compare it.
 */
export const PARTS_VERSION = 1;

/** Timed runs of the whole command, each in a fresh process; the reference is their median. */
export const REFERENCE_RUNS = 5;

/** Processes timing the parts, each one run of every part. */
export const PARTS_RUNS = 3;

/** Warm runs of the work in a parts process (after its cold one); `warm` is their median. */
export const WARM_RUNS = 3;

/** Timed runs of `node -e 0` from outside (after an untimed one); `spawn` is their median. */
export const SPAWN_RUNS = 7;

/** The parts compared between runs, in the order they are printed; `fault` is kept but not compared. */
export const COMPARED_PARTS = ['start', 'startCpu', 'cold', 'warm', 'warmCpu', 'sqlite', 'spawn', 'spawnCpu'];

/** The fixed work: returns a checksum so that no part of it can be optimised away. */
export function referenceWork() {
  let seed = 42;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed;
  };
  const rows = [];
  for (let i = 0; i < 20_000; i++) {
    rows.push({
      uid: `c-${next().toString(16)}-${i}`,
      nodeId: next() % 6,
      clientId: `client-${next() % 500}`,
      bytes: String(BigInt(next()) * 4294967296n + BigInt(next())),
      state: next() % 3 === 0 ? 'CLOSED' : 'OPEN',
    });
  }
  const text = JSON.stringify({ connections: rows });
  const parsed = JSON.parse(text);
  const byClient = new Map();
  for (const r of parsed.connections) {
    if (r.state !== 'OPEN') continue;
    byClient.set(r.clientId, (byClient.get(r.clientId) ?? 0n) + BigInt(r.bytes));
  }
  const top = [...byClient].sort((a, b) => (a[1] < b[1] ? 1 : a[1] > b[1] ? -1 : 0)).slice(0, 10);
  const numbers = parsed.connections.map((r) => r.nodeId * 1_000_003 + r.uid.length).sort((a, b) => a - b);
  return text.length + top.length + numbers[numbers.length >> 1];
}

/** The fixed SQLite work: a table of 20,000 rows in memory, written in one transaction and read back. */
export function sqliteWork(Database) {
  const db = new Database(':memory:');
  try {
    db.exec(
      'CREATE TABLE t (id INTEGER PRIMARY KEY, node INTEGER NOT NULL, client TEXT NOT NULL, bytes INTEGER NOT NULL)',
    );
    db.exec('CREATE INDEX t_client ON t (client)');
    const insert = db.prepare('INSERT INTO t (id, node, client, bytes) VALUES (?, ?, ?, ?)');
    db.transaction(() => {
      for (let i = 0; i < 20_000; i++) insert.run(i, i % 6, `client-${(i * 7919) % 500}`, (i * 104729) % 1_000_003);
    })();
    const byClient = db.prepare('SELECT count(*) AS n, sum(bytes) AS b FROM t WHERE client = ?');
    let sum = 0;
    for (let c = 0; c < 500; c += 5) sum += byClient.get(`client-${c}`).n;
    const top = db.prepare('SELECT client, sum(bytes) AS b FROM t GROUP BY client ORDER BY b DESC LIMIT 10').all();
    return sum + top.length;
  } finally {
    db.close();
  }
}

/** Microseconds per fresh 4 KiB page first touched (16 MiB of new memory, one byte a page). */
function faultMicros() {
  const pages = 4096;
  const t0 = performance.now();
  const b = Buffer.allocUnsafeSlow(pages * 4096);
  for (let i = 0; i < b.length; i += 4096) b[i] = 1;
  return ((performance.now() - t0) * 1000) / pages;
}

const round1 = (x) => Math.round(x * 10) / 10;

/** Milliseconds of CPU (user and system) in a process.cpuUsage() answer. */
const cpuMs = (u) => (u.user + u.system) / 1000;

/** One run of every part, in this (fresh) process: { start, startCpu, cold, warm, warmCpu, sqlite, fault }. */
export function measurePartsHere() {
  const start = performance.now();
  // the process's CPU so far: its start without the time it waited for a core
  const startCpu = cpuMs(process.cpuUsage());
  let t = performance.now();
  let check = referenceWork();
  const cold = performance.now() - t;
  const warm = [];
  const warmCpu = [];
  for (let i = 0; i < WARM_RUNS; i++) {
    t = performance.now();
    const c = process.cpuUsage();
    check += referenceWork();
    warm.push(performance.now() - t);
    warmCpu.push(cpuMs(process.cpuUsage(c)));
  }
  const fault = faultMicros();
  t = performance.now();
  const Database = createRequire(import.meta.url)('better-sqlite3');
  check += sqliteWork(Database);
  const sqlite = performance.now() - t;
  if (!(check > 0)) throw new Error('the reference work gave no checksum');
  return {
    start: round1(start),
    startCpu: round1(startCpu),
    cold: round1(cold),
    warm: round1(median(warm)),
    warmCpu: round1(median(warmCpu)),
    sqlite: round1(sqlite),
    fault: round1(fault),
  };
}

/** The median of finite numbers (undefined for none). */
export function median(xs) {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (s.length === 0) return undefined;
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

const script = () => fileURLToPath(import.meta.url);

/** The parts over `runs` fresh processes: { version, <part>: { runs } }, or undefined when a run fails. */
export function measureParts(runs = PARTS_RUNS) {
  const parts = { version: PARTS_VERSION };
  for (let i = 0; i < runs; i++) {
    const r = spawnSync(process.execPath, [script(), '--parts'], {
      stdio: ['ignore', 'pipe', 'ignore'],
      encoding: 'utf8',
      timeout: 60_000,
    });
    if (r.status !== 0) return undefined;
    let one;
    try {
      one = JSON.parse(r.stdout);
    } catch {
      return undefined;
    }
    for (const [name, value] of Object.entries(one)) {
      if (!Number.isFinite(value)) return undefined;
      parts[name] = { runs: [...(parts[name]?.runs ?? []), value] };
    }
  }
  return parts;
}

/** CPU ms (user and system) of this process's waited-for children so far (Linux /proc, 10 ms ticks; NaN elsewhere). */
function childCpuMs() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[13]) + Number(f[14])) * 10; // cutime + cstime, 100 ticks per second
  } catch {
    return Number.NaN;
  }
}

/**
 * `node -e 0` as a whole fresh process, timed from outside `runs` times after an untimed run:
 * { spawn: { runs }, spawnCpu: { runs: [the children's CPU ms per run] } } (spawnCpu left out
 * without /proc), or undefined when a run fails.
 */
export function measureSpawn(runs = SPAWN_RUNS) {
  const once = () =>
    spawnSync(process.execPath, ['-e', '0'], { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', timeout: 60_000 });
  if (once().status !== 0) return undefined;
  const times = [];
  const cpu0 = childCpuMs();
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    if (once().status !== 0) return undefined;
    times.push(round1(performance.now() - t0));
  }
  const cpu = (childCpuMs() - cpu0) / runs;
  return { spawn: { runs: times }, ...(cpu > 0 && Number.isFinite(cpu) ? { spawnCpu: { runs: [round1(cpu)] } } : {}) };
}

/**
 * Times the work as a whole command REFERENCE_RUNS times (wall, ms, one decimal), then its parts
 * and `node -e 0` from outside: { version, ms (the median of the whole commands), runs, parts },
 * parts without those that fail (the addon missing, say), or undefined when a whole command fails.
 */
export function measureReference(runs = REFERENCE_RUNS, partsRuns = PARTS_RUNS, spawnRuns = SPAWN_RUNS) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [script(), '--work'], {
      stdio: ['ignore', 'ignore', 'ignore'],
      timeout: 60_000,
    });
    if (r.status !== 0) return undefined;
    times.push(round1(performance.now() - t0));
  }
  const inside = partsRuns > 0 ? measureParts(partsRuns) : undefined;
  const spawn = spawnRuns > 0 ? measureSpawn(spawnRuns) : undefined;
  const parts =
    inside === undefined && spawn === undefined ? undefined : { version: PARTS_VERSION, ...inside, ...spawn };
  return { version: REFERENCE_VERSION, ms: median(times), runs: times, ...(parts === undefined ? {} : { parts }) };
}

/**
 * One reference from the ones taken before and after a bench: the runs of both (before's first;
 * `before` says how many are before's, so that the two can be told apart again) and their median,
 * so that a machine that changed speed during a long bench counts both ways; or the one that exists.
 */
export function joinReferences(before, after) {
  if (before === undefined || after === undefined) return before ?? after;
  const runs = [...before.runs, ...after.runs];
  const joined = { version: REFERENCE_VERSION, ms: median(runs), runs, before: before.runs.length };
  const a = before.parts;
  const b = after.parts;
  if (a === undefined || b === undefined || a.version !== b.version) return joined;
  const parts = { version: a.version };
  for (const name of Object.keys(a)) {
    if (name === 'version' || !Array.isArray(a[name]?.runs) || !Array.isArray(b[name]?.runs)) continue;
    parts[name] = { runs: [...a[name].runs, ...b[name].runs], before: a[name].runs.length };
  }
  return { ...joined, parts };
}

/** "start 80 ms, cold 95 ms, …" : a reference's parts in a line (medians), or '' without them. */
export function describeParts(parts) {
  if (typeof parts !== 'object' || parts === null) return '';
  const unit = (name) => (name === 'fault' ? 'µs/page' : 'ms');
  return [...COMPARED_PARTS, 'fault']
    .filter((name) => Array.isArray(parts[name]?.runs))
    .map((name) => `${name} ${round1(median(parts[name].runs))} ${unit(name)}`)
    .join(', ');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv[2] === '--work') {
    if (!(referenceWork() > 0)) process.exitCode = 1;
  } else if (process.argv[2] === '--parts') {
    process.stdout.write(`${JSON.stringify(measurePartsHere())}\n`);
  } else {
    const ref = measureReference();
    if (ref === undefined) {
      process.stderr.write('bench-reference: the reference work failed\n');
      process.exitCode = 1;
    } else process.stdout.write(`${JSON.stringify(ref)}\n`);
  }
}
