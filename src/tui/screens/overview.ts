/** The overview: per operation the last poll and its outcome, the cluster's key figures, the latest events. */
import { formatSpan } from '../../report/format-units.ts';
import type { PanelLine, Screen } from '../data/screen.ts';
import { seg } from '../data/screen.ts';
import type { BrowseSource, OverviewData } from '../data/source.ts';
import { compactTimeFormat, type TimeFormat } from '../time-format.ts';
import { outcomeStyle } from '../glyphs.ts';
import { fit } from '../text.ts';
import { eventGrid } from './events.ts';

/** The poll section folded into one line (small terminals): every operation ok, or the ones that are not. */
function pollsLine(data: OverviewData, at: bigint, time: TimeFormat): PanelLine {
  const polled = data.operations.filter((o) => o.poll !== undefined);
  const bad = data.operations.filter((o) => o.poll !== undefined && !o.ok);
  const latest = polled.reduce<bigint | undefined>(
    (m, o) => (m === undefined || o.poll!.startTime > m ? o.poll!.startTime : m),
    undefined,
  );
  const total = data.operations.reduce((n, o) => n + o.total, 0);
  const head = seg('Polls  ', 'header');
  const when =
    latest === undefined
      ? []
      : [seg(`  last ${time(latest)} (${formatSpan(at - latest)} before), ${total} polls`, 'muted')];
  if (bad.length > 0) {
    const style = outcomeStyle(false);
    return [
      head,
      seg(`${style.glyph} failing: ${bad.map((o) => `${o.operation} ${o.outcome}`).join(', ')}`, style.token),
      ...when,
    ];
  }
  const style = outcomeStyle(true);
  return [
    head,
    seg(`${style.glyph} ${polled.length} of ${data.operations.length} operations ok`, style.token),
    ...when,
  ];
}

/** Builds the overview at `at`. */
export function overviewScreen(source: BrowseSource, at: bigint): Screen {
  const data = source.overview(at);
  const time = compactTimeFormat(
    data.operations.flatMap((o) => (o.poll === undefined ? [] : [o.poll.startTime])),
    at,
  );
  const width = Math.max(10, ...data.operations.map((o) => o.operation.length));
  const polls: PanelLine[] = [[seg('Polls', 'header')]];
  for (const op of data.operations) {
    const style = outcomeStyle(op.ok);
    const line: PanelLine =
      op.poll === undefined
        ? [seg(`  · ${fit(op.operation, width)}  `, 'muted'), seg('never polled', 'muted')]
        : [
            seg(`  ${style.glyph} `, style.token),
            seg(fit(op.operation, width), 'value'),
            seg(`  ${time(op.poll.startTime)}`, 'value'),
            seg(` (${formatSpan(at - op.poll.startTime)} before)`, 'muted'),
            seg(`  ${op.outcome}`, style.token),
            seg(`  ${op.total} polls${op.failed > 0 ? `, ${op.failed} failed` : ''}`, op.failed > 0 ? 'warn' : 'muted'),
          ];
    polls.push(line);
  }
  const cluster: PanelLine[] = [];
  if (data.facts.length > 0) cluster.push([seg('Cluster', 'header')]);
  const labelWidth = Math.max(0, ...data.facts.map((f) => f.label.length));
  for (const f of data.facts) {
    const line = [seg(`  ${fit(f.label, labelWidth)}  `, 'label'), seg(f.value, f.token ?? 'value')];
    if (f.spark !== undefined) line.push(seg(`  ${f.spark}`, 'accent'));
    cluster.push(line);
  }
  return {
    panel: [...polls, ...cluster],
    compactPanel: [pollsLine(data, at, time), ...cluster],
    tableTitle: 'Latest events (Enter: the whole event, e: its evidence; :timeline for all)',
    grid: eventGrid(data.events, at, source.instants()),
    empty: data.eventsReady ? 'no events up to this instant' : '… computing the timeline',
    export: { format: 'json', data },
  };
}
