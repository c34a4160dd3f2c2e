import { performance } from 'node:perf_hooks';

/** One measured number reported by a benchmark, optionally with the goal it must meet. */
export interface Figure {
  name: string;
  value: number;
  unit: string;
  goal?: { op: '<=' | '>='; value: number };
  note?: string;
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

/** Rounds a figure for display (3 significant decimals at most). */
export function round(value: number, decimals = 3): number {
  const f = 10 ** decimals;
  return Math.round(value * f) / f;
}
