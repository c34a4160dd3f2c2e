/**
 * Sparklines: a series of values drawn with the eight block characters, gaps as spaces; and
 * resampling of (time, value) points into equal buckets so series of any length fit a width.
 */

const BLOCKS = '▁▂▃▄▅▆▇█';

/** How a bucket combines the points falling into it. */
export type Combine = 'max' | 'mean' | 'last' | 'sum';

/**
 * Draws values as a sparkline, one character each; NaN (no data) is a space. The scale runs
 * from `min` (default the smallest value, or 0 when all are positive) to `max` (the largest).
 */
export function sparkline(values: readonly number[], opts: { min?: number; max?: number } = {}): string {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (Number.isNaN(v)) continue;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  if (lo === Infinity) return ' '.repeat(values.length);
  const min = opts.min ?? (lo >= 0 ? 0 : lo);
  const max = opts.max ?? hi;
  const span = max - min;
  let out = '';
  for (const v of values) {
    if (Number.isNaN(v)) {
      out += ' ';
      continue;
    }
    const level = span <= 0 ? (v > 0 ? BLOCKS.length - 1 : 0) : Math.round(((v - min) / span) * (BLOCKS.length - 1));
    out += BLOCKS[Math.max(0, Math.min(BLOCKS.length - 1, level))];
  }
  return out;
}

/** The scale `sparkline` draws `values` with by default: 0 (or the smallest value when one is negative) to the largest; undefined when all are NaN. */
export function sparklineScale(values: readonly number[]): { min: number; max: number } | undefined {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (Number.isNaN(v)) continue;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return lo === Infinity ? undefined : { min: lo >= 0 ? 0 : lo, max: hi };
}

/**
 * Resamples points into `buckets` equal slices of [since, until]; an empty slice is NaN.
 * Times must be sorted; points outside the window are ignored.
 */
export function resample(
  times: readonly bigint[],
  values: readonly number[],
  since: bigint,
  until: bigint,
  buckets: number,
  combine: Combine = 'max',
): number[] {
  const out = new Array<number>(buckets).fill(Number.NaN);
  const counts = new Array<number>(buckets).fill(0);
  const span = until - since;
  if (buckets <= 0 || span <= 0n) return out;
  for (let i = 0; i < times.length; i++) {
    const t = times[i] as bigint;
    if (t < since || t > until) continue;
    const b = Math.min(buckets - 1, Number(((t - since) * BigInt(buckets)) / span));
    const v = values[i] as number;
    const cur = out[b] as number;
    counts[b] = (counts[b] as number) + 1;
    if (Number.isNaN(cur)) out[b] = v;
    else if (combine === 'max') out[b] = Math.max(cur, v);
    else if (combine === 'sum' || combine === 'mean') out[b] = cur + v;
    else out[b] = v;
  }
  if (combine === 'mean')
    for (let b = 0; b < buckets; b++)
      if ((counts[b] as number) > 0) out[b] = (out[b] as number) / (counts[b] as number);
  return out;
}
