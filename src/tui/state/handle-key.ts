/**
 * From a keypress to reducer actions, pure: prompt editing while a prompt is open, otherwise
 * the keymap's command for the current view. Side effects (saving, quitting) come back as an
 * `effect` for the caller to perform.
 */
import type { ResourceName } from '../../api/schema/resources.ts';
import type { RowTarget } from '../data/grid.ts';
import type { FilterCheck } from '../data/filter-check.ts';
import { commandForKey, type Command } from '../keymap.ts';
import { outsideRecording, parseTimeInput, type TimeContext } from '../time-input.ts';
import { topEntry, type AppAction, type AppState } from './app.ts';
import { BIG_STEP, cursorInstant } from './cursor.ts';
import { commonPrefix, completeLastWord } from './prompt.ts';
import type { TableAction, TableExtent } from './table.ts';
import { completeViewName, filterResource, resolveViewName, type ViewRef } from './views.ts';

/** What the handler needs to know about the screen and the helpers it may call. */
export interface KeyEnv {
  /** the current table's rows and visible height */
  readonly extent: TableExtent;
  /** number of table columns (sorting) */
  readonly columns: number;
  /** where Enter leads from the selected row (or the document shown) */
  readonly target?: RowTarget;
  /** where `e` leads: the evidence of the selected (or shown) event */
  readonly evidence?: RowTarget;
  /** the events before and after the one shown in its list, and their rows there (n, p) */
  readonly siblings?: { readonly prev?: Sibling; readonly next?: Sibling };
  /** the recorded range, for `t` */
  readonly time?: TimeContext;
  /** when the help does not fit: its line count and the lines shown (the movement keys scroll it) */
  readonly helpScroll?: { readonly rows: number; readonly height: number };
  readonly checkFilter: (text: string, resource: ResourceName) => FilterCheck;
  readonly fieldPaths: (resource: ResourceName) => readonly string[];
}

/** An event next to the one shown, in the list it was opened from. */
export interface Sibling {
  readonly view: ViewRef;
  /** its row in the list */
  readonly index: number;
}

/** Actions to apply, and an effect for the caller. */
export interface KeyOutcome {
  readonly actions: readonly AppAction[];
  /** `clusters`: open the clusters view (C, :clusters); `leave`: Esc with nothing left to go back from */
  readonly effect?: 'save' | 'quit' | 'clusters' | 'leave';
}

const none: KeyOutcome = { actions: [] };
/** `:` commands that open the clusters view. */
const CLUSTERS_COMMANDS = ['clusters', 'cluster', 'cl', 'fleet'];
const act = (...actions: AppAction[]): KeyOutcome => ({ actions });

/** Handles one keypress: `name` from keyName(), `text` true when it is printable input. */
export function handleKey(state: AppState, name: string, text: boolean, env: KeyEnv): KeyOutcome {
  if (name === 'ctrl+c') return { actions: [{ type: 'quit' }], effect: 'quit' };
  if (state.prompt !== undefined) return promptKey(state, name, text, env);
  if (state.help && (name === '?' || name === 'esc' || name === 'q')) return act({ type: 'help', on: false });
  const view = topEntry(state).view;
  const command = commandForKey(name, view.kind);
  if (command === undefined) return none;
  if (state.help && env.helpScroll !== undefined) {
    const delta = helpDelta(command, env.helpScroll.height);
    if (delta !== undefined)
      return act({ type: 'help-scroll', delta, max: Math.max(0, env.helpScroll.rows - env.helpScroll.height) });
  }
  const outcome = runCommand(command, state, env);
  // a message stays until the next key that does something
  return state.flash !== undefined ? { ...outcome, actions: [{ type: 'flash' }, ...outcome.actions] } : outcome;
}

/** How far a movement key scrolls the help; undefined for other keys. */
function helpDelta(command: Command, height: number): number | undefined {
  switch (command) {
    case 'down':
      return 1;
    case 'up':
      return -1;
    case 'page-down':
      return height;
    case 'page-up':
      return -height;
    case 'top':
      return -Infinity;
    case 'bottom':
      return Infinity;
    default:
      return undefined;
  }
}

