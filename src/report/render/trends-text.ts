/**
 * Trends as text (a table with a sparkline per row, details in the wide form) and Markdown.
 * Values in human units through format-units; every key sanitised.
 */
import { formatHumanDuration } from '../../api/codec/duration.ts';
import { formatTimestampShort } from '../../api/codec/timestamp.ts';
import { sanitizeCell } from '../../api/safe-text.ts';
import type { TableView, Tone, ViewRow } from '../columns/index.ts';
import { formatByteRate, formatBytes, formatCountRate } from '../format-units.ts';
import { sparkline, sparklineScale } from '../sparkline.ts';
import type { TrendClass, TrendRow, TrendsResult } from '../trends/types.ts';
import { paint } from './color.ts';
import { mdCode, mdText } from './markdown.ts';
import { renderTable } from './table.ts';

/** A value in the metric's unit, for people. */
export function formatTrendValue(unit: string, v: number): string {
  switch (unit) {
    case 'bytes/s':
      return formatByteRate(v);
    case 'requests/s':
    case 'batches/s':
      return formatCountRate(v);
    case 'bytes':
      return formatBytes(Math.round(v));
    default:
      return String(Math.round(v));
  }
}

const TREND_TONE: Readonly<Record<TrendClass, Tone | undefined>> = {
  ok: 'ok',
  growing: 'warn',
  stalled: 'warn',
  stopped: 'error',
};
const TREND_LETTER: Readonly<Record<TrendClass, string>> = { ok: '·', growing: 'g', stalled: 's', stopped: 'X' };

function heading(r: TrendsResult): string {
  const overall =
    r.metric === 'batch-size'
      ? `overall ${formatTrendValue(r.unit, r.overall)}`
      : `total ${formatTrendValue(r.unit, r.overall)}`;
  return `${r.metric} by ${r.by}, ${formatTimestampShort(r.since)} → ${formatTimestampShort(r.until)} (${formatHumanDuration(r.until - r.since)}): ${overall}; ${r.rows.length} of ${r.total} rows`;
}

function detailText(row: TrendRow): string {
  return Object.entries(row.detail)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
}

/** How sparklines are scaled: each row on its own range, or every row on one range. */
export type SparkScale = 'row' | 'shared';

/** The range every row is drawn with under `--scale shared`; undefined when no row has data. */
export function sharedScale(r: TrendsResult): { min: number; max: number } | undefined {
  return sparklineScale(r.rows.flatMap((row) => row.series));
}

/** `min..max` in the metric's unit, for the SCALE column and the shared-scale heading. */
export function scaleText(unit: string, s: { min: number; max: number } | undefined): string {
  if (s === undefined) return '-';
  const u = unit === 'records' || unit === 'connections' ? ` ${unit}` : '';
  return `${formatTrendValue(unit, s.min)}..${formatTrendValue(unit, s.max)}${u}`;
}

/**
 * The headline column's name, saying what its figure is: the count or lag at the window's end
 * (not "now": the window may end in the past), a rate as the increase over the window divided by
 * its length, a batch size as bytes over batches of the window.
 */
export function valueHeader(r: Pick<TrendsResult, 'metric' | 'unit'>): string {
  if (r.metric === 'connections') return 'AT END';
  if (r.unit === 'records') return 'LAG AT END';
  return r.metric === 'batch-size' ? 'MEAN SIZE' : 'MEAN RATE';
}

