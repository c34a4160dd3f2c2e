/** The navigation state as pure reducers: view stack, time cursor, marks, prompt, table, and the key handler. */
import { describe, expect, it } from 'vitest';
import { initialState, reduceApp, topEntry, breadcrumbs, type AppState } from '../../src/tui/state/app.ts';
import { cursorInstant, indexAtOrBefore, reduceCursor, initialCursor } from '../../src/tui/state/cursor.ts';
import { diffRange, reduceMarks } from '../../src/tui/state/marks.ts';
import { completeLastWord, reducePrompt, splitNegation } from '../../src/tui/state/prompt.ts';
import { clampTable, reduceTable, visibleRange, INITIAL_TABLE } from '../../src/tui/state/table.ts';
import { handleKey, type KeyEnv } from '../../src/tui/state/handle-key.ts';
import { completeViewName, resolveViewName } from '../../src/tui/state/views.ts';
import { checkFilterText, fieldPaths } from '../../src/tui/data/filter-check.ts';

const T = (s: number): bigint => 1_767_225_600_000_000_000n + BigInt(s) * 1_000_000_000n;
const INSTANTS = [T(0), T(30), T(60), T(90), T(120)];

const env = (over: Partial<KeyEnv> = {}): KeyEnv => ({
  extent: { rows: 100, height: 10 },
  columns: 5,
  time: { first: T(0), latest: T(120), cursor: T(120), now: T(150) },
  checkFilter: checkFilterText,
  fieldPaths,
  ...over,
});

/** Runs keys through handleKey and the reducer. */
function keys(state: AppState, names: readonly string[], e: KeyEnv = env()): AppState {
  let s = state;
  for (const n of names) {
    // eslint-disable-next-line no-control-regex -- tells printable key names from control characters
    const text = n.length === 1 && !/[\u0000-\u001f]/.test(n);
    for (const a of handleKey(s, n, text, e).actions) s = reduceApp(s, a);
  }
  return s;
}

describe('view stack', () => {
  it('starts on the overview, pushes on Enter targets, pops on Esc', () => {
    let s = initialState(INSTANTS);
    expect(breadcrumbs(s).map((v) => v.kind)).toEqual(['overview']);
    s = reduceApp(s, { type: 'goto', view: 'connections' });
    s = reduceApp(s, { type: 'push', view: { kind: 'connection', uid: 'u1' } });
    expect(breadcrumbs(s).map((v) => v.kind)).toEqual(['overview', 'connections', 'connection']);
    s = reduceApp(s, { type: 'back' });
    expect(topEntry(s).view.kind).toBe('connections');
    s = reduceApp(s, { type: 'back' });
    s = reduceApp(s, { type: 'back' });
    expect(breadcrumbs(s).map((v) => v.kind)).toEqual(['overview']);
  });

  it('pushing the view on top again does nothing; a filtered push replaces its filter', () => {
    let s = reduceApp(initialState(INSTANTS), { type: 'goto', view: 'connections' });
    const same = reduceApp(s, { type: 'push', view: { kind: 'connections' } });
    expect(same).toBe(s);
    s = reduceApp(s, { type: 'push', view: { kind: 'connections' }, filter: { expr: 'node_id = 2', negate: false } });
    expect(s.stack).toHaveLength(2);
    expect(topEntry(s).filter?.expr).toBe('node_id = 2');
  });

  it('Esc clears the filter before going back, and closes help first', () => {
    let s = reduceApp(initialState(INSTANTS), { type: 'goto', view: 'connections' });
    s = reduceApp(s, { type: 'filter-set', filter: { expr: 'node_id = 1', negate: true } });
    s = reduceApp(s, { type: 'help', on: true });
    s = reduceApp(s, { type: 'back' });
    expect(s.help).toBe(false);
    expect(topEntry(s).filter).toBeDefined();
    s = reduceApp(s, { type: 'back' });
    expect(topEntry(s).filter).toBeUndefined();
    expect(topEntry(s).view.kind).toBe('connections');
  });

  it('open-at moves the time cursor and opens the entity', () => {
    const s = reduceApp(initialState(INSTANTS), {
      type: 'open-at',
      at: T(65),
      view: { kind: 'shadow-link', link: 'dr' },
    });
    expect(cursorInstant(s.cursor)).toBe(T(60));
    expect(topEntry(s).view).toEqual({ kind: 'shadow-link', link: 'dr' });
  });

  it('each entry keeps its own table position', () => {
    let s = reduceApp(initialState(INSTANTS), { type: 'goto', view: 'connections' });
    s = reduceApp(s, { type: 'table', action: { type: 'move', delta: 5 }, extent: { rows: 50, height: 10 } });
    s = reduceApp(s, { type: 'push', view: { kind: 'connection', uid: 'x' } });
    expect(topEntry(s).table.selected).toBe(0);
    s = reduceApp(s, { type: 'back' });
    expect(topEntry(s).table.selected).toBe(5);
  });
});

