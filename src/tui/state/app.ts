/** The browser's whole navigation state (view stack, time cursor, marks, prompt, help) as one pure reducer. */
import { cursorInstant, initialCursor, reduceCursor, type CursorAction, type CursorState } from './cursor.ts';
import { reduceMarks, type MarksAction, type MarksState } from './marks.ts';
import { reducePrompt, type PromptAction, type PromptState } from './prompt.ts';
import { INITIAL_TABLE, reduceTable, type TableAction, type TableExtent, type TableState } from './table.ts';
import { sameView, type TopView, type ViewRef } from './views.ts';

/** A filter applied to a view's rows. */
export interface ActiveFilter {
  readonly expr: string;
  readonly negate: boolean;
}

/** One screen on the view stack, with its own table position and filter. */
export interface StackEntry {
  readonly view: ViewRef;
  readonly table: TableState;
  readonly filter?: ActiveFilter;
  /**
   * opened by a drill-down (an event's evidence): one Esc closes it, filter and all, and puts
   * the time cursor back where it was (`returnAt`)
   */
  readonly drilled?: { readonly returnAt?: bigint };
}

/** A one-line message in the status line (saved file, bad time, ...). */
export interface Flash {
  readonly text: string;
  readonly tone: 'ok' | 'info' | 'warn' | 'error';
}

/** Everything the browser remembers between keypresses. */
export interface AppState {
  /** never empty; the last entry is on screen */
  readonly stack: readonly StackEntry[];
  readonly cursor: CursorState;
  readonly marks: MarksState;
  readonly prompt?: PromptState;
  readonly help: boolean;
  /** first help line shown when the help scrolls (a small terminal) */
  readonly helpOffset?: number;
  readonly flash?: Flash;
  readonly quit: boolean;
}

/** Every action the reducer understands. */
export type AppAction =
  | CursorAction
  | MarksAction
  | PromptAction
  | { readonly type: 'table'; readonly action: TableAction; readonly extent: TableExtent }
  /** `:name`: the named view, with the overview under it */
  | { readonly type: 'goto'; readonly view: TopView }
  /** drill down (Enter) */
  | { readonly type: 'push'; readonly view: ViewRef; readonly filter?: ActiveFilter }
  /** move the time cursor, then drill down (an event's entity); `drill`: one Esc comes back, cursor and all */
  | {
      readonly type: 'open-at';
      readonly at: bigint;
      readonly view?: ViewRef;
      readonly filter?: ActiveFilter;
      readonly drill?: boolean;
    }
  /** replaces the view on top (the next event of a list) and selects its row in the view under it */
  | { readonly type: 'sibling'; readonly view: ViewRef; readonly parentSelected: number }
  /** Esc: close help, else clear the filter, else pop the stack */
  | { readonly type: 'back' }
  | { readonly type: 'filter-set'; readonly filter: ActiveFilter }
  | { readonly type: 'filter-clear' }
  | { readonly type: 'help'; readonly on?: boolean }
  /** scrolls the help by `delta` lines, within 0..max */
  | { readonly type: 'help-scroll'; readonly delta: number; readonly max: number }
  | { readonly type: 'flash'; readonly flash?: Flash }
  | { readonly type: 'quit' };

/** Where the browser opens beyond its view: an instant for the cursor, a selected row, a message. */
export interface StartPosition {
  /** the cursor goes to the first recorded instant at or after it (default: the latest poll) */
  readonly at?: bigint;
  /** the row selected in the start view's table */
  readonly selected?: number;
  /** shown in the status line until the first key */
  readonly flash?: Flash;
}

/** The first instant at or after `at` (the latest when none is). */
function indexAtOrAfter(instants: readonly bigint[], at: bigint): number {
  const i = instants.findIndex((t) => t >= at);
  return i < 0 ? Math.max(0, instants.length - 1) : i;
}

/** The state at start-up: the given view over the overview (or the overview alone), cursor on the latest poll or `position.at`. */
export function initialState(
  instants: readonly bigint[],
  start: ViewRef = { kind: 'overview' },
  position: StartPosition = {},
): AppState {
  const table: TableState =
    position.selected === undefined ? INITIAL_TABLE : { ...INITIAL_TABLE, selected: position.selected };
  const stack: StackEntry[] = [
    { view: { kind: 'overview' }, table: start.kind === 'overview' ? table : INITIAL_TABLE },
  ];
  if (start.kind !== 'overview') stack.push({ view: start, table });
  const cursor = initialCursor(instants);
  const placed = position.at === undefined ? cursor : { ...cursor, index: indexAtOrAfter(instants, position.at) };
  const state: AppState = { stack, cursor: placed, marks: {}, help: false, quit: false };
  return position.flash === undefined ? state : { ...state, flash: position.flash };
}

