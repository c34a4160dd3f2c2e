/**
 * The timeline as text for a terminal: a heading, one table row per event (evidence in the
 * wide form), and sparklines of the key series. Every cluster string is sanitised; colour only
 * when allowed.
 */
import { formatTimestamp } from '../../api/codec/timestamp.ts';
import { sanitizeCell } from '../../api/safe-text.ts';
import type { TableView, Tone, ViewRow } from '../columns/index.ts';
import type { Timeline } from '../timeline/timeline.ts';
import { paint } from './color.ts';
import { renderTable } from './table.ts';
import { durationText, endText, evidenceText, seriesLines, startText, timelineHeading } from './timeline-common.ts';

const TONE: Readonly<Record<string, Tone>> = { error: 'error', warn: 'warn', info: 'dim' };

/** Options of the text rendering. */
export interface TimelineTextOptions {
  readonly color: boolean;
  /** terminal width; no truncation when undefined */
  readonly width?: number;
  /** add the evidence column */
  readonly wide?: boolean;
  /** characters per sparkline (default 60) */
  readonly sparkWidth?: number;
}

/** The events as a table view (shared with the TUI). */
export function timelineView(t: Timeline, wide = false): TableView {
  const columns = [
    { id: 'start', header: 'START', align: 'left' as const },
    { id: 'end', header: 'END', align: 'left' as const },
    { id: 'duration', header: 'DURATION', align: 'right' as const },
    { id: 'severity', header: 'SEV', align: 'left' as const },
    { id: 'kind', header: 'KIND', align: 'left' as const },
    { id: 'entity', header: 'ENTITY', align: 'left' as const, identity: true },
    { id: 'what', header: 'WHAT', align: 'left' as const, fill: true },
    ...(wide ? [{ id: 'evidence', header: 'EVIDENCE', align: 'left' as const }] : []),
  ];
  const rows: ViewRow[] = t.events.map((e) => {
    const cells = [startText(e), endText(e), durationText(e, t.until), e.severity, e.kind, e.entity, e.description];
    if (wide) cells.push(evidenceText(e));
    const tones: (Tone | undefined)[] = cells.map(() => undefined);
    tones[3] = TONE[e.severity];
    if (e.end === null && e.type === 'interval') tones[1] = TONE[e.severity];
    return { cells, tones };
  });
  return { columns, rows };
}

/** `-o table` and `-o wide`. */
export function renderTimelineText(t: Timeline, opts: TimelineTextOptions): string {
  let out = `${paint(sanitizeCell(timelineHeading(t)), 'bold', opts.color)}\n\n`;
  if (t.rollups !== undefined) out += `${rollupLine(t.rollups)}\n\n`;
  out +=
    t.events.length === 0
      ? 'No events.\n'
      : renderTable(timelineView(t, opts.wide === true), { color: opts.color, width: opts.width });
  const marks = [
    ...(t.events.some((e) => e.startedBefore) ? ['≤ began before the history read'] : []),
    ...(t.events.some((e) => e.detectedAt !== undefined)
      ? ['↶ start dated back: detected at a later poll (JSON detectedAt)']
      : []),
  ];
  if (marks.length > 0)
    out += `${marks.join(';  ')}
`;
  const lines = seriesLines(t, opts.sparkWidth ?? 60);
  if (lines.length > 0) {
    const nameWidth = Math.max(...lines.map((l) => sanitizeCell(l.name).length));
    out += `\n${paint('Key series', 'bold', opts.color)} (max per slice)\n`;
    for (const l of lines) {
      const name = sanitizeCell(l.name).padEnd(nameWidth);
      out += `  ${name}  ${l.spark}  min ${fmt(l.min)}  max ${fmt(l.max)}  last ${l.last === undefined ? '-' : fmt(l.last)} ${sanitizeCell(l.unit)}\n`;
    }
  }
  return out;
}

function fmt(v: number): string {
  return Number.isInteger(v) ? String(v) : v.toFixed(1);
}

/** The line of a timeline partly answered by the events kept with the rollups. */
export function rollupLine(r: { readonly resolution: number; readonly before: bigint }): string {
  const res = r.resolution % 3600 === 0 ? `${r.resolution / 3600}h` : `${r.resolution / 60}m`;
  return `from ${res} rollups before ${formatTimestamp(r.before)} (events kept when raw history was pruned)`;
}
