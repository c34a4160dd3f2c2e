/** One connection: identity, its whole recorded history with rate sparklines, and its state changes. */
import type { KafkaConnection } from '../../api/schema/connection.ts';
import { formatTimestampShort } from '../../api/codec/timestamp.ts';
import type { ExtraColumn } from '../data/grid.ts';
import type { PanelLine, Screen } from '../data/screen.ts';
import { seg } from '../data/screen.ts';
import type { BrowseSource } from '../data/source.ts';
import type { StackEntry } from '../state/app.ts';
import { fit } from '../text.ts';
import { compactTimeFormat } from '../time-format.ts';
import { gridFromCells } from '../data/grid.ts';
import { modelOf } from './rows.ts';
import { resourceTable } from './resource-table.ts';

type Sample = { readonly at: bigint; readonly row: KafkaConnection };

/** Identity fields shown above the history, by connection column id. */
const IDENTITY = ['client', 'principal', 'state', 'node', 'group', 'age'] as const;
const WIDE_IDENTITY = ['source', 'listener', 'software', 'auth', 'tls', 'closed'] as const;
/** History columns, by connection column id (a TIME column comes first). */
const HISTORY = ['state', 'idle', 'fetchRate', 'produceRate', 'requestRate', 'requests'] as const;

/** Builds the screen of one connection at `at`. */
export function connectionScreen(source: BrowseSource, entry: StackEntry, uid: string, at: bigint): Screen {
  const detail = source.connection(uid, at);
  if (detail === undefined) {
    return {
      panel: [[seg(`connection ${uid} was never recorded`, 'warn')]],
      grid: gridFromCells([], []),
      empty: 'no samples',
    };
  }
  const model = modelOf('connections');
  const ctx = { now: detail.observedAt };
  const value = (id: string): string => model.columns.find((c) => c.id === id)?.value(detail.row, ctx) ?? '';
  const header = (id: string): string => model.columns.find((c) => c.id === id)?.header.toLowerCase() ?? id;
  const pairs = (ids: readonly string[]): PanelLine =>
    ids.flatMap((id) => [seg(`${header(id)} `, 'label'), seg(`${value(id)}   `, 'value')]);
  const panel: PanelLine[] = [
    [
      seg('uid ', 'label'),
      seg(value('uid'), 'title'),
      seg(`   observed ${formatTimestampShort(detail.observedAt)}`, 'muted'),
    ],
    pairs(IDENTITY),
    pairs(WIDE_IDENTITY),
  ];
  const nameWidth = Math.max(0, ...detail.rates.map((r) => r.name.length));
  for (const r of detail.rates)
    panel.push([seg(`${fit(r.name, nameWidth)} `, 'label'), seg(r.spark, 'accent'), seg(`  ${r.latest}`, 'value')]);
  if (detail.changes.length > 0) {
    panel.push([seg('changes', 'header'), seg(` (${detail.changes.length})`, 'muted')]);
    for (const c of detail.changes.slice(-4))
      panel.push([seg(`  ${formatTimestampShort(c.at)}  `, 'label'), seg(c.text, 'value')]);
  }
  const samples = detail.samples;
  const short = compactTimeFormat(
    samples.map((s) => s.at),
    at,
  );
  const timeOf = new Map<KafkaConnection, bigint>(samples.map((s: Sample) => [s.row, s.at]));
  const time: ExtraColumn<KafkaConnection> = {
    id: 'time',
    header: 'TIME',
    align: 'left',
    value: (r) => short(timeOf.get(r) ?? 0n),
    priority: 1,
  };
  const rows = samples.map((s) => s.row);
  const table = resourceTable('connections', rows, entry, {
    now: detail.observedAt,
    only: HISTORY,
    before: [time],
    rowToken: (r) => (timeOf.get(r) === detail.observedAt ? 'accent' : undefined),
    glyph: (r) => (timeOf.get(r) === detail.observedAt ? '▸' : ' '),
    target: (r) => {
      const t = timeOf.get(r);
      return t === undefined ? undefined : { at: t };
    },
  });
  return {
    panel,
    maxPanel: 12,
    tableTitle: `History: ${samples.length} samples (Enter moves the time cursor there)`,
    grid: table.grid,
    badge: table.badge,
    empty: 'no samples',
  };
}
