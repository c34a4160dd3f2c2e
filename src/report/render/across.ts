/**
 * Renderings of query, timeline and summary answers over several clusters: every format carries
 * the cluster (a CLUSTER column first in tables, Markdown and CSV; a `cluster` field in JSON,
 * YAML, ndjson and annotations; a section per cluster in the text summary and HTML).
 */
import { formatHumanDuration } from '../../api/codec/duration.ts';
import type { JsonValue } from '../../api/codec/lossless-json.ts';
import { formatTimestamp, formatTimestampShort } from '../../api/codec/timestamp.ts';
import { sanitizeCell } from '../../api/safe-text.ts';
import type { AcrossClusters } from '../across.ts';
import type { TableView, ViewColumn, ViewRow } from '../columns/index.ts';
import type { QueryResult } from '../query.ts';
import type { Summary } from '../summary.ts';
import type { Timeline } from '../timeline/timeline.ts';
import { compareEvents, type TimelineEvent } from '../timeline/types.ts';
import { paint } from './color.ts';
import { csvCell, renderQueryCsv } from './csv.ts';
import { encodeRow, encodeSample, formatJson, queryToJson } from './json.ts';
import { mdTable } from './markdown.ts';
import { queryView } from './query-text.ts';
import { summaryToJson } from './summary-json.ts';
import { renderSummaryText } from './summary-text.ts';
import { severityCounts } from './timeline-common.ts';
import { escapeHtml, renderTimelineHtml } from './timeline-html.ts';
import { eventToJson, timelineToJson } from './timeline-json.ts';
import { rollupLine, timelineView } from './timeline-text.ts';
import { renderTable, type TableOptions } from './table.ts';
import { renderYaml } from './yaml.ts';

type Obj = { [key: string]: JsonValue };

const CLUSTER_COLUMN: ViewColumn = { id: 'cluster', header: 'CLUSTER', align: 'left' };

/** Table views of several clusters as one, with a CLUSTER column first. */
export function withClusterColumn(parts: readonly { cluster: string; view: TableView }[]): TableView {
  const first = parts[0]?.view.columns ?? [];
  const rows: ViewRow[] = [];
  for (const p of parts) {
    for (const r of p.view.rows) rows.push({ cells: [p.cluster, ...r.cells], tones: [undefined, ...r.tones] });
  }
  return { columns: [CLUSTER_COLUMN, ...first], rows };
}

// ---- query ----

/** The JSON document of a query over several clusters: `{ clusters: [{ cluster, ...query document }] }`. */
export function queryAcrossToJson(parts: AcrossClusters<QueryResult>): Obj {
  return { clusters: parts.map((p) => ({ cluster: p.cluster, ...queryToJson(p.result) })) };
}

/** ndjson of a query over several clusters: each row (or sample) with a `cluster` field first. */
export function queryAcrossToNdjson(parts: AcrossClusters<QueryResult>): string {
  let out = '';
  for (const { cluster, result } of parts) {
    const items =
      result.samples !== undefined
        ? result.samples.map((s) => encodeSample(result.resource, s))
        : result.rows.map((r) => encodeRow(result.resource, r));
    for (const i of items) out += `${formatJson({ cluster, ...i }, 0)}\n`;
  }
  return out;
}

/** CSV of a query over several clusters: a `cluster` column first, one header. */
export function queryAcrossToCsv(parts: AcrossClusters<QueryResult>): string {
  let out = '';
  parts.forEach(({ cluster, result }, i) => {
    // \r is escaped inside cells (csvCell), so CRLF only ends records
    const lines = renderQueryCsv(result).split('\r\n').slice(0, -1);
    const [head = '', ...rows] = lines;
    if (i === 0) out += `cluster,${head}\r\n`;
    for (const r of rows) out += `${csvCell(cluster)},${r}\r\n`;
  });
  return out;
}

/** The table view of a query over several clusters. */
export function queryAcrossView(parts: AcrossClusters<QueryResult>, wide: boolean): TableView {
  return withClusterColumn(parts.map((p) => ({ cluster: p.cluster, view: queryView(p.result, wide) })));
}

