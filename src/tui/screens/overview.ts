/** The overview: per operation the last poll and its outcome, the cluster's key figures, the latest events. */
import { formatTimestampShort } from '../../api/codec/timestamp.ts';
import { formatSpan } from '../../report/format-units.ts';
import type { PanelLine, Screen } from '../data/screen.ts';
import { seg } from '../data/screen.ts';
import type { BrowseSource } from '../data/source.ts';
import { outcomeStyle } from '../glyphs.ts';
import { fit } from '../text.ts';
import { eventGrid } from './events.ts';

/** Builds the overview at `at`. */
export function overviewScreen(source: BrowseSource, at: bigint): Screen {
  const data = source.overview(at);
  const width = Math.max(10, ...data.operations.map((o) => o.operation.length));
  const panel: PanelLine[] = [[seg('Polls', 'header')]];
  for (const op of data.operations) {
    const style = outcomeStyle(op.ok);
    const line: PanelLine =
      op.poll === undefined
        ? [seg(`  · ${fit(op.operation, width)}  `, 'muted'), seg('never polled', 'muted')]
        : [
            seg(`  ${style.glyph} `, style.token),
            seg(fit(op.operation, width), 'value'),
            seg(`  ${formatTimestampShort(op.poll.startTime)}`, 'value'),
            seg(` (${formatSpan(at - op.poll.startTime)} before)`, 'muted'),
            seg(`  ${op.outcome}`, style.token),
            seg(`  ${op.total} polls${op.failed > 0 ? `, ${op.failed} failed` : ''}`, op.failed > 0 ? 'warn' : 'muted'),
          ];
    panel.push(line);
  }
  if (data.facts.length > 0) panel.push([seg('Cluster', 'header')]);
  const labelWidth = Math.max(0, ...data.facts.map((f) => f.label.length));
  for (const f of data.facts) {
    const line = [seg(`  ${fit(f.label, labelWidth)}  `, 'label'), seg(f.value, f.token ?? 'value')];
    if (f.spark !== undefined) line.push(seg(`  ${f.spark}`, 'accent'));
    panel.push(line);
  }
  return {
    panel,
    tableTitle: 'Latest events (Enter opens; :timeline for all)',
    grid: eventGrid(data.events, at),
    empty: data.eventsReady ? 'no events up to this instant' : '… computing the timeline',
    export: { format: 'json', data },
  };
}
