/** Timeline events as a table: time, severity (glyph and word), kind, entity, duration, description. */
import { sanitizeCell } from '../../api/safe-text.ts';
import { formatTimestampShort } from '../../api/codec/timestamp.ts';
import { formatSpan } from '../../report/format-units.ts';
import type { TimelineEvent } from '../../report/timeline/types.ts';
import { eventKey } from '../../report/timeline/worst-incident.ts';
import type { Grid, RowTarget } from '../data/grid.ts';
import { gridFromCells } from '../data/grid.ts';
import { SEVERITY_STYLE } from '../glyphs.ts';
import { compactTimeFormat, type TimeFormat } from '../time-format.ts';
import type { ViewRef } from '../state/views.ts';
import { entityFilter, entityTarget } from './entity-target.ts';
import { evidenceTarget } from './evidence-target.ts';

const COLUMNS = [
  { id: 'time', header: 'TIME', align: 'left', priority: 1 },
  { id: 'severity', header: 'SEV', align: 'left', priority: 3 },
  { id: 'kind', header: 'KIND', align: 'left', flexible: true, priority: 1, min: 15 },
  { id: 'entity', header: 'ENTITY', align: 'left', flexible: true, priority: 1, min: 14, identity: true, keep: true },
  { id: 'duration', header: 'FOR', align: 'right', priority: 2 },
  { id: 'description', header: 'DESCRIPTION', align: 'left', flexible: true, min: 14, fill: true, keep: true },
] as const;

/**
 * How long an event lasted, as of the cursor `at`: `later` when it has not started yet (it is
 * in the cursor's future), `ongoing 3m00s` when it started and had not ended by then (ended
 * after the cursor, or still open), its duration once over, `-` for a past point.
 */
export function eventDuration(e: TimelineEvent, at: bigint | undefined): string {
  if (at !== undefined && e.start > at) return 'later';
  if (e.type === 'point') return '-';
  if (e.end === null || (at !== undefined && e.end > at))
    return at !== undefined ? `ongoing ${formatSpan(at - e.start)}` : 'ongoing';
  return `${e.startedBefore ? '≥' : ''}${formatSpan(e.end - e.start)}`;
}

/** True when, as of `at`, the event has not started yet. */
export function eventIsLater(e: TimelineEvent, at: bigint | undefined): boolean {
  return at !== undefined && e.start > at;
}

/**
 * The marks in front of an event's start: `≤` when it was already so at the first observation
 * (the true start lies earlier), `↶` when the start was dated back before the poll that
 * detected it (the detail says when that was).
 */
export function startMark(e: TimelineEvent): string {
  return `${e.startedBefore ? '≤' : ''}${e.detectedAt !== undefined && e.detectedAt !== e.start ? '↶' : ''}`;
}

/** The cells of one event row; `time` writes the start (default: full RFC 3339). */
export function eventCells(
  e: TimelineEvent,
  at: bigint | undefined,
  time: TimeFormat = formatTimestampShort,
): string[] {
  return [
    `${startMark(e)}${time(e.start)}`,
    e.severity,
    sanitizeCell(e.kind),
    sanitizeCell(e.entity),
    eventDuration(e, at),
    sanitizeCell(e.description),
  ];
}

/** Where Enter on an event's detail leads: the cursor to its start, its entity's view (with a filter when it names connections). */
export function eventTarget(e: TimelineEvent): RowTarget {
  const view = entityTarget(e.entity, e.kind);
  const filter = view?.kind === 'connections' ? entityFilter(e.entity) : undefined;
  return {
    at: e.start,
    view,
    drill: true,
    ...(filter !== undefined ? { filter: { expr: filter, negate: false } } : {}),
  };
}

/** The detail view of an event. */
export function eventView(e: TimelineEvent): ViewRef {
  return { kind: 'event', key: eventKey(e) };
}

/** The time format of a list of events: as short as their dates (and the cursor's) allow. */
export function eventTimeFormat(events: readonly TimelineEvent[], at: bigint | undefined): TimeFormat {
  return compactTimeFormat(
    events.map((e) => e.start),
    at,
  );
}

/** A grid of events: Enter opens an event's detail, `e` its evidence (at the first of `instants` showing it). */
export function eventGrid(events: readonly TimelineEvent[], at: bigint | undefined, instants: readonly bigint[]): Grid {
  const time = eventTimeFormat(events, at);
  const rows = events.map((e) => eventCells(e, at, time));
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
      return e === undefined ? undefined : { view: eventView(e) };
    },
    evidence: (i) => {
      const e = events[i];
      return e === undefined ? undefined : { ...evidenceTarget(e, instants), drill: true };
    },
    key: (i) => {
      const e = events[i];
      return e === undefined ? '' : eventKey(e);
    },
  });
}

/** Columns of the event table (for sorting by index). */
export const EVENT_COLUMNS = COLUMNS;