// ---- timeline ----

/** The events of several timelines in one order (start, severity, kind, entity, then cluster). */
export function mergedEvents(parts: AcrossClusters<Timeline>): { cluster: string; event: TimelineEvent }[] {
  const all = parts.flatMap((p) => p.result.events.map((event) => ({ cluster: p.cluster, event })));
  return all.sort(
    (a, b) => compareEvents(a.event, b.event) || (a.cluster < b.cluster ? -1 : a.cluster > b.cluster ? 1 : 0),
  );
}

function span(parts: AcrossClusters<Timeline>): { since: bigint; until: bigint } {
  let since = parts[0]?.result.since ?? 0n;
  let until = parts[0]?.result.until ?? 0n;
  for (const p of parts) {
    if (p.result.since < since) since = p.result.since;
    if (p.result.until > until) until = p.result.until;
  }
  return { since, until };
}

/** The one-line heading of timelines over several clusters. */
export function timelineAcrossHeading(parts: AcrossClusters<Timeline>): string {
  const events = parts.flatMap((p) => p.result.events);
  const c = severityCounts(events);
  const { since, until } = span(parts);
  const polls = parts.reduce((n, p) => n + p.result.polls.total, 0);
  const failed = parts.reduce((n, p) => n + p.result.polls.failed, 0);
  return (
    `Timeline of ${parts.length} clusters (${parts.map((p) => p.cluster).join(', ')}), ` +
    `${formatTimestampShort(since)} → ${formatTimestampShort(until)} (${formatHumanDuration(until - since)}): ` +
    `${events.length} events (${c.error} error, ${c.warn} warn, ${c.info} info); ${polls} polls, ${failed} failed`
  );
}

/** The events of several timelines as one table view, CLUSTER first. */
export function timelineAcrossView(parts: AcrossClusters<Timeline>, wide: boolean): TableView {
  const byCluster = new Map(parts.map((p) => [p.cluster, p.result]));
  const merged = mergedEvents(parts);
  const rows: ViewRow[] = [];
  for (const m of merged) {
    const t = byCluster.get(m.cluster)!;
    const one = timelineView({ ...t, events: [m.event] }, wide).rows[0]!;
    rows.push({ cells: [m.cluster, ...one.cells], tones: [undefined, ...one.tones] });
  }
  const columns = timelineView({ ...(parts[0]?.result ?? emptyTimeline()), events: [] }, wide).columns;
  return { columns: [CLUSTER_COLUMN, ...columns], rows };
}

function emptyTimeline(): Timeline {
  return { cluster: undefined, since: 0n, until: 0n, events: [], series: [], polls: { total: 0, failed: 0 } };
}

/** `-o table` / `-o wide` over several clusters (no sparklines: `--cluster NAME` draws them for one). */
export function renderTimelineAcrossText(
  parts: AcrossClusters<Timeline>,
  opts: TableOptions & { wide: boolean },
): string {
  let out = `${paint(sanitizeCell(timelineAcrossHeading(parts)), 'bold', opts.color)}\n\n`;
  for (const p of parts) {
    if (p.result.rollups !== undefined) out += `${sanitizeCell(p.cluster)}: ${rollupLine(p.result.rollups)}\n\n`;
  }
  const view = timelineAcrossView(parts, opts.wide);
  out += view.rows.length === 0 ? 'No events.\n' : renderTable(view, opts);
  return out;
}

/** The JSON document of timelines over several clusters: `{ since, until, clusters: [timeline documents] }`. */
export function timelineAcrossToJson(parts: AcrossClusters<Timeline>): Obj {
  const { since, until } = span(parts);
  return {
    since: parts.length === 0 ? null : formatTimestamp(since),
    until: parts.length === 0 ? null : formatTimestamp(until),
    clusters: parts.map((p) => ({ ...timelineToJson(p.result), cluster: p.cluster })),
  };
}

/** ndjson over several clusters: one event per line, `cluster` first, in merged order. */
export function renderTimelineAcrossNdjson(parts: AcrossClusters<Timeline>): string {
  return mergedEvents(parts)
    .map((m) => `${formatJson({ cluster: m.cluster, ...eventToJson(m.event) }, 0)}\n`)
    .join('');
}