describe('time cursor', () => {
  it('steps, jumps, clamps, sets and returns to the latest', () => {
    let c = initialCursor(INSTANTS);
    expect(cursorInstant(c)).toBe(T(120));
    c = reduceCursor(c, { type: 'step', polls: -1 });
    expect(cursorInstant(c)).toBe(T(90));
    c = reduceCursor(c, { type: 'step', polls: -10 });
    expect(cursorInstant(c)).toBe(T(0));
    c = reduceCursor(c, { type: 'step', polls: 99 });
    expect(cursorInstant(c)).toBe(T(120));
    c = reduceCursor(c, { type: 'set', at: T(75) });
    expect(cursorInstant(c)).toBe(T(60));
    c = reduceCursor(c, { type: 'set', at: T(-50) });
    expect(cursorInstant(c)).toBe(T(0));
    c = reduceCursor(c, { type: 'latest' });
    expect(cursorInstant(c)).toBe(T(120));
  });

  it('follow mode rides new instants; a manual step ends it', () => {
    let c = reduceCursor(initialCursor(INSTANTS), { type: 'follow' });
    expect(c.follow).toBe(true);
    c = reduceCursor(c, { type: 'instants', instants: [...INSTANTS, T(150)] });
    expect(cursorInstant(c)).toBe(T(150));
    c = reduceCursor(c, { type: 'step', polls: -1 });
    expect(c.follow).toBe(false);
    c = reduceCursor(c, { type: 'instants', instants: [...INSTANTS, T(150), T(180)] });
    expect(cursorInstant(c)).toBe(T(120));
  });

  it('finds the instant at or before a time by bisection', () => {
    expect(indexAtOrBefore(INSTANTS, T(30))).toBe(1);
    expect(indexAtOrBefore(INSTANTS, T(31))).toBe(1);
    expect(indexAtOrBefore(INSTANTS, T(500))).toBe(4);
    expect(indexAtOrBefore([], T(5))).toBe(0);
  });
});

describe('marks', () => {
  it('marks A then B, and a third mark starts over', () => {
    let m = reduceMarks({}, { type: 'mark', at: T(60) });
    expect(diffRange(m, T(120))).toEqual({ from: T(60), to: T(120) });
    expect(diffRange(m, T(60))).toBeUndefined();
    m = reduceMarks(m, { type: 'mark', at: T(0) });
    expect(diffRange(m, T(120))).toEqual({ from: T(0), to: T(60) });
    m = reduceMarks(m, { type: 'mark', at: T(90) });
    expect(m).toEqual({ a: T(90) });
    expect(reduceMarks(m, { type: 'clear-marks' })).toEqual({});
  });
});

