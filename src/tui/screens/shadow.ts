/** Shadow links, then a link's tasks and topics, then a topic's partitions with lag sparklines. */
import type { ShadowPartitionRow, ShadowTaskRow, ShadowTopicRow } from '../../api/schema/resources.ts';
import type { ShadowLink } from '../../api/schema/shadow-link.ts';
import { sanitizeCell } from '../../api/safe-text.ts';
import type { ColumnContext, ColumnModel } from '../../report/columns/types.ts';
import { encodeRow } from '../../report/render/json.ts';
import { toneToken } from '../data/grid.ts';
import type { PanelLine, Screen, Segment } from '../data/screen.ts';
import { seg } from '../data/screen.ts';
import { lagMarks, type BrowseSource } from '../data/source.ts';
import type { StackEntry } from '../state/app.ts';
import { modelOf } from './rows.ts';
import { resourceTable } from './resource-table.ts';
import { toneGlyph } from './tone-glyph.ts';

/** One row drawn as `label value` pairs with the model's tones and a glyph for the state column. */
function rowLine<R>(model: ColumnModel<R>, row: R, ids: readonly string[], ctx: ColumnContext): Segment[] {
  const out: Segment[] = [];
  for (const id of ids) {
    const c = model.columns.find((x) => x.id === id);
    if (c === undefined) continue;
    const tone = c.tone?.(row, ctx);
    const glyph = tone !== undefined ? `${toneGlyph(tone)} ` : '';
    out.push(
      seg(`${c.header.toLowerCase()} `, 'label'),
      seg(`${glyph}${c.value(row, ctx)}   `, toneToken(tone) ?? 'value'),
    );
  }
  return out;
}

/** Width of one task cell; two fit an 80-column terminal. */
const TASK_CELL = 38;

/**
 * Every task of a link, packed two to a line (`✓ source_topic_sync  b0/s1  ACTIVE`); a task
 * with a reason (faulted, not running) gets a line of its own, with the reason.
 */
export function taskLines(tasks: readonly ShadowTaskRow[]): PanelLine[] {
  const model = modelOf('shadow-tasks');
  const stateCol = model.columns.find((c) => c.id === 'state');
  const cellOf = (t: ShadowTaskRow): Segment[] => {
    const tone = stateCol?.tone?.(t);
    const state = stateCol?.value(t, { now: 0n }) ?? '';
    return [
      seg(`  ${toneGlyph(tone)} `, toneToken(tone) ?? 'value'),
      seg(`${sanitizeCell(t.name)}  b${t.brokerId}/s${t.shard}  `, 'value'),
      seg(state, toneToken(tone) ?? 'value'),
    ];
  };
  const width = (cells: readonly Segment[]): number => cells.reduce((n, c) => n + Array.from(c.text).length, 0);
  const lines: PanelLine[] = [];
  let pending: Segment[] | undefined;
  for (const t of tasks) {
    const cells = cellOf(t);
    if (t.reason !== '') {
      lines.push([...cells, seg(`: ${sanitizeCell(t.reason)}`, 'muted')]);
      continue;
    }
    if (pending === undefined) pending = cells;
    else {
      lines.push([...pending, seg(' '.repeat(Math.max(1, TASK_CELL - width(pending)))), ...cells]);
      pending = undefined;
    }
  }
  if (pending !== undefined) lines.push(pending);
  return lines;
}

/** The shadow links at `at`. */
export function shadowLinksScreen(source: BrowseSource, entry: StackEntry, at: bigint): Screen {
  const state = source.stateAt<ShadowLink>('shadow-links', at);
  const model = modelOf('shadow-links');
  const now = state.poll?.startTime ?? at;
  const stateCol = model.columns.find((c) => c.id === 'state');
  const t = resourceTable('shadow-links', state.rows, entry, {
    now,
    glyph: (l) => toneGlyph(stateCol?.tone?.(l)),
    target: (l) => ({ view: { kind: 'shadow-link', link: l.name } }),
  });
  return { panel: [], grid: t.grid, badge: t.badge, empty: 'no shadow links at this instant' };
}

