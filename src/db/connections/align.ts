/**
 * Lining a frame's rows up with the previous frame's: answers mostly list the same connections in
 * the same order, so what a reader resolved for the previous frame (versions, batch slots) serves
 * the next one by position, without a lookup per row.
 */

import type { CounterVersion } from './counter-versions.ts';

/** What the previous frame resolved, by position: version ids, versions and batch slots (batch -1: a head frame). */
export interface PreviousFrame {
  readonly ids: readonly number[];
  readonly versions: readonly CounterVersion[];
  readonly batch: number;
  readonly slots: Int32Array;
}

/** How far ahead of the expected position a row is looked for in the previous frame. */
const LOOKAHEAD = 4;

/**
 * For each id, its position in the previous frame's ids, or -1: answers mostly list the same
 * connections in the same order, give or take a few opened or closed ones, so each is looked
 * for just ahead of where the previous match left off.
 */
export function alignTo(prev: readonly number[], ids: readonly number[]): Int32Array {
  const out = new Int32Array(ids.length);
  let j = 0;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    out[i] = -1;
    for (let k = j; k < j + LOOKAHEAD && k < prev.length; k++) {
      if (prev[k] === id) {
        out[i] = k;
        j = k + 1;
        break;
      }
    }
  }
  return out;
}
