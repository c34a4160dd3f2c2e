/** The time cursor: which recorded poll instant the screens show, as a pure reducer. */

/** The known poll instants (ns, ascending, distinct), the one under the cursor, and follow mode. */
export interface CursorState {
  readonly instants: readonly bigint[];
  readonly index: number;
  /** true: the cursor moves to each new poll as it is recorded */
  readonly follow: boolean;
}

/** How many polls `{` and `}` jump. */
export const BIG_STEP = 10;

/** Cursor actions. */
export type CursorAction =
  | { readonly type: 'step'; readonly polls: number }
  | { readonly type: 'latest' }
  | { readonly type: 'set'; readonly at: bigint }
  | { readonly type: 'follow'; readonly on?: boolean }
  /** new instants were read from the store (e.g. a collector is writing) */
  | { readonly type: 'instants'; readonly instants: readonly bigint[] };

/** A cursor on the latest of the given instants (ascending). */
export function initialCursor(instants: readonly bigint[]): CursorState {
  return { instants, index: Math.max(0, instants.length - 1), follow: false };
}

/** The instant under the cursor, or undefined when nothing is recorded. */
export function cursorInstant(state: CursorState): bigint | undefined {
  return state.instants[state.index];
}

/** Index of the last instant at or before `at` (0 when `at` precedes them all). */
export function indexAtOrBefore(instants: readonly bigint[], at: bigint): number {
  let lo = 0;
  let hi = instants.length - 1;
  let found = 0;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if ((instants[mid] as bigint) <= at) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** Applies a cursor action. Moving the cursor by hand ends follow mode. */
export function reduceCursor(state: CursorState, action: CursorAction): CursorState {
  const last = Math.max(0, state.instants.length - 1);
  switch (action.type) {
    case 'step': {
      const index = Math.min(last, Math.max(0, state.index + action.polls));
      return { ...state, index, follow: false };
    }
    case 'latest':
      return { ...state, index: last };
    case 'set':
      return { ...state, index: indexAtOrBefore(state.instants, action.at), follow: false };
    case 'follow': {
      const follow = action.on ?? !state.follow;
      return { ...state, follow, index: follow ? last : state.index };
    }
    case 'instants': {
      const at = cursorInstant(state);
      const newLast = Math.max(0, action.instants.length - 1);
      const index = state.follow || at === undefined ? newLast : indexAtOrBefore(action.instants, at);
      return { ...state, instants: action.instants, index };
    }
  }
}