/** One link at `at`: its status, tasks (above) and shadow topics (the table). */
export function shadowLinkScreen(source: BrowseSource, entry: StackEntry, link: string, at: bigint): Screen {
  const links = source.stateAt<ShadowLink>('shadow-links', at);
  const now = links.poll?.startTime ?? at;
  const row = links.rows.find((l) => l.name === link);
  const panel: PanelLine[] = [];
  if (row === undefined) panel.push([seg(`link ${sanitizeCell(link)} is not reported at this instant`, 'warn')]);
  else
    panel.push([
      seg('link ', 'label'),
      seg(`${sanitizeCell(link)}   `, 'title'),
      ...rowLine(modelOf('shadow-links'), row, ['state', 'topics', 'tasks', 'bootstrap', 'auth', 'tls'], { now }),
    ]);
  const tasks = source.stateAt<ShadowTaskRow>('shadow-tasks', at).rows.filter((t) => t.shadowLinkName === link);
  panel.push([seg(`tasks (${tasks.length})`, 'header')]);
  panel.push(...taskLines(tasks));
  const topics = source.stateAt<ShadowTopicRow>('shadow-topics', at).rows.filter((t) => t.shadowLinkName === link);
  const topicModel = modelOf('shadow-topics');
  const stateCol = topicModel.columns.find((c) => c.id === 'state');
  const t = resourceTable('shadow-topics', topics, entry, {
    now,
    marks: lagMarks(source),
    glyph: (r) => toneGlyph(stateCol?.tone?.(r)),
    target: (r) => ({ view: { kind: 'shadow-topic', link, topic: r.name } }),
  });
  return {
    panel,
    tableTitle: 'Shadow topics',
    grid: t.grid,
    badge: t.badge,
    empty: 'no shadow topics at this instant',
    // the API's JSON form (as `query -o json`): absent fields stay absent, no internal markers
    export: {
      format: 'json',
      data: {
        link: row === undefined ? null : encodeRow('shadow-links', row),
        tasks: tasks.map((task) => encodeRow('shadow-tasks', task)),
        topics: t.rows.map((topic) => encodeRow('shadow-topics', topic)),
      },
    },
  };
}

/** One shadow topic at `at`: its partitions with lag and a lag sparkline over the history up to `at`. */
export function shadowTopicScreen(
  source: BrowseSource,
  entry: StackEntry,
  link: string,
  topic: string,
  at: bigint,
): Screen {
  const topics = source.stateAt<ShadowTopicRow>('shadow-topics', at);
  const now = topics.poll?.startTime ?? at;
  const row = topics.rows.find((t) => t.shadowLinkName === link && t.name === topic);
  const panel: PanelLine[] = [];
  if (row === undefined) panel.push([seg(`topic ${sanitizeCell(topic)} is not reported at this instant`, 'warn')]);
  else
    panel.push([
      seg('topic ', 'label'),
      seg(`${sanitizeCell(topic)}   `, 'title'),
      ...rowLine(modelOf('shadow-topics'), row, ['link', 'source', 'state', 'lag'], { now, marks: lagMarks(source) }),
    ]);
  const partitions = source
    .stateAt<ShadowPartitionRow>('shadow-partitions', at)
    .rows.filter((p) => p.shadowLinkName === link && p.topicName === topic);
  const lags = source.partitionLags(link, topic, at);
  const marks = lagMarks(source);
  const t = resourceTable('shadow-partitions', partitions, entry, {
    now,
    only: ['partition', 'hwm', 'sourceHwm', 'lag', 'updated'],
    after: [
      {
        id: 'trend',
        header: 'LAG OVER TIME',
        align: 'left',
        token: 'accent',
        value: (p) => lags.get(String(p.partitionId)) ?? '',
      },
    ],
    // the threshold of the timeline decides the mark: a partition 13 records behind is fine
    marks,
    glyph: (p) => (p.lag > marks.shadowLag ? '▲' : '✓'),
    rowToken: (p) => (p.lag > marks.shadowLag ? 'warn' : undefined),
  });
  return { panel, tableTitle: 'Partitions', grid: t.grid, badge: t.badge, empty: 'no partitions at this instant' };
}
