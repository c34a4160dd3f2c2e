/** Shadow links, then a link's tasks and topics, then a topic's partitions with lag sparklines. */
import type { ShadowPartitionRow, ShadowTaskRow, ShadowTopicRow } from '../../api/schema/resources.ts';
import type { ShadowLink } from '../../api/schema/shadow-link.ts';
import { sanitizeCell } from '../../api/safe-text.ts';
import type { ColumnModel } from '../../report/columns/types.ts';
import { toneToken } from '../data/grid.ts';
import type { PanelLine, Screen, Segment } from '../data/screen.ts';
import { seg } from '../data/screen.ts';
import type { BrowseSource } from '../data/source.ts';
import type { StackEntry } from '../state/app.ts';
import { modelOf } from './rows.ts';
import { resourceTable } from './resource-table.ts';
import { toneGlyph } from './tone-glyph.ts';

/** One row drawn as `label value` pairs with the model's tones and a glyph for the state column. */
function rowLine<R>(model: ColumnModel<R>, row: R, ids: readonly string[], now: bigint): Segment[] {
  const out: Segment[] = [];
  for (const id of ids) {
    const c = model.columns.find((x) => x.id === id);
    if (c === undefined) continue;
    const tone = c.tone?.(row);
    const glyph = tone !== undefined ? `${toneGlyph(tone)} ` : '';
    out.push(seg(`${c.header.toLowerCase()} `, 'label'), seg(`${glyph}${c.value(row, { now })}   `, toneToken(tone) ?? 'value'));
  }
  return out;
}

/** The shadow links at `at`. */
export function shadowLinksScreen(source: BrowseSource, entry: StackEntry, at: bigint): Screen {
  const state = source.stateAt<ShadowLink>('shadow-links', at);
  const model = modelOf<ShadowLink>('shadow-links');
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
  else panel.push([seg('link ', 'label'), seg(`${sanitizeCell(link)}   `, 'title'), ...rowLine(modelOf<ShadowLink>('shadow-links'), row, ['state', 'topics', 'tasks', 'bootstrap', 'auth', 'tls'], now)]);
  const taskModel = modelOf<ShadowTaskRow>('shadow-tasks');
  const tasks = source.stateAt<ShadowTaskRow>('shadow-tasks', at).rows.filter((t) => t.shadowLinkName === link);
  panel.push([seg(`tasks (${tasks.length})`, 'header')]);
  const shown = tasks.slice(0, 6);
  for (const task of shown) panel.push([seg('  '), ...rowLine(taskModel, task, ['name', 'broker', 'shard', 'state', 'reason'], now)]);
  if (tasks.length > shown.length) panel.push([seg(`  … ${tasks.length - shown.length} more (:shadow-links, or ctrl-s saves all)`, 'muted')]);
  const topics = source.stateAt<ShadowTopicRow>('shadow-topics', at).rows.filter((t) => t.shadowLinkName === link);
  const topicModel = modelOf<ShadowTopicRow>('shadow-topics');
  const stateCol = topicModel.columns.find((c) => c.id === 'state');
  const t = resourceTable('shadow-topics', topics, entry, {
    now,
    glyph: (r) => toneGlyph(stateCol?.tone?.(r)),
    target: (r) => ({ view: { kind: 'shadow-topic', link, topic: r.name } }),
  });
  return { panel, tableTitle: 'Shadow topics', grid: t.grid, badge: t.badge, empty: 'no shadow topics at this instant' };
}

/** One shadow topic at `at`: its partitions with lag and a lag sparkline over the history up to `at`. */
export function shadowTopicScreen(source: BrowseSource, entry: StackEntry, link: string, topic: string, at: bigint): Screen {
  const topics = source.stateAt<ShadowTopicRow>('shadow-topics', at);
  const now = topics.poll?.startTime ?? at;
  const row = topics.rows.find((t) => t.shadowLinkName === link && t.name === topic);
  const panel: PanelLine[] = [];
  if (row === undefined) panel.push([seg(`topic ${sanitizeCell(topic)} is not reported at this instant`, 'warn')]);
  else panel.push([seg('topic ', 'label'), seg(`${sanitizeCell(topic)}   `, 'title'), ...rowLine(modelOf<ShadowTopicRow>('shadow-topics'), row, ['link', 'source', 'state', 'lag'], now)]);
  const partitions = source
    .stateAt<ShadowPartitionRow>('shadow-partitions', at)
    .rows.filter((p) => p.shadowLinkName === link && p.topicName === topic);
  const lags = source.partitionLags(link, topic, at);
  const t = resourceTable('shadow-partitions', partitions, entry, {
    now,
    only: ['partition', 'hwm', 'sourceHwm', 'lag', 'updated'],
    after: [{ id: 'trend', header: 'LAG OVER TIME', align: 'left', token: 'accent', value: (p) => lags.get(String(p.partitionId)) ?? '' }],
    glyph: (p) => (p.lag > 0n ? '▲' : '✓'),
    rowToken: (p) => (p.lag > 0n ? 'warn' : undefined),
  });
  return { panel, tableTitle: 'Partitions', grid: t.grid, badge: t.badge, empty: 'no partitions at this instant' };
}