/** The rows as a table view; every sparkline says its scale (min..max in the unit). */
export function trendsView(r: TrendsResult, wide = false, scale: SparkScale = 'row'): TableView {
  const shared = scale === 'shared' ? sharedScale(r) : undefined;
  const lag = r.rows.some((x) => x.trend !== undefined);
  const columns = [
    { id: 'key', header: r.by.toUpperCase(), align: 'left' as const },
    ...(r.by === 'connection' ? [{ id: 'label', header: 'CLIENT', align: 'left' as const }] : []),
    {
      id: 'value',
      header: valueHeader(r),
      align: 'right' as const,
    },
    ...(lag ? [{ id: 'trend', header: 'TREND', align: 'left' as const }] : []),
    { id: 'series', header: 'SERIES', align: 'left' as const },
    { id: 'scale', header: 'SCALE', align: 'left' as const },
    ...(lag ? [{ id: 'classes', header: 'PER SLICE', align: 'left' as const }] : []),
    ...(wide ? [{ id: 'detail', header: 'DETAIL', align: 'left' as const }] : []),
  ];
  const rows: ViewRow[] = r.rows.map((row) => {
    const cells: string[] = [row.key];
    const tones: (Tone | undefined)[] = [undefined];
    if (r.by === 'connection') {
      cells.push(row.label);
      tones.push(undefined);
    }
    cells.push(formatTrendValue(r.unit, row.value));
    tones.push(undefined);
    if (lag) {
      const t = row.trend ?? 'ok';
      const extrapolated = row.detail.extrapolated === true ? ' (extrapolated)' : '';
      const timeLag =
        typeof row.detail.timeLagSeconds === 'number'
          ? ` ~${formatHumanDuration(BigInt(Math.round(row.detail.timeLagSeconds * 1e9)))} behind${extrapolated}`
          : '';
      cells.push(`${t}${timeLag}`);
      tones.push(TREND_TONE[t]);
    }
    const rowScale = shared ?? sparklineScale(row.series);
    cells.push(sparkline(row.series, rowScale ?? {}));
    cells.push(scaleText(r.unit, rowScale));
    tones.push(undefined, undefined);
    if (lag) {
      cells.push((row.trendSeries ?? []).map((c) => (c === undefined ? ' ' : TREND_LETTER[c])).join(''));
      tones.push(undefined);
    }
    if (wide) {
      cells.push(detailText(row));
      tones.push(undefined);
    }
    return { cells, tones };
  });
  return { columns, rows };
}

/** `-o table` and `-o wide`. */
export function renderTrendsText(
  r: TrendsResult,
  opts: { color: boolean; width?: number; wide?: boolean; scale?: SparkScale },
): string {
  let out = `${paint(sanitizeCell(heading(r)), 'bold', opts.color)}\n\n`;
  out +=
    r.rows.length === 0
      ? 'No data.\n'
      : renderTable(trendsView(r, opts.wide === true, opts.scale), { color: opts.color, width: opts.width });
  if (r.rows.length > 0)
    out +=
      opts.scale === 'shared'
        ? `\nseries: one scale for every row, ${scaleText(r.unit, sharedScale(r))} (max per slice)\n`
        : `\nseries: each row on its own scale (SCALE, max per slice); --scale shared to compare rows\n`;
  if (r.rows.some((x) => x.trendSeries !== undefined))
    out += `\nper slice: · ok  g growing  s stalled  X stopped (no progress while the source moves)\n`;
  for (const n of r.notes) out += `note: ${sanitizeCell(n)}\n`;
  return out;
}

/** `-o md`. */
export function renderTrendsMarkdown(r: TrendsResult, scale: SparkScale = 'row'): string {
  const lines = [`**${mdText(heading(r))}**`, ''];
  if (r.rows.length === 0) return `${lines.join('\n')}_No data._\n`;
  const shared = scale === 'shared' ? sharedScale(r) : undefined;
  lines.push(`| ${mdText(r.by)} | Value | Trend | Series | Scale |`, '|---|---:|---|---|---|');
  for (const row of r.rows) {
    const s = shared ?? sparklineScale(row.series);
    lines.push(
      `| ${mdCode(row.key)} | ${mdText(formatTrendValue(r.unit, row.value))} | ${row.trend ?? ''} | ${sparkline(row.series, s ?? {}).replace(/ /g, '\u2007')} | ${mdText(scaleText(r.unit, s))} |`,
    );
  }
  for (const n of r.notes) lines.push('', `_${mdText(n)}_`);
  return `${lines.join('\n')}\n`;
}
