/** Trends as JSON (series values null where nothing was observed) and CSV (one line per row and bucket). */
import type { JsonValue } from '../../api/codec/lossless-json.ts';
import { formatTimestamp } from '../../api/codec/timestamp.ts';
import type { TrendsResult } from '../trends/types.ts';
import { csvLine } from './csv.ts';
import { formatJson } from './json.ts';

/** The result as a JSON document (series values null where nothing was observed). */
export function trendsToJson(r: TrendsResult): { [key: string]: JsonValue } {
  return {
    metric: r.metric,
    by: r.by,
    unit: r.unit,
    cluster: r.cluster ?? null,
    since: formatTimestamp(r.since),
    until: formatTimestamp(r.until),
    buckets: r.buckets,
    overall: r.overall,
    total: r.total,
    notes: [...r.notes],
    ...(r.rollups === undefined
      ? {}
      : { rollups: { resolution: `${r.rollups.resolution}s`, before: formatTimestamp(r.rollups.before) } }),
    rows: r.rows.map((row) => {
      const o: { [key: string]: JsonValue } = {
        key: row.key,
        value: row.value,
        series: row.series.map((v) => (Number.isNaN(v) ? null : v)),
        detail: { ...row.detail },
      };
      if (row.label !== '') o.label = row.label;
      if (row.trend !== undefined) o.trend = row.trend;
      if (row.trendSeries !== undefined) o.trendSeries = row.trendSeries.map((c) => c ?? null);
      return o;
    }),
  };
}

/** `-o json`. */
export function renderTrendsJson(r: TrendsResult): string {
  return `${formatJson(trendsToJson(r))}\n`;
}

/** `-o csv`: one line per row and bucket. */
export function renderTrendsCsv(r: TrendsResult): string {
  const step = (r.until - r.since) / BigInt(Math.max(1, r.buckets));
  let out = csvLine(['key', 'bucket_start', 'value', 'trend']);
  for (const row of r.rows) {
    row.series.forEach((v, i) => {
      out += csvLine([
        row.key,
        formatTimestamp(r.since + step * BigInt(i)),
        Number.isNaN(v) ? '' : String(v),
        row.trendSeries?.[i] ?? '',
      ]);
    });
  }
  return out;
}
