/**
 * Whole commands timed as a user runs them, each paired with its baseline in the same run: the
 * two alternate (A B, B A, A B, …) so that a change of load on a shared machine falls on both
 * sides, and each side gets its median, minimum and maximum of wall and CPU time.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

/** One command: what to run, where; its standard output goes to a pipe this process reads. */
export interface Command {
  readonly cmd: string;
  readonly args: readonly string[];
  readonly cwd: string;
}

/** The time of one run, ms: wall clock and CPU (user + system) of the child. */
export interface RunTime {
  readonly wall: number;
  readonly cpu: number;
}

/** The summary of a side's runs, ms. */
export interface Timings {
  readonly wall: { readonly median: number; readonly min: number; readonly max: number };
  readonly cpu: { readonly median: number; readonly min: number; readonly max: number };
  readonly runs: number;
}

/** CPU ms of this process's waited-for children (Linux /proc, 10 ms ticks; NaN elsewhere). */
export function childCpuMs(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[13]) + Number(f[14])) * 10; // cutime + cstime, 100 ticks per second
  } catch {
    return Number.NaN;
  }
}

/** Runs a command to completion and returns its standard output and time; throws on a non-zero status. */
export function runOnce(c: Command): { out: string; time: RunTime } {
  const cpu0 = childCpuMs();
  const t0 = performance.now();
  const r = spawnSync(c.cmd, [...c.args], {
    cwd: c.cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 1024 * 1024 * 1024,
  });
  const wall = performance.now() - t0;
  const cpu = childCpuMs() - cpu0;
  if (r.error) throw r.error;
  if (r.status !== 0) {
    throw new Error(`${c.cmd} ${c.args.slice(0, 6).join(' ')} … exited with ${r.status ?? r.signal}: ${r.stderr}`);
  }
  return { out: r.stdout, time: { wall, cpu } };
}

/** Median of samples (the mean of the two middle ones for an even count). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Median, minimum and maximum of the runs' wall and CPU times. */
export function summarise(runs: readonly RunTime[]): Timings {
  const of = (xs: number[]): { median: number; min: number; max: number } => ({
    median: median(xs),
    min: Math.min(...xs),
    max: Math.max(...xs),
  });
  return { wall: of(runs.map((r) => r.wall)), cpu: of(runs.map((r) => r.cpu)), runs: runs.length };
}

/**
 * Runs `a` and `b` `n` times each, alternating which goes first (A B, B A, …), after one untimed
 * run of each (it fills the page cache and the OS's caches for both alike) unless `warm` says
 * both ran just before.
 */
export function alternate(a: Command, b: Command, n: number, warm = false): { a: Timings; b: Timings } {
  if (!warm) {
    runOnce(a);
    runOnce(b);
  }
  const ta: RunTime[] = [];
  const tb: RunTime[] = [];
  for (let i = 0; i < n; i++) {
    if (i % 2 === 0) {
      ta.push(runOnce(a).time);
      tb.push(runOnce(b).time);
    } else {
      tb.push(runOnce(b).time);
      ta.push(runOnce(a).time);
    }
  }
  return { a: summarise(ta), b: summarise(tb) };
}

/** Runs one command `n` times after an untimed run. */
export function repeat(a: Command, n: number): Timings {
  runOnce(a);
  return summarise(Array.from({ length: n }, () => runOnce(a).time));
}
