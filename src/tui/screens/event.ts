/**
 * One timeline event whole: kind, severity, entity and related entities, start, end or ongoing,
 * when it was detected where its start was dated back, the full description wrapped, the
 * evidence before, during and after as a small table, and the polls it rests on. A page of text
 * that scrolls; laid out for the terminal's width when drawn.
 */
import type { PollRow } from '../../api/schema/resources.ts';
import { formatTimestampShort } from '../../api/codec/timestamp.ts';
import { sanitizeCell } from '../../api/safe-text.ts';
import { formatHumanDuration } from '../../api/codec/duration.ts';
import type { TimelineEvent } from '../../report/timeline/types.ts';
import { eventKey } from '../../report/timeline/worst-incident.ts';
import { gridFromCells } from '../data/grid.ts';
import type { PanelLine, Screen } from '../data/screen.ts';
import { seg } from '../data/screen.ts';
import type { BrowseSource } from '../data/source.ts';
import { SEVERITY_STYLE } from '../glyphs.ts';
import { describeFilter } from '../data/filter-check.ts';
import { fit, textWidth, wrapText } from '../text.ts';
import type { Token } from '../theme.ts';
import { eventTarget } from './events.ts';
import { evidenceTarget } from './evidence-target.ts';

const LABEL = 10;

/** A `label  value` line; the value wraps under itself. */
function field(label: string, value: string, width: number, token: Token = 'value'): PanelLine[] {
  const wrapped = wrapText(value, Math.max(10, width - LABEL - 2));
  return wrapped.map((text, i) => [
    seg(i === 0 ? fit(label, LABEL) : ' '.repeat(LABEL), 'label'),
    seg(`  ${text}`, token),
  ]);
}

/** How the event ends, as of the cursor `at` and the end of the recording `latest`. */
function endText(e: TimelineEvent, at: bigint | undefined, latest: bigint | undefined): { text: string; token: Token } {
  if (e.type === 'point') return { text: 'a point event (no duration)', token: 'muted' };
  if (at !== undefined && e.start > at) return { text: 'later: starts after the time cursor', token: 'muted' };
  if (e.end === null) {
    const asOf = at ?? latest;
    const lasting =
      asOf === undefined ? '' : `, ${formatHumanDuration(asOf - e.start)} as of ${formatTimestampShort(asOf)}`;
    return { text: `ongoing: still open at the end of the recording${lasting}`, token: 'warn' };
  }
  const lasted = `${e.startedBefore ? 'at least ' : ''}${formatHumanDuration(e.end - e.start)}`;
  const asOf =
    at !== undefined && e.end > at ? `   (ongoing as of the cursor, ${formatHumanDuration(at - e.start)} in)` : '';
  return { text: `${formatTimestampShort(e.end)}   lasted ${lasted}${asOf}`, token: 'value' };
}

/** The evidence as a small table (FIELD, BEFORE, DURING, AFTER), cells wrapped within their column. */
export function evidenceLines(e: TimelineEvent, width: number): PanelLine[] {
  const ev = e.evidence;
  const parts: { header: string; values: Readonly<Record<string, string>> }[] =
    e.type === 'point'
      ? [
          { header: 'BEFORE', values: ev.before },
          { header: 'AFTER', values: ev.after },
        ]
      : [
          { header: 'BEFORE', values: ev.before },
          { header: 'DURING', values: ev.during },
          { header: 'AFTER (ENDED)', values: ev.after },
        ];
  const keys = [...new Set(parts.flatMap((p) => Object.keys(p.values)))];
  if (keys.length === 0) return [[seg('  no evidence recorded', 'muted')]];
  const cellOf = (k: string, p: (typeof parts)[number]): string => {
    const v = p.values[k];
    return v === undefined || v === '' ? '-' : sanitizeCell(v);
  };
  const keyWidth = Math.max(5, ...keys.map((k) => textWidth(sanitizeCell(k))));
  const room = Math.max(parts.length * 6, width - 2 - keyWidth - 2 * parts.length);
  const natural = parts.map((p) => Math.max(textWidth(p.header), ...keys.map((k) => textWidth(cellOf(k, p)))));
  const widths = natural.map((w) => w);
  // the widest value column gives way until the row fits; its cells then wrap
  while (widths.reduce((a, b) => a + b, 0) > room) {
    const i = widths.indexOf(Math.max(...widths));
    if ((widths[i] ?? 0) <= 6) break;
    widths[i] = (widths[i] ?? 0) - 1;
  }
  const lines: PanelLine[] = [
    [
      seg(`  ${fit('FIELD', keyWidth)}`, 'header'),
      ...parts.map((p, i) => seg(`  ${fit(p.header, widths[i] ?? 0)}`, 'header')),
    ],
  ];
  for (const k of keys) {
    const cells = parts.map((p, i) => wrapText(cellOf(k, p), widths[i] ?? 1));
    const height = Math.max(...cells.map((c) => c.length));
    for (let row = 0; row < height; row++) {
      lines.push([
        seg(`  ${fit(row === 0 ? sanitizeCell(k) : '', keyWidth)}`, 'label'),
        ...cells.map((c, i) => seg(`  ${fit(c[row] ?? '', widths[i] ?? 0)}`, c[row] === '-' ? 'muted' : 'value')),
      ]);
    }
  }
  return lines;
}