function runCommand(command: Command, state: AppState, env: KeyEnv): KeyOutcome {
  const table = (action: TableAction): KeyOutcome => act(tableAction(action, env.extent));
  switch (command) {
    case 'down':
      return table({ type: 'move', delta: 1 });
    case 'up':
      return table({ type: 'move', delta: -1 });
    case 'page-down':
      return table({ type: 'page', pages: 1 });
    case 'page-up':
      return table({ type: 'page', pages: -1 });
    case 'top':
      return table({ type: 'top' });
    case 'bottom':
      return table({ type: 'bottom' });
    case 'sort-next':
      return table({ type: 'sort-next', columns: env.columns });
    case 'sort-reverse': {
      const column = topEntry(state).table.sort?.column ?? 0;
      return table({ type: 'sort', column });
    }
    case 'enter':
      return open(env.target);
    case 'detail':
      return env.target?.view?.kind === 'event' ? open(env.target) : none;
    case 'evidence':
      return env.evidence === undefined
        ? act({ type: 'flash', flash: { tone: 'info', text: 'no event selected' } })
        : open(env.evidence);
    case 'next-event':
    case 'prev-event': {
      const s = command === 'next-event' ? env.siblings?.next : env.siblings?.prev;
      if (s === undefined) {
        const end = command === 'next-event' ? 'last' : 'first';
        return act({ type: 'flash', flash: { tone: 'info', text: `this is the ${end} event of the list` } });
      }
      return act({ type: 'sibling', view: s.view, parentSelected: s.index });
    }
    case 'back':
      return state.stack.length === 1 && topEntry(state).filter === undefined
        ? { actions: [], effect: 'leave' }
        : act({ type: 'back' });
    case 'clusters':
      return { actions: [], effect: 'clusters' };
    case 'quit':
      return { actions: [{ type: 'quit' }], effect: 'quit' };
    case 'help':
      return act({ type: 'help' });
    case 'command':
      return act({ type: 'prompt-open', kind: 'command' });
    case 'filter': {
      const f = topEntry(state).filter;
      return act({
        type: 'prompt-open',
        kind: 'filter',
        text: f === undefined ? '' : `${f.negate ? '!' : ''}${f.expr}`,
      });
    }
    case 'time':
      return act({ type: 'prompt-open', kind: 'time' });
    case 'step-back':
      return act({ type: 'step', polls: -1 });
    case 'step-forward':
      return act({ type: 'step', polls: 1 });
    case 'jump-back':
      return act({ type: 'step', polls: -BIG_STEP });
    case 'jump-forward':
      return act({ type: 'step', polls: BIG_STEP });
    case 'latest':
      return act({ type: 'latest' });
    case 'follow':
      return act({ type: 'follow' });
    case 'mark': {
      const at = cursorInstant(state.cursor);
      return at === undefined ? none : act({ type: 'mark', at });
    }
    case 'clear-marks':
      return act({ type: 'clear-marks' });
    case 'save':
      return { actions: [], effect: 'save' };
  }
}

/** Opens a row's target: the cursor moved first when it names an instant. */
function open(t: RowTarget | undefined): KeyOutcome {
  if (t === undefined) return none;
  const filter = t.filter === undefined ? {} : { filter: t.filter };
  const drill = t.drill === true ? { drill: true } : {};
  if (t.at !== undefined) return act({ type: 'open-at', at: t.at, view: t.view, ...filter, ...drill });
  return t.view === undefined ? none : act({ type: 'push', view: t.view, ...filter });
}

function tableAction(action: TableAction, extent: TableExtent): AppAction {
  return { type: 'table', action, extent };
}

function promptKey(state: AppState, name: string, text: boolean, env: KeyEnv): KeyOutcome {
  const prompt = state.prompt;
  if (prompt === undefined) return none;
  if (text) return act({ type: 'prompt-insert', text: name });
  const resource = filterResource(topEntry(state).view);
  switch (name) {
    case 'esc':
      // Esc in the filter prompt also clears the view's filter
      return prompt.kind === 'filter'
        ? act({ type: 'prompt-close' }, { type: 'filter-clear' })
        : act({ type: 'prompt-close' });
    case 'backspace':
      return act({ type: 'prompt-backspace' });
    case 'ctrl+u':
      return act({ type: 'prompt-kill' });
    case 'tab': {
      if (prompt.kind === 'command') {
        const matches = completeViewName(prompt.text);
        const text = matches.length === 1 ? (matches[0] as string) : commonPrefix(matches);
        return text.length > prompt.text.trim().length ? act({ type: 'prompt-set', text }) : none;
      }
      if (prompt.kind === 'filter' && resource !== undefined) {
        return act({ type: 'prompt-set', text: completeLastWord(prompt.text, env.fieldPaths(resource)).text });
      }
      return none;
    }
    case 'enter':
      return submit(state, env);
    default:
      return none;
  }
}

function submit(state: AppState, env: KeyEnv): KeyOutcome {
  const prompt = state.prompt;
  if (prompt === undefined) return none;
  const close: AppAction = { type: 'prompt-close' };
  switch (prompt.kind) {
    case 'command': {
      if (prompt.text.trim() === 'q' || prompt.text.trim() === 'quit')
        return { actions: [close, { type: 'quit' }], effect: 'quit' };
      if (CLUSTERS_COMMANDS.includes(prompt.text.trim().toLowerCase())) return { actions: [close], effect: 'clusters' };
      const view = resolveViewName(prompt.text);
      if (view === undefined) {
        const known = completeViewName('').join(', ');
        return act(close, {
          type: 'flash',
          flash: { tone: 'error', text: `no view ${JSON.stringify(prompt.text.trim())}; views: ${known}` },
        });
      }
      return act(close, { type: 'goto', view });
    }
    case 'filter': {
      const resource = filterResource(topEntry(state).view);
      if (resource === undefined) return act(close);
      const check = env.checkFilter(prompt.text, resource);
      if (!check.ok) return none; // the error is on screen; the prompt stays open
      return check.filter === undefined
        ? act(close, { type: 'filter-clear' })
        : act(close, { type: 'filter-set', filter: check.filter });
    }
    case 'time': {
      if (env.time === undefined) return act(close);
      try {
        const at = parseTimeInput(prompt.text, env.time);
        const outside = outsideRecording(at, env.time);
        // a time outside the recording goes to its nearest end, and says so
        return outside === undefined
          ? act(close, { type: 'set', at })
          : act(close, { type: 'set', at }, { type: 'flash', flash: { tone: 'info', text: outside } });
      } catch {
        return none; // the error is on screen, the prompt stays open
      }
    }
  }
}
