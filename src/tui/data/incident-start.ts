/** Where the browser opens with `--incident`: the timeline at the worst incident, that event selected. */
import { eventKey, worstIncident } from '../../report/timeline/worst-incident.ts';
import { timelineScreen } from '../screens/timeline.ts';
import type { StartPosition } from '../state/app.ts';
import { INITIAL_TABLE } from '../state/table.ts';
import type { ViewRef } from '../state/views.ts';
import type { BrowseSource } from './source.ts';

/** The one-line hint of the keys that move through time, shown when the browser opens at an incident. */
export const TIME_KEYS_HINT = '[ ] one poll  { } ten polls  t go to a time  T latest';

/** The start view and position at the worst incident; the timeline must be computed. Undefined without an error event. */
export function incidentStart(source: BrowseSource): { view: ViewRef; position: StartPosition } | undefined {
  const worst = worstIncident(source.timeline());
  if (worst === undefined) return undefined;
  const instants = source.instants();
  const at = instants.find((t) => t >= worst.event.start) ?? instants[instants.length - 1];
  if (at === undefined) return undefined;
  const view: ViewRef = { kind: 'timeline' };
  const grid = timelineScreen(source, { view, table: INITIAL_TABLE }, at).grid;
  const key = eventKey(worst.event);
  let selected = 0;
  for (let i = 0; i < grid.rowCount; i++) {
    if (grid.key?.(i) === key) {
      selected = i;
      break;
    }
  }
  return {
    view,
    position: { at: worst.event.start, selected, flash: { tone: 'info', text: `worst incident · ${TIME_KEYS_HINT}` } },
  };
}
