/**
 * Stale data is marked: the collector stops, the clock moves past twice the schedule interval,
 * and every as-of answer says when it was observed and that it is stale: `query -o json`
 * (`observedAt`, `stale`), the table's note on stderr, and the browser's header.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBrowser, type Browser } from '../tui/helpers/render.ts';
import { recordScenario, runFlightrec, tempDir } from '../fixtures/timeline/run-cli.ts';

const tmp = tempDir();
const db = tmp.path('stopped.db');
// the recording: 2026-01-01T00:00:00Z to 00:02:00Z, every operation every 30 s, then the collector stops
const LAST = Date.parse('2026-01-01T00:02:00Z');
const INTERVAL = 30_000;

beforeAll(async () => {
  await recordScenario(db, 'quiet', '2m', ['--connections', '20']);
}, 60_000);
afterAll(() => tmp.remove());

interface QueryDoc {
  at: string;
  pollId: string;
  observedAt: string;
  stale: boolean;
  freshness: { operations: { operation: string; interval: string; intervalFrom: string; stale: boolean }[] };
  rows: unknown[];
}

const queryJson = async (now: number, args: string[] = []): Promise<QueryDoc> => {
  const r = await runFlightrec(['--db', db, '-o', 'json', 'query', 'upgrade-members', ...args], { now: () => now });
  expect(r.code).toBe(0);
  return JSON.parse(r.out) as QueryDoc;
};

describe('stale answers', () => {
  it('query -o json: fresh within twice the interval, stale past it, with the observation time', async () => {
    const fresh = await queryJson(LAST + 2 * INTERVAL - 1000);
    expect(fresh.observedAt).toBe('2026-01-01T00:02:00.000000000Z');
    expect(fresh.stale).toBe(false);
    expect(fresh.freshness.operations).toEqual([
      expect.objectContaining({
        operation: 'GetUpgradeStatus',
        interval: '30s',
        intervalFrom: 'recorded',
        stale: false,
      }),
    ]);

    const stale = await queryJson(LAST + 2 * INTERVAL + 1000);
    expect(stale.observedAt).toBe('2026-01-01T00:02:00.000000000Z');
    expect(stale.stale).toBe(true);
    expect(stale.rows.length).toBe(3);
  });

  it('query --at an instant inside the recording is fresh, one after it is stale', async () => {
    const later = LAST + 3_600_000;
    expect((await queryJson(later, ['--at', '2026-01-01T00:01:10Z'])).stale).toBe(false);
    expect((await queryJson(later, ['--at', '2026-01-01T00:03:30Z'])).stale).toBe(true);
  });

  it('the table notes the observation time on stderr, and warns when stale', async () => {
    const r = await runFlightrec(['--db', db, 'query', 'upgrade-members'], { now: () => LAST + 6 * 60_000 });
    expect(r.code).toBe(0);
    expect(r.err).toContain('note: upgrade-members at 2026-01-01T00:08:00Z: poll ');
    expect(r.err).toContain(' at 2026-01-01T00:02:00Z, 3 rows');
    expect(r.err).toMatch(
      /warning: upgrade-members at 2026-01-01T00:08:00Z: stale: the newest GetUpgradeStatus poll \(\d+ at 2026-01-01T00:02:00Z\) is 6m00s old, more than twice its schedule interval \(30s\)/,
    );
    const fresh = await runFlightrec(['--db', db, 'query', 'upgrade-members'], { now: () => LAST + 10_000 });
    expect(fresh.err).not.toContain('stale');
  });

  it('summary says when its "now" was observed, and that it is stale', async () => {
    const doc = async (now: number): Promise<{ observedAt: string; stale: boolean }> =>
      JSON.parse(
        (await runFlightrec(['--db', db, '-o', 'json', 'summary', '--window', '10m'], { now: () => now })).out,
      ) as { observedAt: string; stale: boolean };
    expect(await doc(LAST + 10_000)).toMatchObject({ observedAt: '2026-01-01T00:02:00.000000000Z', stale: false });
    expect(await doc(LAST + 6 * 60_000)).toMatchObject({ observedAt: '2026-01-01T00:02:00.000000000Z', stale: true });
    const text = await runFlightrec(['--db', db, 'summary', '--window', '10m'], { now: () => LAST + 6 * 60_000 });
    expect(text.out).toMatch(/\nObserved: newest poll 2026-01-01T00:02:00Z; stale: /);
  });

  describe('the browser', () => {
    let b: Browser | undefined;
    afterAll(() => b?.close());

    it('shows a STALE marker in the header once the latest poll is older than twice its interval', async () => {
      let now = LAST + 10_000;
      b = await openBrowser(db, { columns: 140, rows: 30, now: () => now });
      expect(b.frame()).not.toContain('STALE');
      now = LAST + 6 * 60_000;
      const f = await b.press('T');
      const header = f.split('\n').slice(0, 3).join('\n');
      expect(header).toMatch(/⚠ STALE: \w+ 6m old \(every 30s\)/);
      // back in time, at a recorded poll, the data shown is fresh again
      const back = await b.press('[', '[');
      expect(back.split('\n').slice(0, 3).join('\n')).not.toContain('STALE');
    });
  });
});