describe('table', () => {
  const extent = { rows: 10_000, height: 20 };
  it('moves, pages and keeps the selection in view', () => {
    let t = reduceTable(INITIAL_TABLE, { type: 'move', delta: 25 }, extent);
    expect(t.selected).toBe(25);
    expect(t.offset).toBe(6);
    t = reduceTable(t, { type: 'page', pages: 1 }, extent);
    expect(t.selected).toBe(45);
    t = reduceTable(t, { type: 'bottom' }, extent);
    expect(t).toMatchObject({ selected: 9_999, offset: 9_980 });
    expect(visibleRange(t, extent)).toEqual({ start: 9_980, end: 10_000 });
    t = reduceTable(t, { type: 'move', delta: 1 }, extent);
    expect(t.selected).toBe(9_999);
    t = reduceTable(t, { type: 'top' }, extent);
    expect(t).toMatchObject({ selected: 0, offset: 0 });
  });

  it('clamps when the rows shrink (a filter, another instant)', () => {
    expect(clampTable({ selected: 50, offset: 40 }, { rows: 5, height: 20 })).toMatchObject({ selected: 4, offset: 0 });
    expect(clampTable({ selected: 3, offset: 0 }, { rows: 0, height: 20 })).toMatchObject({ selected: 0, offset: 0 });
  });

  it('sorts by a column, flips on the same column, cycles with sort-next', () => {
    let t = reduceTable(INITIAL_TABLE, { type: 'sort', column: 2 }, extent);
    expect(t.sort).toEqual({ column: 2, desc: false });
    t = reduceTable(t, { type: 'sort', column: 2 }, extent);
    expect(t.sort).toEqual({ column: 2, desc: true });
    t = reduceTable(t, { type: 'sort-next', columns: 3 }, extent);
    expect(t.sort).toEqual({ column: 0, desc: false });
  });
});

describe('prompt', () => {
  it('edits text and splits the negation', () => {
    let p = reducePrompt(undefined, { type: 'prompt-open', kind: 'filter' });
    p = reducePrompt(p, { type: 'prompt-insert', text: '!node_id = 1x' });
    p = reducePrompt(p, { type: 'prompt-backspace' });
    expect(p?.text).toBe('!node_id = 1');
    expect(splitNegation(p?.text ?? '')).toEqual({ negate: true, expr: 'node_id = 1', offset: 1 });
    expect(reducePrompt(p, { type: 'prompt-close' })).toBeUndefined();
  });

  it('completes view names and field paths', () => {
    expect(resolveViewName('conn')).toBe('connections');
    expect(resolveViewName('sh')).toBe('shadow-links');
    expect(resolveViewName('tl')).toBe('timeline');
    expect(resolveViewName('x')).toBeUndefined();
    expect(completeViewName('')).toContain('iceberg');
    expect(completeLastWord('state = OPEN AND cli', fieldPaths('connections')).text).toBe('state = OPEN AND client_');
    expect(completeLastWord('authentication_info.user_p', fieldPaths('connections')).text).toBe(
      'authentication_info.user_principal',
    );
  });

  it('checks filters with the error position shifted past the `!`', () => {
    expect(checkFilterText('node_id = 2', 'connections')).toMatchObject({
      ok: true,
      filter: { expr: 'node_id = 2', negate: false },
    });
    const bad = checkFilterText('!nod_id = 2', 'connections');
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.start).toBe(1);
      expect(bad.message).toMatch(/nod_id/);
    }
    expect(checkFilterText('   ', 'connections')).toMatchObject({ ok: true, filter: undefined });
    const odd = checkFilterText('state = OPNE', 'connections');
    expect(odd.ok && odd.warnings.length).toBeGreaterThan(0);
  });
});

