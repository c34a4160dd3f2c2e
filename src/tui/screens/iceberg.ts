/** Iceberg: catalog reachability, topics, and the partitions with their commit lag at the cursor. */
import type { IcebergTopic } from '../../api/schema/iceberg.ts';
import type { IcebergPartitionRow } from '../../api/schema/resources.ts';
import { sanitizeCell } from '../../api/safe-text.ts';
import { toneToken } from '../data/grid.ts';
import type { PanelLine, Screen } from '../data/screen.ts';
import { seg } from '../data/screen.ts';
import { lagMarks, type BrowseSource } from '../data/source.ts';
import type { StackEntry } from '../state/app.ts';
import { modelOf } from './rows.ts';
import { resourceTable } from './resource-table.ts';
import { toneGlyph } from './tone-glyph.ts';

/** Builds the Iceberg screen at `at`. */
export function icebergScreen(source: BrowseSource, entry: StackEntry, at: bigint): Screen {
  const topics = source.stateAt<IcebergTopic>('iceberg-topics', at);
  const now = topics.poll?.startTime ?? at;
  const panel: PanelLine[] = [];
  const catalog = topics.poll === undefined ? undefined : source.icebergCatalog(at);
  if (topics.poll === undefined) panel.push([seg('no Iceberg status recorded at or before this instant', 'warn')]);
  else if (catalog !== undefined) {
    panel.push(
      catalog.reachable
        ? [seg('catalog ', 'label'), seg('✓ reachable', 'ok')]
        : [
            seg('catalog ', 'label'),
            seg(`✖ unreachable ${sanitizeCell(catalog.errorCode)}: ${sanitizeCell(catalog.errorMessage)}`, 'error'),
          ],
    );
  }
  const topicModel = modelOf('iceberg-topics');
  const marks = lagMarks(source);
  for (const t of topics.rows.slice(0, 5)) {
    panel.push(
      topicModel.columns.flatMap((c) => {
        const tone = c.tone?.(t, { now, marks });
        return [
          seg(`${c.header.toLowerCase()} `, 'label'),
          seg(`${tone ? `${toneGlyph(tone)} ` : ''}${c.value(t, { now, marks })}   `, toneToken(tone) ?? 'value'),
        ];
      }),
    );
  }
  if (topics.rows.length > 5)
    panel.push([seg(`… ${topics.rows.length - 5} more topics (all partitions below)`, 'muted')]);
  const partitions = source.stateAt<IcebergPartitionRow>('iceberg-partitions', at);
  const t = resourceTable('iceberg-partitions', partitions.rows, entry, {
    now,
    marks,
    glyph: (p) => (p.commitLag > marks.commitLag ? '▲' : '✓'),
    rowToken: (p) => (p.commitLag > marks.commitLag ? 'warn' : undefined),
  });
  return {
    panel,
    maxPanel: 7,
    tableTitle: 'Partitions',
    grid: t.grid,
    badge: t.badge,
    empty: 'no Iceberg partitions at this instant',
  };
}
