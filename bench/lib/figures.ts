import { performance } from 'node:perf_hooks';

/** One measured number reported by a benchmark, optionally with the goal it must meet. */
export interface Figure {
  name: string;
  value: number;
  unit: string;
  goal?: { op: '<=' | '>='; value: number };
  /** which way is better, for figures without a goal whose unit does not say (ratios, counts) */
  better?: 'lower' | 'higher';
  /** how far the bench's own runs of it spread, relative (spreadOf): a change within it is not judged worse */
  spread?: number;
  /** why its change between runs cannot be judged (shown with the change, never warned about) */
  unjudged?: string;
  note?: string;
}

/** (max - min) / median of a figure's runs, to 3 decimals: its `spread` (0 for fewer than two runs). */
export function spreadOf(runs: readonly number[]): number {
  if (runs.length < 2) return 0;
  const m = median(runs);
  return m > 0 ? round((Math.max(...runs) - Math.min(...runs)) / m) : 0;
}

/** Prints one `FIGURE <json>` line on stdout; scripts/bench.mjs collects these lines. */
export function reportFigure(f: Figure): void {
  process.stdout.write(`FIGURE ${JSON.stringify(f)}\n`);
}

/** Timing summary of repeated runs, in milliseconds. */
export interface Timing {
  medianMs: number;
  p90Ms: number;
  minMs: number;
}

/** Quantile of sorted samples by the nearest-rank method (q in 0..1). */
function quantile(sorted: number[], q: number): number {
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] as number;
}

/** Runs `fn` `warmup` times untimed, then `runs` times timed with performance.now(). */
export function timeIt(fn: () => void, opts: { warmup: number; runs: number }): Timing {
  if (opts.runs < 1) throw new RangeError('timeIt needs at least one timed run');
  for (let i = 0; i < opts.warmup; i++) fn();
  const samples: number[] = [];
  for (let i = 0; i < opts.runs; i++) {
    const start = performance.now();
    fn();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  const mid = samples.length >> 1;
  const medianMs =
    samples.length % 2 === 1 ? (samples[mid] as number) : ((samples[mid - 1] as number) + (samples[mid] as number)) / 2;
  return { medianMs, p90Ms: quantile(samples, 0.9), minMs: samples[0] as number };
}

/** Median of samples (the mean of the two middle ones for an even count). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Wall-clock timing (timeIt) plus the median CPU time of the timed runs, in milliseconds. */
export interface WallCpuTiming {
  wall: number;
  cpu: number;
  p90: number;
  min: number;
}

/**
 * timeIt, and the process's CPU time of each timed run (it includes V8's helper threads, so it
 * can exceed the wall time; a wall time well above it means the run waited for a core).
 */
export function timeWallAndCpu(fn: () => unknown, opts: { warmup: number; runs: number }): WallCpuTiming {
  const cpu: number[] = [];
  const t = timeIt(() => {
    const c = process.cpuUsage();
    fn();
    const d = process.cpuUsage(c);
    cpu.push((d.user + d.system) / 1000);
  }, opts);
  return { wall: t.medianMs, cpu: median(cpu.slice(opts.warmup)), p90: t.p90Ms, min: t.minMs };
}

/** Rounds a figure for display (3 significant decimals at most). */
export function round(value: number, decimals = 3): number {
  const f = 10 ** decimals;
  return Math.round(value * f) / f;
}