describe('keys', () => {
  const start = (): AppState => reduceApp(initialState(INSTANTS), { type: 'goto', view: 'connections' });

  it('j/k, g/G, PgDn move the table through the keymap', () => {
    let s = keys(start(), ['j', 'j', 'down', 'k']);
    expect(topEntry(s).table.selected).toBe(2);
    s = keys(s, ['G']);
    expect(topEntry(s).table.selected).toBe(99);
    s = keys(s, ['g', 'pgdn']);
    expect(topEntry(s).table.selected).toBe(10);
  });

  it('[ ] { } T move the time cursor', () => {
    let s = keys(start(), ['[', '[']);
    expect(cursorInstant(s.cursor)).toBe(T(60));
    s = keys(s, [']']);
    expect(cursorInstant(s.cursor)).toBe(T(90));
    s = keys(s, ['{']);
    expect(cursorInstant(s.cursor)).toBe(T(0));
    s = keys(s, ['}', '[', 'T']);
    expect(cursorInstant(s.cursor)).toBe(T(120));
  });

  it('t opens the time prompt; a valid time moves the cursor, a bad one keeps the prompt open', () => {
    let s = keys(start(), ['t', '-', '1', 'm', 'enter']);
    expect(s.prompt).toBeUndefined();
    expect(cursorInstant(s.cursor)).toBe(T(60)); // -1m counts back from the cursor (T(120))
    const at60 = env({ time: { first: T(0), latest: T(120), cursor: T(60), now: T(150) } });
    s = keys(s, ['t', '+', '3', '0', 's', 'enter'], at60);
    expect(cursorInstant(s.cursor)).toBe(T(90)); // +30s forward from the cursor
    s = keys(s, ['t', 'x', 'enter']);
    expect(s.prompt?.kind).toBe('time');
    s = keys(s, ['esc']);
    expect(s.prompt).toBeUndefined();
  });

  it(': goes to a view by name; an unknown name says so', () => {
    let s = keys(start(), [':', 't', 'l', 'enter']);
    expect(topEntry(s).view.kind).toBe('timeline');
    s = keys(s, [':', 'z', 'z', 'enter']);
    expect(s.flash?.tone).toBe('error');
    expect(topEntry(s).view.kind).toBe('timeline');
    s = keys(s, [':', 'i', 'c', 'tab', 'enter']);
    expect(topEntry(s).view.kind).toBe('iceberg');
    s = keys(s, [':', 's', 'h', 'a', 'tab']);
    expect(s.prompt?.text).toBe('shadow-links');
    s = keys(s, ['esc', ':', 'c', 'o', 'tab']);
    expect(s.prompt?.text).toBe('connections');
  });

  it('/ applies a valid filter, keeps the prompt open on an invalid one, Esc clears', () => {
    const type = (text: string): string[] => Array.from(text);
    let s = keys(start(), ['/', ...type('node_id = 1'), 'enter']);
    expect(topEntry(s).filter).toEqual({ expr: 'node_id = 1', negate: false });
    s = keys(s, ['/', 'ctrl+u', ...type('!state = OPEN'), 'enter']);
    expect(topEntry(s).filter).toEqual({ expr: 'state = OPEN', negate: true });
    s = keys(s, ['/', 'ctrl+u', ...type('bogus = 1'), 'enter']);
    expect(s.prompt?.kind).toBe('filter');
    s = keys(s, ['esc']);
    expect(s.prompt).toBeUndefined();
    expect(topEntry(s).filter).toBeUndefined();
  });

  it('Enter follows the selected row target; m marks; ? toggles help; q and ctrl+c quit', () => {
    let s = keys(start(), ['enter'], env({ target: { view: { kind: 'connection', uid: 'abc' } } }));
    expect(topEntry(s).view).toEqual({ kind: 'connection', uid: 'abc' });
    s = keys(s, ['m', '[', 'm']);
    expect(s.marks).toEqual({ a: T(120), b: T(90) });
    s = keys(s, ['?']);
    expect(s.help).toBe(true);
    s = keys(s, ['?']);
    expect(s.help).toBe(false);
    expect(handleKey(s, 'q', true, env()).effect).toBe('quit');
    expect(handleKey({ ...s, prompt: { kind: 'filter', text: 'q' } }, 'ctrl+c', false, env()).effect).toBe('quit');
    expect(handleKey(s, 'ctrl+s', false, env()).effect).toBe('save');
  });

  it('s cycles the sort column and S reverses it', () => {
    let s = keys(start(), ['s', 's']);
    expect(topEntry(s).table.sort).toEqual({ column: 1, desc: false });
    s = keys(s, ['S']);
    expect(topEntry(s).table.sort).toEqual({ column: 1, desc: true });
  });

  it('filter keys do nothing in views without a filter', () => {
    const s = keys(initialState(INSTANTS), ['/']);
    expect(s.prompt).toBeUndefined();
  });
});
