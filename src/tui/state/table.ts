/** Selection, scrolling and sort order of one table: a pure reducer. */

/** Sort order: a column index and its direction. */
export interface SortState {
  readonly column: number;
  readonly desc: boolean;
}

/** Where the selection and the first visible row are, and how rows are ordered. */
export interface TableState {
  readonly selected: number;
  readonly offset: number;
  readonly sort?: SortState;
}

/** The initial table state: first row selected, natural order. */
export const INITIAL_TABLE: TableState = { selected: 0, offset: 0 };

/** What the table needs to know about its content to move: row count and visible height. */
export interface TableExtent {
  readonly rows: number;
  readonly height: number;
}

/** Table actions. */
export type TableAction =
  | { readonly type: 'move'; readonly delta: number }
  | { readonly type: 'page'; readonly pages: number }
  | { readonly type: 'top' }
  | { readonly type: 'bottom' }
  | { readonly type: 'select'; readonly index: number }
  /** sort by a column; the same column again flips the direction */
  | { readonly type: 'sort'; readonly column: number }
  /** sort by the next column (wrapping), ascending */
  | { readonly type: 'sort-next'; readonly columns: number };

/** Keeps `selected` within the rows and scrolls so it stays visible. */
export function clampTable(state: TableState, extent: TableExtent): TableState {
  const rows = Math.max(0, extent.rows);
  const height = Math.max(1, extent.height);
  const selected = rows === 0 ? 0 : Math.min(Math.max(0, state.selected), rows - 1);
  let offset = Math.min(Math.max(0, state.offset), Math.max(0, rows - height));
  if (selected < offset) offset = selected;
  if (selected >= offset + height) offset = selected - height + 1;
  if (selected === state.selected && offset === state.offset) return state;
  return { ...state, selected, offset };
}

/** Applies a table action for a table of the given extent. */
export function reduceTable(state: TableState, action: TableAction, extent: TableExtent): TableState {
  const height = Math.max(1, extent.height);
  switch (action.type) {
    case 'move':
      return clampTable({ ...state, selected: state.selected + action.delta }, extent);
    case 'page': {
      const delta = action.pages * height;
      return clampTable({ ...state, selected: state.selected + delta, offset: state.offset + delta }, extent);
    }
    case 'top':
      return clampTable({ ...state, selected: 0, offset: 0 }, extent);
    case 'bottom':
      return clampTable({ ...state, selected: extent.rows - 1, offset: extent.rows }, extent);
    case 'select':
      return clampTable({ ...state, selected: action.index }, extent);
    case 'sort': {
      const desc = state.sort?.column === action.column ? !state.sort.desc : false;
      return { ...state, sort: { column: action.column, desc } };
    }
    case 'sort-next': {
      if (action.columns <= 0) return state;
      const column = state.sort === undefined ? 0 : (state.sort.column + 1) % action.columns;
      return { ...state, sort: { column, desc: false } };
    }
  }
}

/** The index range [start, end) of rows to draw. */
export function visibleRange(state: TableState, extent: TableExtent): { start: number; end: number } {
  const c = clampTable(state, extent);
  return { start: c.offset, end: Math.min(extent.rows, c.offset + Math.max(1, extent.height)) };
}
