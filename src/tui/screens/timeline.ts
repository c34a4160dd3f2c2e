/** The timeline: every recorded event; Enter moves the time cursor to the event and opens its entity. */
import type { TimelineEvent } from '../../report/timeline/types.ts';
import type { Screen } from '../data/screen.ts';
import { optionalSeg, seg } from '../data/screen.ts';
import type { BrowseSource } from '../data/source.ts';
import { SEVERITY_STYLE } from '../glyphs.ts';
import type { StackEntry } from '../state/app.ts';
import type { SortState } from '../state/table.ts';
import { countBadge } from './rows.ts';
import { eventCells, eventGrid, eventTimeFormat } from './events.ts';

/** Events in the table's sort order (time order by default). */
export function sortEvents(
  events: readonly TimelineEvent[],
  sort: SortState | undefined,
  at: bigint | undefined,
): readonly TimelineEvent[] {
  if (sort === undefined) return events;
  const time = eventTimeFormat(events, at);
  const keyed = events.map((e) => ({ e, k: eventCells(e, at, time)[sort.column] ?? '' }));
  keyed.sort(
    (a, b) =>
      a.k.localeCompare(b.k, undefined, { numeric: true }) ||
      (a.e.start < b.e.start ? -1 : a.e.start > b.e.start ? 1 : 0),
  );
  if (sort.desc) keyed.reverse();
  return keyed.map((x) => x.e);
}

/** Builds the timeline screen. */
export function timelineScreen(source: BrowseSource, entry: StackEntry, at: bigint | undefined): Screen {
  const all = source.timeline();
  const events = sortEvents(all, entry.table.sort, at);
  const counts = { info: 0, warn: 0, error: 0 };
  let active = 0;
  let later = 0;
  for (const e of all) {
    counts[e.severity]++;
    if (at !== undefined && e.start <= at && (e.end === null || e.end > at) && e.type === 'interval') active++;
    if (at !== undefined && e.start > at) later++;
  }
  return {
    panel: [
      [
        seg(`${SEVERITY_STYLE.error.glyph} ${counts.error} error  `, SEVERITY_STYLE.error.token),
        seg(`${SEVERITY_STYLE.warn.glyph} ${counts.warn} warn  `, SEVERITY_STYLE.warn.token),
        seg(`${SEVERITY_STYLE.info.glyph} ${counts.info} info`, SEVERITY_STYLE.info.token),
        seg(`   ${active} interval(s) ongoing at the cursor`, 'label'),
        seg(later > 0 ? `   ${later} later` : '', 'muted'),
        optionalSeg(later > 0 ? ' (after the cursor)' : '', 'muted'),
      ],
    ],
    grid: eventGrid(events, at, source.instants()),
    badge: countBadge(events.length, all.length),
    empty: 'no events recorded',
    export: { format: 'json', data: events },
  };
}
