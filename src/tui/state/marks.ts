/** The two marked instants a diff compares: a pure reducer. */

/** Marks A and B (ns); the diff runs from the earlier to the later. */
export interface MarksState {
  readonly a?: bigint;
  readonly b?: bigint;
}

/** Mark actions. */
export type MarksAction = { readonly type: 'mark'; readonly at: bigint } | { readonly type: 'clear-marks' };

/** `mark` sets A, then B; a third mark starts over with A. Marking the same instant twice is ignored. */
export function reduceMarks(state: MarksState, action: MarksAction): MarksState {
  switch (action.type) {
    case 'clear-marks':
      return {};
    case 'mark':
      if (state.a === undefined) return { a: action.at };
      if (state.b === undefined) return state.a === action.at ? state : { a: state.a, b: action.at };
      return { a: action.at };
  }
}

/** The diff range: the marks in time order, or mark A against the cursor when B is not set. */
export function diffRange(marks: MarksState, cursor: bigint | undefined): { from: bigint; to: bigint } | undefined {
  const other = marks.b ?? cursor;
  if (marks.a === undefined || other === undefined || other === marks.a) return undefined;
  return marks.a < other ? { from: marks.a, to: other } : { from: other, to: marks.a };
}
