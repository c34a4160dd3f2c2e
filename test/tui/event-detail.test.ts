/**
 * An event whole and its evidence: the detail page (pure), the drill-down filter read from the
 * evidence (pure), the view stack around them (one Esc back, cursor and all; next/previous), and
 * the browser on the recorded incident (Enter or d from the timeline and the overview, n/p, e).
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TimelineEvent } from '../../src/report/timeline/types.ts';
import { checkFilterText } from '../../src/tui/data/filter-check.ts';
import { exportPath, saveExport } from '../../src/tui/data/export.ts';
import { eventDocument, evidenceLines } from '../../src/tui/screens/event.ts';
import { eventCells } from '../../src/tui/screens/events.ts';
import { evidenceNames, evidenceTarget } from '../../src/tui/screens/evidence-target.ts';
import { initialState, reduceApp, topEntry } from '../../src/tui/state/app.ts';
import { cursorInstant } from '../../src/tui/state/cursor.ts';
import { demoDatabase } from './helpers/demo-db.ts';
import { crumbs, cursorLine, expectFits, lines, selectedRow } from './helpers/frame.ts';
import { KEY, openBrowser, tick, type Browser } from './helpers/render.ts';

const S = 1_000_000_000n;
const T = (s: number): bigint => 1_767_225_600n * S + BigInt(s) * S;
const INSTANTS = [T(0), T(30), T(60), T(90), T(120), T(150)];

const auth: TimelineEvent = {
  kind: 'connections.auth-failures',
  severity: 'error',
  entity: 'listener/external',
  related: [],
  type: 'interval',
  start: T(40),
  end: T(130),
  startedBefore: false,
  description: 'authentication failures on listener external: 900 failed connections from 40 addresses',
  evidence: {
    before: {},
    during: { failures: '900', clients: 'svc-legacy-client (899), evil"client* (1)' },
    after: {},
    pollIds: [131n, 148n],
  },
};

const text = (ls: ReturnType<typeof evidenceLines>): string[] => ls.map((l) => l.map((s) => s.text).join(''));

describe('the evidence drill-down', () => {
  it('reads the names of an evidence list back, and none from a list that was cut', () => {
    expect(evidenceNames('svc-legacy-client (900)')).toEqual(['svc-legacy-client']);
    expect(evidenceNames('a (12), b (3)')).toEqual(['a', 'b']);
    expect(evidenceNames('a (12), b (3), +4 more')).toBeUndefined();
    expect(evidenceNames('not a list')).toBeUndefined();
    expect(evidenceNames('')).toBeUndefined();
    expect(evidenceNames(undefined)).toBeUndefined();
  });

  it('filters the auth failures to the failing connections of the clients named, at the first poll showing them', () => {
    const t = evidenceTarget(auth, INSTANTS);
    expect(t.at).toBe(T(60));
    expect(t.view).toEqual({ kind: 'connections' });
    expect(t.drill).toBe(true);
    const expr = t.filter?.expr ?? '';
    expect(expr).toBe(
      'listener_name = "external" AND authentication_info.state = FAILURE AND (client_id = "svc-legacy-client" OR client_id = "evil\\"client\\*")',
    );
    // a client id with quotes and wildcards stays a literal of a valid filter
    expect(checkFilterText(expr, 'connections').ok).toBe(true);
    // a cut list of clients is no filter: the listener and the failed state still select them
    const cut = { ...auth, evidence: { ...auth.evidence, during: { clients: 'a (3), b (2), c (1), +9 more' } } };
    expect(evidenceTarget(cut, INSTANTS).filter?.expr).toBe(
      'listener_name = "external" AND authentication_info.state = FAILURE',
    );
  });

  it('opens the view of other evidence: a broker, new software, a member, an Iceberg topic', () => {
    const at = (e: Partial<TimelineEvent>): ReturnType<typeof evidenceTarget> =>
      evidenceTarget({ ...auth, evidence: { before: {}, during: {}, after: {}, pollIds: [] }, ...e }, INSTANTS);
    expect(at({ kind: 'connections.broker-empty', entity: 'broker/2' }).filter?.expr).toBe('node_id = 2');
    const software = at({
      kind: 'connections.new-software-version',
      entity: 'software/apache-kafka-java/2.8.1',
      type: 'point',
      evidence: {
        before: {},
        during: {},
        after: {
          clientSoftwareName: 'apache-kafka-java',
          clientSoftwareVersion: '2.8.1',
          clientId: 'svc-legacy-client',
        },
        pollIds: [],
      },
    });
    expect(software.filter?.expr).toBe(
      'client_software_name = "apache-kafka-java" AND client_software_version = "2.8.1" AND client_id = "svc-legacy-client"',
    );
    expect(at({ kind: 'upgrade.member-down', entity: 'broker/1' })).toMatchObject({
      view: { kind: 'upgrade' },
      filter: { expr: 'node_id = 1' },
    });
    expect(at({ kind: 'iceberg.commit-stall', entity: 'iceberg-topic/clickstream' })).toMatchObject({
      view: { kind: 'iceberg' },
      filter: { expr: 'topic = "clickstream"' },
    });
    expect(at({ kind: 'shadow.lag-growing', entity: 'shadow-topic/dr/orders' }).view).toEqual({
      kind: 'shadow-topic',
      link: 'dr',
      topic: 'orders',
    });
  });
});

describe('the detail page', () => {
  const ctx = { at: T(150), latest: T(150), position: 'event 3 of 9 in the timeline', evidenceText: 'connections' };

  it('says everything about the event within the width: entity, start and end, description, evidence, polls', () => {
    const page = text(eventDocument(auth, ctx, 60));
    for (const l of page) expect(Array.from(l).length, l).toBeLessThanOrEqual(60);
    const all = page.join('\n');
    expect(all).toMatch(/^✖ error {2}connections\.auth-failures/);
    expect(all).toMatch(/^entity {6}listener\/external/m);
    expect(all).toMatch(/^start {7}2026-01-01T00:00:40Z/m);
    expect(all).toMatch(/^end {9}2026-01-01T00:02:10Z lasted 1m30s/m);
    expect(all).toContain('from 40 addresses'); // the description whole, wrapped
    expect(all).toMatch(/FIELD +BEFORE +DURING +AFTER \(ENDED\)/);
    expect(all).toMatch(/clients +- +svc-legacy-client \(899\),/);
    expect(all).toMatch(/poll 131\n {2}poll 148/);
  });

  it('marks a start it could not see (≤) and one dated back (↶), with when it was detected', () => {
    const dated = { ...auth, detectedAt: T(60) };
    expect(eventCells(dated, T(150))[0]).toMatch(/^↶/);
    expect(eventCells({ ...auth, startedBefore: true }, T(150))[0]).toMatch(/^≤/);
    expect(eventCells(auth, T(150))[0]).not.toMatch(/^[≤↶]/);
    const page = text(eventDocument(dated, ctx, 100)).join('\n');
    expect(page).toMatch(/^detected {4}2026-01-01T00:01:00Z ↶ the start was dated back 20s/m);
    const before = text(eventDocument({ ...auth, startedBefore: true }, ctx, 100)).join('\n');
    expect(before).toContain('≤ it was already so at the first observation');
    expect(before).toContain('lasted at least 1m30s');
  });

  it('is safe with hostile text: control characters escaped, a huge value wrapped, never wider than the page', () => {
    const evil: TimelineEvent = {
      ...auth,
      description: `bad\u001b[2J${'x'.repeat(5_000)}`,
      entity: 'listener/\u0007bell',
      evidence: { ...auth.evidence, during: { ['k\u001b']: 'v'.repeat(3_000) } },
    };
    const page = text(eventDocument(evil, ctx, 50));
    for (const l of page) {
      expect(Array.from(l).length).toBeLessThanOrEqual(50);
      // eslint-disable-next-line no-control-regex -- checks that no control character is drawn
      expect(l).not.toMatch(/[\u0000-\u001f]/);
    }
    expect(page.join('')).toContain('\\x1b[2J');
  });
});

describe('the view stack around an event', () => {
  it('one Esc closes a drill-down, filter and all, and puts the time cursor back', () => {
    let s = reduceApp(initialState(INSTANTS), { type: 'goto', view: 'timeline' });
    s = reduceApp(s, { type: 'push', view: { kind: 'event', key: 'k' } });
    s = reduceApp(s, {
      type: 'open-at',
      at: T(60),
      view: { kind: 'connections' },
      filter: { expr: 'node_id = 2', negate: false },
      drill: true,
    });
    expect(cursorInstant(s.cursor)).toBe(T(60));
    expect(topEntry(s).filter?.expr).toBe('node_id = 2');
    s = reduceApp(s, { type: 'back' });
    expect(topEntry(s).view).toEqual({ kind: 'event', key: 'k' });
    expect(cursorInstant(s.cursor)).toBe(T(150));
  });

  it('the next event replaces the detail and moves the selection of the list under it', () => {
    let s = reduceApp(initialState(INSTANTS), { type: 'goto', view: 'timeline' });
    s = reduceApp(s, { type: 'push', view: { kind: 'event', key: 'a' } });
    s = reduceApp(s, { type: 'sibling', view: { kind: 'event', key: 'b' }, parentSelected: 4 });
    expect(s.stack.map((e) => e.view.kind)).toEqual(['overview', 'timeline', 'event']);
    expect(topEntry(s).view).toEqual({ kind: 'event', key: 'b' });
    expect(s.stack[1]?.table.selected).toBe(4);
  });
});

describe('ctrl-s', () => {
  it('writes the view for the owner only, and never over a file that exists', () => {
    const dir = mkdtempSync(join(tmpdir(), 'flightrec-save-'));
    try {
      const db = join(dir, 'x.db');
      const data = { format: 'json' as const, data: { a: 1n } };
      const first = saveExport(db, { kind: 'timeline' }, T(0), data);
      expect(statSync(first).mode & 0o777).toBe(0o600);
      const second = saveExport(db, { kind: 'timeline' }, T(0), data);
      expect(second).not.toBe(first);
      expect(readFileSync(first, 'utf8')).toContain('"a": "1"');
      // a file that appears at the chosen path in between is not overwritten
      const taken = exportPath(db, { kind: 'overview' }, T(0), 'json');
      writeFileSync(taken, 'mine');
      expect(exportPath(db, { kind: 'overview' }, T(0), 'json')).not.toBe(taken);
      expect(readFileSync(taken, 'utf8')).toBe('mine');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the browser on a recorded incident', () => {
  let b: Browser;
  beforeAll(async () => {
    b = await openBrowser(await demoDatabase(), { columns: 100, rows: 30 });
    for (let i = 0; i < 100 && !b.frame().includes('member-version'); i++) await tick(50);
  }, 120_000);
  afterAll(() => b?.close());

  it('opens an event of the overview whole with Enter', async () => {
    let f = await b.press(KEY.enter);
    expect(crumbs(f)).toMatch(/^overview › event /);
    expect(f).toContain('Evidence');
    expect(f).toMatch(/Polls it rests on \(\d+\)/);
    expectFits(f, 100, 30);
    f = await b.press(KEY.esc);
    expect(crumbs(f)).toMatch(/^overview\s*$/);
  });

  it('opens a timeline event with d, steps to the next and back with n and p, scrolls with j', async () => {
    let f = await b.press(':', 'timeline', KEY.enter, 'g', 'd');
    expect(crumbs(f)).toMatch(/timeline › event /);
    const first = lines(f)[3];
    f = await b.press('n');
    expect(lines(f)[3]).not.toBe(first);
    expect(f).toMatch(/event 2 of \d+ in the timeline/);
    f = await b.press('p');
    expect(lines(f)[3]).toBe(first);
    f = await b.press('p');
    expect(f).toContain('the first event of the list');
    // a page taller than the terminal scrolls
    await b.resize(100, 16);
    f = await b.press('j');
    expect(lines(f)[3]).not.toBe(first);
    expect(f).toMatch(/lines 2-\d+ of \d+: j\/k or PgDn\/PgUp scroll/);
    expectFits(f, 100, 16);
    await b.resize(100, 30);
    f = await b.press(KEY.esc, 'n');
    // back in the list: the selection followed the detail
    expect(selectedRow(f)).toBeDefined();
    expect(cursorLine(f)).toContain('(latest)');
    await b.press(KEY.esc);
  });
});
