/** The browser on a recorded simulator run: overview, connections, one connection, time cursor, filter, sort, help, save, resize. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoDatabase } from './helpers/demo-db.ts';
import { openBrowser, KEY, type Browser } from './helpers/render.ts';
import { crumbs, cursorLine, expectFits, lines, selectedRow } from './helpers/frame.ts';

const COLS = 120;
const ROWS = 30;

describe('browse on a recorded incident', () => {
  let b: Browser;
  const go = async (view: string): Promise<string> => b.press(':', view, KEY.enter);

  beforeAll(async () => {
    b = await openBrowser(await demoDatabase(), { columns: COLS, rows: ROWS });
  }, 120_000);
  afterAll(() => b?.close());

  it('opens on the overview: polls per operation, key figures, latest events', async () => {
    const f = await b.press('T');
    expect(f).toContain('cluster sim');
    expect(f).toContain('db demo.db');
    expect(cursorLine(f)).toMatch(/at 2026-01-01T00:20:00Z {2}poll 41\/41 \(latest\)/);
    for (const op of [
      'ListKafkaConnections',
      'GetShadowLink',
      'ListShadowTopics',
      'GetShadowTopic',
      'GetUpgradeStatus',
      'GetIcebergStatus',
    ]) {
      // every poll is on the cursor's day: the time of day is enough
      expect(f).toMatch(new RegExp(`✓ ${op} +00:20:00 `));
    }
    expect(f).toMatch(/connections +\d+ open of 214 +[▁▂▃▄▅▆▇█]+/);
    expect(f).toMatch(/produce +[\d.]+ MiB\/s/);
    expect(f).toMatch(/shadow lag +▲ worst .* records: dr-primary\/payments/);
    expect(f).toMatch(/Iceberg +catalog ✓ reachable, commit lag/);
    expect(f).toMatch(/upgrade +✓ FINALIZED/);
    expect(f).toContain('Latest events');
    expect(f).toMatch(/upgrade\.member-version/);
    expectFits(f, COLS, ROWS);
  });

  it('shows the connections at the cursor, coloured by change with glyphs, and a count badge', async () => {
    const f = await go('conn');
    expect(crumbs(f)).toMatch(/overview › connections +\[214 rows\]/);
    expect(f).toMatch(/\+ 5 new {2}× 2 closed {2}⊘ 0 vanished {2}↑ \d+ moving {2}· \d+ idle/);
    expect(f).toMatch(/UID +NODE +CLIENT ID +PRINCIPAL +STATE/);
    expect(selectedRow(f)).toMatch(/^›[↑·+×] [0-9a-f]{8}-/);
    expectFits(f, COLS, ROWS);
  });

  it('scrolls with j/k, PgDn, G and g', async () => {
    await b.press('g');
    const first = selectedRow(b.frame());
    await b.press('j', 'j');
    expect(lines(b.frame()).findIndex((l) => l.startsWith('›'))).toBe(
      lines(b.frame()).indexOf(first.replace('›', ' ')) + 2,
    );
    await b.press(KEY.pgdn);
    await b.press('G');
    const last = b.frame();
    expect(lines(last).findIndex((l) => l.startsWith('›'))).toBe(ROWS - 1 - 3);
    await b.press('k', 'g');
    expect(selectedRow(b.frame())).toBe(first);
  });

  it('sorts by column: s picks the next column, S reverses', async () => {
    let f = await b.press('s');
    expect(f).toMatch(/UID▲/);
    f = await b.press('s', 's', 's', 'S');
    expect(f).toMatch(/PRINCIPAL▼/);
    const principals = lines(f)
      .filter((l) => /^[› ][↑·+×] /.test(l))
      .map((l) => l.match(/User:\S+/)?.[0] ?? '');
    expect(principals.length).toBeGreaterThan(5);
    expect([...principals].sort().reverse()).toEqual(principals);
    await b.press('s'); // STATE
  });

  it('filters with /: valid, invalid with the error under its position, negated, cleared', async () => {
    let f = await b.press('/', 'node_id = 1');
    expect(f).toMatch(/\/node_id = 1▏/);
    expect(f).toMatch(/✓ node_id = 1/);
    f = await b.press(KEY.enter);
    const shown = Number(/shown (\d+) of 214/.exec(crumbs(f))?.[1]);
    expect(shown).toBeGreaterThan(0);
    expect(shown).toBeLessThan(214);
    expect(f).toContain('filter: node_id = 1');
    f = await b.press('/', '\u0015', 'nod_id = 1');
    const ls = lines(f);
    const prompt = ls.findIndex((l) => l.startsWith('/nod_id'));
    expect(ls[prompt + 1]).toMatch(/^ \^{6} ✗ unknown field "nod_id".*node_id/);
    f = await b.press(KEY.enter); // an invalid filter is not applied: the prompt stays
    expect(f).toMatch(/\/nod_id = 1▏/);
    f = await b.press('\u0015', '!node_id = 1', KEY.enter);
    const negated = Number(/shown (\d+) of 214/.exec(crumbs(f))?.[1]);
    expect(negated + shown).toBe(214);
    expect(f).toContain('filter: NOT (node_id = 1)');
    f = await b.press('/', KEY.esc);
    expect(crumbs(f)).toContain('[214 rows]');
    expect(f).not.toContain('filter:');
  });

  it('moves the time cursor: [ ] step one poll, { } ten, t types a time, T returns to the latest', async () => {
    let f = await b.press('[');
    expect(cursorLine(f)).toContain('at 2026-01-01T00:19:30Z  poll 40/41');
    expect(f).toMatch(/poll 00:19:30 vs 00:19:00/);
    f = await b.press('{');
    expect(cursorLine(f)).toContain('poll 30/41');
    f = await b.press('}', ']');
    expect(cursorLine(f)).toContain('poll 41/41 (latest)');
    f = await b.press('t', '00:05');
    expect(f).toContain('✓ 2026-01-01T00:05:00Z');
    f = await b.press(KEY.enter);
    expect(cursorLine(f)).toContain('at 2026-01-01T00:05:00Z');
    expect(crumbs(f)).toMatch(/\[[\d,]+ rows\]/);
    f = await b.press('t', 'soon');
    expect(f).toMatch(/✗ cannot read "soon" as a time: use 00:04:30/);
    f = await b.press(KEY.esc, 'T');
    expect(cursorLine(f)).toContain('(latest)');
  });

  it('opens one connection: identity, rate sparklines, history; Enter on a sample moves the cursor', async () => {
    let f = await b.press('g', KEY.enter);
    expect(crumbs(f)).toMatch(/connections › connection [0-9a-f-]{36}/);
    expect(f).toMatch(/^uid [0-9a-f-]{36}/m);
    expect(f).toMatch(/client id \S+ +principal User:/);
    expect(f).toMatch(/produce +[▁▂▃▄▅▆▇█]+ +[\d.]+ \S+\/s/);
    expect(f).toMatch(/History: \d+ samples/);
    expect(f).toMatch(/TIME +STATE +IDLE/);
    f = await b.press('j', KEY.enter);
    expect(cursorLine(f)).not.toContain('(latest)');
    expectFits(f, COLS, ROWS);
    f = await b.press(KEY.esc);
    expect(crumbs(f)).toMatch(/overview › connections +\[/);
    await b.press('T');
  });

  it('shows help for the current view from the keymap, and closes it', async () => {
    let f = await b.press('?');
    expect(f).toContain('Help: connections');
    expect(f).toMatch(/j ↓ +next row/);
    expect(f).toMatch(/\/ +filter rows/);
    expect(f).toMatch(/enter +open the connection/);
    expect(f).toContain('counters moving');
    expectFits(f, COLS, ROWS);
    f = await b.press('?');
    expect(f).not.toContain('Help: connections');
  });

  it('saves the view with ctrl-s and says where', async () => {
    const f = await b.press(KEY.ctrlS);
    expect(f).toContain('✓ saved CSV to /saved/connections.csv');
    const saved = JSON.parse(b.saved.at(-1)?.text ?? '{}') as { header: string[]; rows: string[][] };
    expect(saved.header).toContain('CLIENT ID');
    expect(saved.rows).toHaveLength(214);
  });

  it('follows a resize and never draws more than rows - 1 lines', async () => {
    await b.resize(90, 16);
    let f = b.frame();
    expectFits(f, 90, 16);
    expect(f).toContain('overview › connections');
    await b.resize(COLS, ROWS);
    f = b.frame();
    expectFits(f, COLS, ROWS);
    await b.resize(30, 6);
    expect(b.frame()).toContain('terminal too small');
    await b.resize(COLS, ROWS);
  });

  it('goes back along the breadcrumbs with Esc and quits with q', async () => {
    let f = await b.press(KEY.esc);
    expect(crumbs(f)).toMatch(/^overview/);
    f = await b.press(KEY.esc);
    expect(crumbs(f)).toMatch(/^overview/);
    await b.press('q');
    expect(b.quitCalled()).toBe(true);
  });
});
