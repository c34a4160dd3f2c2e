// The machine's own speed at the time of a bench: a fixed piece of work, the same in every run and
// in every version of flightrec, timed as a whole command (a fresh `node` process: its start and
// the work), so that a figure compared with an earlier run can be told apart from the machine
// having become slower or faster in between (a shared machine's speed changes from day to day).
//
//   node scripts/bench-reference.mjs          prints the reference: {"ms":…,"runs":[…]}
//   node scripts/bench-reference.mjs --work   does the work once (what each timed process runs)
//
// The work resembles flightrec's (JSON text parsed and written, strings, maps, sorting, bigints)
// and takes about 100-200 ms on a core of this kind of machine. It never changes: a change would
// make every earlier reference incomparable (REFERENCE_VERSION says which work a reference timed).
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

/** Which fixed work a reference measured; references of different versions are never compared. */
export const REFERENCE_VERSION = 1;

/** Timed runs of the work, each in a fresh process; the reference is their median. */
export const REFERENCE_RUNS = 5;

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

/** The median of finite numbers (undefined for none). */
export function median(xs) {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (s.length === 0) return undefined;
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/**
 * Times the work as a whole command REFERENCE_RUNS times (wall, ms, one decimal) and returns
 * { version, ms (the median), runs }, or undefined when a run fails.
 */
export function measureReference(runs = REFERENCE_RUNS) {
  const script = fileURLToPath(import.meta.url);
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [script, '--work'], {
      stdio: ['ignore', 'ignore', 'ignore'],
      timeout: 60_000,
    });
    if (r.status !== 0) return undefined;
    times.push(Math.round((performance.now() - t0) * 10) / 10);
  }
  return { version: REFERENCE_VERSION, ms: median(times), runs: times };
}

/**
 * One reference from the runs before and after a bench (the median of all of them, so that a
 * machine that changed speed during a long bench counts both ways), or the one that exists.
 */
export function joinReferences(before, after) {
  if (before === undefined || after === undefined) return before ?? after;
  const runs = [...before.runs, ...after.runs];
  return { version: REFERENCE_VERSION, ms: median(runs), runs };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv[2] === '--work') {
    if (!(referenceWork() > 0)) process.exitCode = 1;
  } else {
    const ref = measureReference();
    if (ref === undefined) {
      process.stderr.write('bench-reference: the reference work failed\n');
      process.exitCode = 1;
    } else process.stdout.write(`${JSON.stringify(ref)}\n`);
  }
}
