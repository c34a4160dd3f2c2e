/** Diff: what changed between the two marked instants (or mark A and the cursor), entity by entity. */
import type { ResourceName } from '../../api/schema/resources.ts';
import { formatTimestampShort } from '../../api/codec/timestamp.ts';
import { sanitizeCell } from '../../api/safe-text.ts';
import type { DiffResult, EntityRef } from '../../report/diff.ts';
import { formatChange, formatTotal, unobservedReason } from '../../report/render/values.ts';
import { gridFromCells, type RowTarget } from '../data/grid.ts';
import type { PanelLine, Screen } from '../data/screen.ts';
import { seg } from '../data/screen.ts';
import type { BrowseSource } from '../data/source.ts';
import type { Token } from '../theme.ts';
import type { StackEntry } from '../state/app.ts';
import { diffRange, type MarksState } from '../state/marks.ts';
import type { ViewRef } from '../state/views.ts';

const COLUMNS = [
  { id: 'resource', header: 'RESOURCE', align: 'left' },
  { id: 'change', header: 'CHANGE', align: 'left' },
  { id: 'entity', header: 'ENTITY', align: 'left', flexible: true, identity: true, keep: true },
  { id: 'details', header: 'DETAILS', align: 'left', flexible: true, fill: true, keep: true },
] as const;

interface DiffRow {
  readonly cells: string[];
  readonly token: Token;
  readonly glyph: string;
  readonly target?: RowTarget;
}

/** The view that shows an entity of a resource, from its diff key (`link/name`, `uid`, ...). */
export function diffEntityView(resource: ResourceName, key: string): ViewRef | undefined {
  const [first = '', second = ''] = key.split('/');
  switch (resource) {
    case 'connections':
      return { kind: 'connection', uid: key };
    case 'shadow-links':
      return { kind: 'shadow-link', link: key };
    case 'shadow-tasks':
      return { kind: 'shadow-link', link: first };
    case 'shadow-topics':
    case 'shadow-partitions':
      return { kind: 'shadow-topic', link: first, topic: second };
    case 'upgrade':
    case 'upgrade-members':
      return { kind: 'upgrade' };
    case 'iceberg-topics':
    case 'iceberg-partitions':
      return { kind: 'iceberg' };
    default:
      return undefined;
  }
}

/** The rows of a diff result: unobserved resources, then added, removed and changed entities. */
export function diffRows(result: DiffResult): DiffRow[] {
  const rows: DiffRow[] = [];
  for (const r of result.resources) {
    if (!r.observed) {
      const why = unobservedReason(r.from) ?? unobservedReason(r.to) ?? '';
      rows.push({ cells: [r.resource, '? unobserved', '', why], token: 'gap', glyph: '?' });
      continue;
    }
    const target = (e: EntityRef, at: bigint): RowTarget => ({ at, view: diffEntityView(r.resource, e.key) });
    for (const e of r.added)
      rows.push({
        cells: [r.resource, '+ added', e.label, ''],
        token: 'rowNew',
        glyph: '+',
        target: target(e, result.to),
      });
    for (const e of r.removed)
      rows.push({
        cells: [r.resource, '- removed', e.label, ''],
        token: 'rowClosed',
        glyph: '-',
        target: target(e, result.from),
      });
    for (const e of r.changed) {
      const details = e.changes.map(formatChange).join('; ');
      rows.push({
        cells: [r.resource, '~ changed', e.label, sanitizeCell(details)],
        token: 'rowMoving',
        glyph: '~',
        target: target(e, result.to),
      });
    }
  }
  return rows;
}

/** Builds the diff screen for the marks and the cursor. */
export function diffScreen(source: BrowseSource, entry: StackEntry, marks: MarksState, at: bigint | undefined): Screen {
  const range = diffRange(marks, at);
  if (range === undefined) {
    return {
      panel: [
        [
          seg('No diff yet: press ', 'label'),
          seg('m', 'accent'),
          seg(' at one instant, move the cursor, press ', 'label'),
          seg('m', 'accent'),
          seg(' again.', 'label'),
        ],
        [
          seg('With one mark the diff runs from the mark to the cursor; ', 'label'),
          seg('M', 'accent'),
          seg(' clears the marks.', 'label'),
        ],
      ],
      grid: gridFromCells(COLUMNS, []),
      empty: 'mark two instants to compare',
    };
  }
  const result = source.diff(range.from, range.to);
  let rows = diffRows(result);
  const sort = entry.table.sort;
  if (sort !== undefined) {
    rows = [...rows].sort((a, b) =>
      (a.cells[sort.column] ?? '').localeCompare(b.cells[sort.column] ?? '', undefined, { numeric: true }),
    );
    if (sort.desc) rows.reverse();
  }
  const panel: PanelLine[] = [
    [
      seg('diff ', 'label'),
      seg(formatTimestampShort(range.from), 'accent'),
      seg(' → ', 'label'),
      seg(formatTimestampShort(range.to), 'accent'),
      seg(`   ${result.differences} difference(s)`, result.differences > 0 ? 'warn' : 'ok'),
      seg(marks.b === undefined ? '   (mark A → cursor)' : '   (mark A ↔ mark B)', 'muted'),
    ],
  ];
  for (const r of result.resources) {
    const totals = r.totals
      .filter((t) => t.moving > 0)
      .slice(0, 2)
      .map(formatTotal)
      .join('; ');
    if (r.observed && totals !== '') panel.push([seg(`  ${r.resource} `, 'label'), seg(sanitizeCell(totals), 'muted')]);
  }
  if (result.skipped.length > 0) panel.push([seg(`  never recorded: ${result.skipped.join(', ')}`, 'muted')]);
  const grid = gridFromCells(
    COLUMNS,
    rows.map((r) => r.cells),
    { rowToken: (i) => rows[i]?.token, glyph: (i) => rows[i]?.glyph ?? ' ', target: (i) => rows[i]?.target },
  );
  return { panel, maxPanel: 6, grid, badge: `${rows.length} rows`, empty: 'no differences between the two instants' };
}
