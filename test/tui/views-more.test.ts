/** The browser on a recorded simulator run: shadow links down to partitions, upgrade, Iceberg, timeline, diff, follow, safety. */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import React from 'react';
import { render } from 'ink-testing-library';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHistoryWriter, openDatabase } from '../../src/db/index.ts';
import { Header } from '../../src/tui/components/Header.tsx';
import { pickTheme } from '../../src/tui/theme.ts';
import { demoDatabase } from './helpers/demo-db.ts';
import { openBrowser, tick, KEY, type Browser } from './helpers/render.ts';
import { crumbs, cursorLine, expectFits, lines, selectedRow } from './helpers/frame.ts';

const COLS = 120;
const ROWS = 32;

describe('browse: shadow links, upgrade, Iceberg, timeline, diff', () => {
  let b: Browser;
  const go = async (view: string): Promise<string> => b.press(':', view, KEY.enter);

  beforeAll(async () => {
    b = await openBrowser(await demoDatabase(), { columns: COLS, rows: ROWS });
  }, 120_000);
  afterAll(() => b?.close());

  it('drills from shadow links to a link (tasks, topics) to a topic (partitions with lag sparklines)', async () => {
    let f = await go('shadow-links');
    expect(crumbs(f)).toMatch(/overview › shadow-links +\[2 rows\]/);
    expect(f).toMatch(/✓ dr-primary +ACTIVE/);
    f = await b.press(KEY.enter);
    expect(crumbs(f)).toContain('shadow-links › link dr-primary');
    expect(f).toMatch(/tasks \(\d+\)/);
    // every task is listed, two to a line: name, broker/shard, state
    expect(f).toMatch(/✓ source_topic_sync {2}b\d\/s\d {2}ACTIVE/);
    expect(f).not.toMatch(/… \d+ more/);
    expect(f).toContain('Shadow topics');
    expect(f).toMatch(/dr-primary +payments +payments +ACTIVE +12/);
    f = await b.press('j', KEY.enter);
    expect(crumbs(f)).toContain('link dr-primary › topic payments');
    expect(f).toMatch(/PARTITION +HWM +SOURCE HWM +LAG +UPDATED +LAG OVER TIME/);
    expect(f).toMatch(/▲ +11 +\d+ +\d+ +\d+ .*[▁▂▃▄▅▆▇█]{10,} [\d.]+k/);
    expectFits(f, COLS, ROWS);
    f = await b.press('/', 'lag > 100000', KEY.enter);
    expect(crumbs(f)).toMatch(/shown \d of 12/);
  });

  it('shows a faulted topic back in time', async () => {
    const f = await b.press(KEY.esc, KEY.esc, 't', '00:12', KEY.enter);
    expect(cursorLine(f)).toContain('at 2026-01-01T00:12:00Z');
    expect(f).toMatch(/✖ dr-primary +payments +payments +FAULTED/);
  });

  it('shows the upgrade: members and their versions across time', async () => {
    let f = await b.press('t', '00:15', KEY.enter, ':up', KEY.enter);
    expect(f).toMatch(/state ▲ UPGRADE_IN_PROGRESS/);
    expect(f).toMatch(/NODE +RELEASE +LOGICAL VERSION +KNOWN +ALIVE +VERSIONS OVER TIME/);
    expect(f).toMatch(/✓ +0 +v26\.1\.1 .*v25\.3\.6 00:00:00Z → .*▸v26\.1\.1 00:14:00Z/);
    expect(f).toMatch(/✖ +2 .* no +no /);
    f = await b.press('T');
    expect(f).toMatch(/state ✓ FINALIZED/);
  });

  it('shows Iceberg topics and partitions with commit lag, and the catalog outage', async () => {
    let f = await go('iceberg');
    expect(f).toContain('catalog ✓ reachable');
    expect(f).toMatch(/TOPIC +PARTITION +STATE +TRANSLATED +COMMITTED +COMMIT LAG/);
    f = await b.press('t', '00:10', KEY.enter);
    expect(f).toMatch(/catalog ✖ unreachable io_error/);
    // a partition lags, but under the timeline's threshold (1,000,000 records): not marked
    expect(f).toMatch(/✓ \S+ +\d+ +LIVE +\d+ +\d+ +[1-9]\d*/);
    expect(f).not.toMatch(/▲ \S+ +\d+ +LIVE/);
    await b.press('T');
  });

  it('lists the timeline; Enter opens the event whole, and there Enter moves the time cursor to it and opens its entity', async () => {
    let f = await go('timeline');
    expect(f).toMatch(/✖ \d+ error {2}▲ \d+ warn {2}● \d+ info/);
    expect(f).toMatch(/TIME +SEV +KIND +ENTITY +FOR +DESCRIPTION/);
    // find the first event about a shadow topic and open it
    let guard = 0;
    while (!/shadow-topic\//.test(selectedRow(b.frame())) && guard++ < 300) await b.press('j');
    const row = selectedRow(b.frame());
    // every event is on the cursor's day: the table shows the time of day
    const when = /^.. (\d\d:\d\d:\d\d) /.exec(row)?.[1];
    expect(when).toBeDefined();
    const before = cursorLine(b.frame());
    f = await b.press(KEY.enter);
    expect(crumbs(f)).toMatch(/timeline › event shadow\./);
    expect(f).toMatch(/^entity +shadow-topic\//m);
    f = await b.press(KEY.enter);
    expect(cursorLine(f)).toContain(`at 2026-01-01T${when}`);
    expect(crumbs(f)).toMatch(/event \S+ › topic \S+/);
    // one Esc back to the event, the time cursor where it was; another to the list
    f = await b.press(KEY.esc);
    expect(crumbs(f)).toMatch(/timeline › event shadow\./);
    expect(cursorLine(f)).toBe(before);
    f = await b.press(KEY.esc, 'g', '/');
    expect(f).not.toMatch(/^\/▏/m); // the timeline takes no filter
  });

  it("opens the connections of a broker event's evidence with e, and one Esc comes back", async () => {
    let guard = 0;
    while (!/connections\.broker.* broker\/\d/.test(selectedRow(b.frame())) && guard++ < 300) await b.press('j');
    const row = selectedRow(b.frame());
    const f = await b.press('e');
    expect(crumbs(f)).toMatch(/timeline › connections .*filter: node_id = \d/);
    expect(selectedRow(await b.press(KEY.esc))).toBe(row);
  });

  it('diffs two marked instants', async () => {
    let f = await go('diff');
    expect(f).toContain('No diff yet');
    f = await b.press('t', '00:10', KEY.enter, 'm', 't', '00:12', KEY.enter, 'm');
    expect(cursorLine(f)).toMatch(/mark A 00:10:00Z B 00:12:00Z/);
    expect(f).toMatch(/diff 2026-01-01T00:10:00Z → 2026-01-01T00:12:00Z +\d+ difference/);
    expect(f).toMatch(/RESOURCE +CHANGE +ENTITY +DETAILS/);
    let guard = 0;
    while (!/shadow-topics +~ changed/.test(selectedRow(b.frame())) && guard++ < 3000) await b.press(KEY.pgdn);
    expect(b.frame()).toMatch(/shadow-topics +~ changed +dr-primary\/payments/);
    expectFits(b.frame(), COLS, ROWS);
    f = await b.press('M', 'T');
    expect(f).toContain('No diff yet');
  });
});

describe('browse: follow, safety, no colour', () => {
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'flightrec-tui-follow-'));
    copyFileSync(await demoDatabase(), join(dir, 'live.db'));
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('follows the newest poll (F) while a collector writes', async () => {
    const path = join(dir, 'live.db');
    const b = await openBrowser(path, { props: { followMs: 20 } });
    try {
      let f = await b.press('F');
      expect(cursorLine(f)).toMatch(/poll 41\/41 .*⟳ FOLLOW/);
      const db = openDatabase(path);
      const writer = createHistoryWriter(db);
      const at = 1_767_226_830_000_000_000n; // 00:20:30
      writer.writePoll({
        cluster: 'sim',
        operation: 'GetUpgradeStatus',
        target: '',
        request: {},
        round: 'follow-test',
        attempt: 1,
        scheduledAt: at,
        startedAt: at,
        endedAt: at + 1_000_000n,
        outcome: {
          ok: false,
          code: 'unavailable',
          kind: 'connect',
          httpStatus: 503,
          message: 'down for the test',
          bytes: 0,
        },
      });
      writer.close();
      await tick(150);
      f = b.frame();
      expect(cursorLine(f)).toMatch(/at 2026-01-01T00:20:30Z {2}poll 42\/42/);
      expect(f).toMatch(/✗ GetUpgradeStatus +00:20:30 .* unavailable/);
      await tick(300); // the timeline is recomputed in the background: the instant falls in a gap
      expect(cursorLine(b.frame())).toMatch(/⚠ GAP 2026-01-01T00:20:30Z/);
      f = await b.press('[');
      expect(cursorLine(f)).not.toContain('FOLLOW');
    } finally {
      b.close();
    }
  });

  it('draws cluster strings with control characters escaped', () => {
    const { lastFrame, unmount } = render(
      React.createElement(Header, {
        cluster: 'evil\u001b[2Jname',
        database: 'x.db',
        at: undefined,
        index: 0,
        count: 0,
        freshness: 'no data',
        follow: false,
        marks: {},
        crumbs: [{ kind: 'connection', uid: 'a\u0007b' }],
        width: 100,
        theme: pickTheme({ noColor: true }),
      }),
    );
    const f = lastFrame() ?? '';
    expect(f).toContain('evil\\x1b[2Jname');
    expect(f).toContain('connection a\\x07b');
    expect(f).not.toContain('\u0007');
    unmount();
  });

  it('writes no colour under NO_COLOR (glyphs and words carry the meaning)', async () => {
    const b = await openBrowser(join(dir, 'live.db'), { noColor: true });
    try {
      const raw = await b.press(':conn', KEY.enter);
      expect(raw).toMatch(/[↑·+×] [0-9a-f]{8}/);
      // eslint-disable-next-line no-control-regex -- checks that no colour escape sequence is printed
      expect(b.raw()).not.toMatch(/\u001b\[(3[0-9]|9[0-7]|4[0-9]|2)m/);
      expect(lines(b.frame()).length).toBeLessThanOrEqual(39);
    } finally {
      b.close();
    }
  });
});
