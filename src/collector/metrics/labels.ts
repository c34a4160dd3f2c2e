/**
 * Label values and sample values for the collector's metrics: names that come from the cluster
 * are sanitized and cut short, series per metric are bounded (the largest N values, the rest
 * summed into `other`), and int64/uint64 counts become float gauge values by an explicit rule.
 */

/** Largest number of label values kept per metric and cluster; the rest is summed into `other`. */
export const DEFAULT_TOP_N = 20;
/** The label value that stands for everything past the top N. */
export const OTHER = 'other';
/** Longest label value kept, in characters. */
export const MAX_LABEL_LENGTH = 64;

/**
 * A label value safe to show anywhere: letters, digits and `._:/-` kept, anything else (control
 * bytes, spaces, quotes, non-ASCII) replaced by `_`, cut to MAX_LABEL_LENGTH; empty becomes `none`.
 * A value from the cluster that reads `other` is renamed so it cannot merge into the bucket.
 */
export function labelValue(raw: string): string {
  const clean = raw.replace(/[^A-Za-z0-9._:/-]/g, '_').slice(0, MAX_LABEL_LENGTH);
  if (clean === '') return 'none';
  return clean === OTHER ? `${OTHER}_` : clean;
}

/**
 * A gauge value from an int64/uint64 count. Prometheus samples are float64: values up to 2^53
 * are exact, larger ones are rounded to the nearest representable double (relative error below
 * 1.2e-16), which a chart cannot show. The bigint itself is never stored this way.
 */
export function gaugeValue(v: bigint): number {
  return Number(v);
}

/** One series of a bounded metric: its label values and value. */
export interface BoundedSeries {
  readonly labels: readonly string[];
  readonly value: number;
}

/**
 * Keeps the `n` largest series (by value, then by labels for a stable order) and sums the rest into
 * one series whose labels are all `other`. Labels must already be sanitized; equal label sets are added.
 */
export function topN(series: Iterable<BoundedSeries>, n: number = DEFAULT_TOP_N): BoundedSeries[] {
  const merged = new Map<string, BoundedSeries>();
  for (const s of series) {
    const key = s.labels.join('\u0000');
    const prev = merged.get(key);
    merged.set(key, { labels: s.labels, value: (prev?.value ?? 0) + s.value });
  }
  const sorted = [...merged.entries()].sort(
    (a, b) => b[1].value - a[1].value || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0),
  );
  const kept = sorted.slice(0, n).map(([, s]) => s);
  const rest = sorted.slice(n);
  if (rest.length === 0) return kept;
  const width = rest[0]![1].labels.length;
  kept.push({
    labels: Array.from({ length: width }, () => OTHER),
    value: rest.reduce((sum, [, s]) => sum + s.value, 0),
  });
  return kept;
}
