/**
 * Upgrade and shadow link states as intervals: each run of one state, from the first poll that
 * showed it to the first poll that showed another (open while it lasts). A pass continues the
 * intervals left open by the previous one.
 */
import type { StateInterval } from '../../db/rollups/rollup-store.ts';

/** One observed state. */
export interface StateObservation {
  /** `upgrade` or `link/NAME` */
  readonly entity: string;
  readonly state: string;
  readonly time: bigint;
}

/** The intervals to write after `observations` (in time order): the open ones continued or closed, and the new ones. */
export function stateRuns(observations: Iterable<StateObservation>, open: readonly StateInterval[]): StateInterval[] {
  const current = new Map<string, StateInterval>(open.filter((o) => o.end === null).map((o) => [o.entity, o]));
  const out = new Map<string, StateInterval>();
  const key = (s: StateInterval): string => `${s.entity}\u0000${s.start}`;
  for (const o of observations) {
    const cur = current.get(o.entity);
    if (cur !== undefined && cur.state === o.state) continue;
    if (cur !== undefined) {
      if (o.time < cur.start) continue;
      const closed = { ...cur, end: o.time };
      out.set(key(closed), closed);
    }
    const next: StateInterval = { entity: o.entity, start: o.time, end: null, state: o.state };
    current.set(o.entity, next);
    out.set(key(next), next);
  }
  return [...out.values()];
}
