/** Timeline events as a table: time, severity (glyph and word), kind, entity, duration, description. */
import { sanitizeCell } from '../../api/safe-text.ts';
import { formatTimestampShort } from '../../api/codec/timestamp.ts';
import { formatSpan } from '../../report/format-units.ts';
import type { TimelineEvent } from '../../report/timeline/types.ts';
import type { Grid, RowTarget } from '../data/grid.ts';
import { gridFromCells } from '../data/grid.ts';
import { SEVERITY_STYLE } from '../glyphs.ts';
import { entityFilter, entityTarget } from './entity-target.ts';

const COLUMNS = [
  { id: 'time', header: 'TIME', align: 'left' },
  { id: 'severity', header: 'SEV', align: 'left' },
  { id: 'kind', header: 'KIND', align: 'left', flexible: true },
  { id: 'entity', header: 'ENTITY', align: 'left', flexible: true },
  { id: 'duration', header: 'FOR', align: 'right' },
  { id: 'description', header: 'DESCRIPTION', align: 'left', flexible: true },
] as const;

/**
 * How long an event lasted, as of the cursor `at`: `later` when it has not started yet (it is
 * in the cursor's future), `ongoing 3m00s` when it started and had not ended by then (ended
 * after the cursor, or still open), its duration once over, `-` for a past point.
 */
export function eventDuration(e: TimelineEvent, at: bigint | undefined): string {
  if (at !== undefined && e.start > at) return 'later';
  if (e.type === 'point') return '-';
  if (e.end === null || (at !== undefined && e.end > at)) return at !== undefined ? `ongoing ${formatSpan(at - e.start)}` : 'ongoing';
  return `${e.startedBefore ? '≥' : ''}${formatSpan(e.end - e.start)}`;
}

/** True when, as of `at`, the event has not started yet. */
export function eventIsLater(e: TimelineEvent, at: bigint | undefined): boolean {
  return at !== undefined && e.start > at;
}

/** The cells of one event row. */
export function eventCells(e: TimelineEvent, at: bigint | undefined): string[] {
  return [
    `${e.startedBefore ? '≤' : ''}${formatTimestampShort(e.start)}`,
    e.severity,
    sanitizeCell(e.kind),
    sanitizeCell(e.entity),
    eventDuration(e, at),
    sanitizeCell(e.description),
  ];
}

/** Where Enter on an event leads: the cursor to its start, its entity's view (with a filter when it names connections). */
export function eventTarget(e: TimelineEvent): RowTarget {
  const view = entityTarget(e.entity, e.kind);
  const filter = view?.kind === 'connections' ? entityFilter(e.entity) : undefined;
  return { at: e.start, view, ...(filter !== undefined ? { filter: { expr: filter, negate: false } } : {}) };
}

/** A grid of events. */
export function eventGrid(events: readonly TimelineEvent[], at: bigint | undefined): Grid {
  const rows = events.map((e) => eventCells(e, at));
  return gridFromCells(COLUMNS, rows, {
    rowToken: (i) => {
      const e = events[i];
      // what has not happened yet as of the cursor is drawn muted, apart from the past
      return e === undefined ? undefined : eventIsLater(e, at) ? 'muted' : SEVERITY_STYLE[e.severity].token;
    },
    glyph: (i) => {
      const e = events[i];
      return e === undefined ? ' ' : SEVERITY_STYLE[e.severity].glyph;
    },
    target: (i) => {
      const e = events[i];
      return e === undefined ? undefined : eventTarget(e);
    },
  });
}

/** Columns of the event table (for sorting by index). */
export const EVENT_COLUMNS = COLUMNS;