/** The entry on screen. */
export function topEntry(state: AppState): StackEntry {
  return state.stack[state.stack.length - 1] as StackEntry;
}

function replaceTop(state: AppState, entry: StackEntry): AppState {
  return { ...state, stack: [...state.stack.slice(0, -1), entry] };
}

function push(state: AppState, view: ViewRef, filter?: ActiveFilter, drilled?: StackEntry['drilled']): AppState {
  const entry: StackEntry = {
    view,
    table: INITIAL_TABLE,
    ...(filter === undefined ? {} : { filter }),
    ...(drilled === undefined ? {} : { drilled }),
  };
  if (sameView(topEntry(state).view, view) && drilled === undefined)
    return filter === undefined ? state : replaceTop(state, entry);
  return { ...state, help: false, stack: [...state.stack, entry] };
}

/** Applies one action. */
export function reduceApp(state: AppState, action: AppAction): AppState {
  switch (action.type) {
    case 'step':
    case 'latest':
    case 'set':
    case 'follow':
    case 'instants': {
      const cursor = reduceCursor(state.cursor, action);
      return cursor === state.cursor ? state : { ...state, cursor };
    }
    case 'mark':
    case 'clear-marks':
      return { ...state, marks: reduceMarks(state.marks, action) };
    case 'prompt-open':
    case 'prompt-insert':
    case 'prompt-backspace':
    case 'prompt-kill':
    case 'prompt-set':
    case 'prompt-close': {
      const prompt = reducePrompt(state.prompt, action);
      const { prompt: _old, ...rest } = state;
      return prompt === undefined ? rest : { ...rest, prompt, help: false };
    }
    case 'table': {
      const top = topEntry(state);
      const table = reduceTable(top.table, action.action, action.extent);
      return table === top.table ? state : replaceTop(state, { ...top, table });
    }
    case 'goto': {
      const stack: StackEntry[] = [{ view: { kind: 'overview' }, table: state.stack[0]?.table ?? INITIAL_TABLE }];
      if (action.view !== 'overview') stack.push({ view: { kind: action.view }, table: INITIAL_TABLE });
      return { ...state, help: false, stack };
    }
    case 'push':
      return push(state, action.view, action.filter);
    case 'open-at': {
      const moved = { ...state, cursor: reduceCursor(state.cursor, { type: 'set', at: action.at }) };
      if (action.view === undefined) return moved;
      const from = cursorInstant(state.cursor);
      const drilled = action.drill === true ? (from === undefined ? {} : { returnAt: from }) : undefined;
      return push(moved, action.view, action.filter, drilled);
    }
    case 'sibling': {
      if (state.stack.length < 2) return state;
      const parent = state.stack[state.stack.length - 2] as StackEntry;
      const table = { ...parent.table, selected: Math.max(0, action.parentSelected) };
      return {
        ...state,
        stack: [...state.stack.slice(0, -2), { ...parent, table }, { view: action.view, table: INITIAL_TABLE }],
      };
    }
    case 'back': {
      if (state.help) return { ...state, help: false };
      const top = topEntry(state);
      if (top.drilled !== undefined && state.stack.length > 1) {
        const back = top.drilled.returnAt;
        const popped = { ...state, stack: state.stack.slice(0, -1) };
        return back === undefined
          ? popped
          : { ...popped, cursor: reduceCursor(state.cursor, { type: 'set', at: back }) };
      }
      if (top.filter !== undefined) {
        const { filter: _f, ...entry } = top;
        return replaceTop(state, entry);
      }
      return state.stack.length > 1 ? { ...state, stack: state.stack.slice(0, -1) } : state;
    }
    case 'filter-set':
      return replaceTop(state, {
        ...topEntry(state),
        filter: action.filter,
        table: { ...topEntry(state).table, selected: 0, offset: 0 },
      });
    case 'filter-clear': {
      const { filter: _f, ...entry } = topEntry(state);
      return replaceTop(state, entry);
    }
    case 'help':
      return { ...state, help: action.on ?? !state.help, helpOffset: 0 };
    case 'help-scroll':
      return { ...state, helpOffset: Math.max(0, Math.min(action.max, (state.helpOffset ?? 0) + action.delta)) };
    case 'flash': {
      const { flash: _old, ...rest } = state;
      return action.flash === undefined ? rest : { ...rest, flash: action.flash };
    }
    case 'quit':
      return { ...state, quit: true };
  }
}

/** The breadcrumbs: the views on the stack, bottom first. */
export function breadcrumbs(state: AppState): ViewRef[] {
  return state.stack.map((e) => e.view);
}