/** The polls an event rests on: id, operation, target, time and outcome; a line wider than the page wraps. */
function pollLines(
  e: TimelineEvent,
  pollOf: ((id: bigint) => PollRow | undefined) | undefined,
  width: number,
): PanelLine[] {
  const ids = e.evidence.pollIds;
  const lines: PanelLine[] = [
    [seg(`Polls it rests on (${ids.length})`, 'header')],
    ...wrapText('  the first observation first, an ending poll last', width).map((l): PanelLine => [seg(l, 'muted')]),
  ];
  ids.forEach((id) => {
    const p = pollOf?.(id);
    lines.push(
      p === undefined
        ? [seg(`  poll ${id}`, 'value')]
        : [
            seg(`  poll ${id}  `, 'value'),
            seg(`${sanitizeCell(p.operation)}${p.target === '' ? '' : ` ${sanitizeCell(p.target)}`}  `, 'label'),
            seg(formatTimestampShort(p.startTime), 'accent'),
            seg(`  ${sanitizeCell(p.outcome)}`, p.outcome === 'ok' ? 'ok' : 'error'),
          ],
    );
  });
  return lines.flatMap((l) => {
    const whole = l.map((s) => s.text).join('');
    if (textWidth(whole) <= width) return [l];
    return wrapText(whole, width - 4).map((w, i): PanelLine => [seg(`${i === 0 ? '' : '    '}${w}`, 'value')]);
  });
}

/** The page of an event for a width. */
export function eventDocument(
  e: TimelineEvent,
  ctx: {
    readonly at: bigint | undefined;
    readonly latest: bigint | undefined;
    readonly position: string;
    readonly evidenceText: string;
    readonly pollOf?: (id: bigint) => PollRow | undefined;
  },
  width: number,
): PanelLine[] {
  const style = SEVERITY_STYLE[e.severity];
  const kind: PanelLine = [seg(`${style.glyph} ${e.severity}  `, style.token), seg(sanitizeCell(e.kind), 'title')];
  const where = `${e.type}   ${ctx.position}`;
  const lines: PanelLine[] =
    textWidth(kind.map((s) => s.text).join('')) + 3 + textWidth(where) <= width
      ? [[...kind, seg(`   ${where}`, 'muted')]]
      : [kind, ...wrapText(where, width).map((l): PanelLine => [seg(l, 'muted')])];
  lines.push(...field('entity', sanitizeCell(e.entity), width, 'accent'));
  lines.push(...field('related', e.related.length === 0 ? '-' : e.related.map(sanitizeCell).join(', '), width));
  lines.push(...field('start', formatTimestampShort(e.start), width));
  if (e.startedBefore)
    lines.push(
      ...field('', '≤ it was already so at the first observation: the true start lies earlier', width, 'warn'),
    );
  if (e.detectedAt !== undefined && e.detectedAt !== e.start)
    lines.push(
      ...field(
        'detected',
        `${formatTimestampShort(e.detectedAt)}   ↶ the start was dated back ${formatHumanDuration(e.detectedAt - e.start)} before the poll that decided it`,
        width,
        'warn',
      ),
    );
  const end = endText(e, ctx.at, ctx.latest);
  lines.push(...field(e.type === 'point' ? 'type' : 'end', end.text, width, end.token));
  lines.push([seg('')], [seg('Description', 'header')]);
  for (const l of wrapText(sanitizeCell(e.description), Math.max(10, width - 2))) lines.push([seg(`  ${l}`, 'value')]);
  lines.push([seg('')], [seg('Evidence', 'header')], ...evidenceLines(e, width));
  lines.push([seg('')], ...pollLines(e, ctx.pollOf, width));
  lines.push([seg('')]);
  for (const l of wrapText(
    `Enter: its entity at the start · e: ${ctx.evidenceText} · n/p: next/previous event · Esc: back`,
    width,
  ))
    lines.push([seg(l, 'muted')]);
  return lines;
}

/** The event detail screen; the event is found by its key in the timeline. */
export function eventScreen(source: BrowseSource, key: string, at: bigint | undefined): Screen {
  const empty = gridFromCells([], []);
  if (!source.timelineReady()) {
    return { panel: [[seg('… computing the timeline', 'muted')]], grid: empty, empty: '' };
  }
  const events = source.timeline();
  const index = events.findIndex((e) => eventKey(e) === key);
  const e = events[index];
  if (e === undefined)
    return {
      panel: [[seg('this event is no longer in the timeline (the recording changed): Esc goes back', 'warn')]],
      grid: empty,
      empty: '',
    };
  const instants = source.instants();
  const evidence = evidenceTarget(e, instants);
  const evidenceText =
    evidence.view === undefined
      ? 'no view shows its evidence'
      : `${evidence.view.kind}${evidence.filter === undefined ? '' : ` where ${describeFilter(evidence.filter)}`} at ${formatTimestampShort(evidence.at ?? e.start)}`;
  const ctx = {
    at,
    latest: instants[instants.length - 1],
    position: `event ${index + 1} of ${events.length} in the timeline`,
    evidenceText,
    ...(source.poll === undefined ? {} : { pollOf: (id: bigint) => source.poll?.(id) }),
  };
  return {
    panel: [],
    grid: empty,
    document: (width) => eventDocument(e, ctx, width),
    enter: eventTarget(e),
    evidence,
    export: { format: 'json', data: e },
  };
}