/** Grafana annotations over several clusters: the cluster as a `cluster:NAME` tag and in the text. */
export function renderTimelineAcrossAnnotations(parts: AcrossClusters<Timeline>): string {
  const until = new Map(parts.map((p) => [p.cluster, p.result.until]));
  const items: Obj[] = mergedEvents(parts).map(({ cluster, event: e }) => {
    const tags: JsonValue[] = ['flightrec', `cluster:${cluster}`, e.severity, e.kind, e.entity.split('/')[0] ?? ''];
    if (e.end === null) tags.push('ongoing');
    const a: Obj = {
      time: Number(e.start / 1_000_000n),
      tags,
      text: `[${e.severity}] ${cluster} ${e.kind} ${e.entity}: ${e.description}`,
    };
    if (e.type === 'interval') {
      a.timeEnd = Number((e.end ?? until.get(cluster) ?? e.start) / 1_000_000n);
      a.isRegion = true;
    }
    return a;
  });
  return `${formatJson(items)}\n`;
}

/** Markdown over several clusters: the merged event table with a Cluster column. */
export function renderTimelineAcrossMarkdown(parts: AcrossClusters<Timeline>): string {
  const view = timelineAcrossView(parts, false);
  const head = `## Incident timeline: ${parts.length} clusters\n\n- ${sanitizeCell(timelineAcrossHeading(parts)).replace(/[\\`*_[\]<>|~&]/g, (c) => `\\${c}`)}\n\n`;
  return view.rows.length === 0 ? `${head}_No events._\n` : `${head}${mdTable(view)}\n`;
}

/** HTML over several clusters: one page, a section per cluster (each the single-cluster page's body). */
export function renderTimelineAcrossHtml(parts: AcrossClusters<Timeline>): string {
  const pages = parts.map((p) => renderTimelineHtml(p.result));
  const first = pages[0] ?? renderTimelineHtml(emptyTimeline());
  const bodyAt = first.indexOf('<body>') + '<body>'.length;
  const title = `flightrec timeline — ${parts.length} clusters`;
  const head = first.slice(0, bodyAt).replace(/<title>[^<]*<\/title>/, `<title>${escapeHtml(title)}</title>`);
  const bodies = pages.map((page) => {
    const from = page.indexOf('<body>') + '<body>'.length;
    const to = page.lastIndexOf('</body>');
    return `<section class="cluster">${page.slice(from, to)}</section>`;
  });
  return `${head}\n${bodies.join('\n')}\n</body></html>\n`;
}

// ---- summary ----

/** The text summary of several clusters: one block per cluster (each names its cluster), a blank line apart. */
export function renderSummaryAcrossText(parts: AcrossClusters<Summary>, opts: { color: boolean }): string {
  return parts.map((p) => renderSummaryText({ ...p.result, cluster: p.cluster }, opts)).join('\n');
}

/** The JSON document of summaries of several clusters: `{ clusters: [summary documents] }`. */
export function summaryAcrossToJson(parts: AcrossClusters<Summary>): Obj {
  return { clusters: parts.map((p) => ({ ...summaryToJson(p.result), cluster: p.cluster })) };
}

/** Renders a query over several clusters in any query format. */
export function renderQueryAcross(
  parts: AcrossClusters<QueryResult>,
  format: 'table' | 'wide' | 'json' | 'ndjson' | 'csv' | 'yaml' | 'md',
  opts: TableOptions,
): string {
  switch (format) {
    case 'table':
    case 'wide':
      return renderTable(queryAcrossView(parts, format === 'wide'), opts);
    case 'json':
      return `${formatJson(queryAcrossToJson(parts))}\n`;
    case 'ndjson':
      return queryAcrossToNdjson(parts);
    case 'csv':
      return queryAcrossToCsv(parts);
    case 'yaml':
      return renderYaml(queryAcrossToJson(parts));
    case 'md':
      return `${mdTable(queryAcrossView(parts, false))}\n`;
  }
}
