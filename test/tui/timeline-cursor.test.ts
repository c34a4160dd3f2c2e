/**
 * The timeline view as of the time cursor: an event that has not started is "later", never
 * "ongoing"; one that started before the cursor and ended after it is ongoing as of the cursor.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventDuration } from '../../src/tui/screens/events.ts';
import type { TimelineEvent } from '../../src/report/timeline/types.ts';
import { demoDatabase } from './helpers/demo-db.ts';
import { openBrowser, tick, KEY, type Browser } from './helpers/render.ts';
import { lines } from './helpers/frame.ts';

const T = (hhmmss: string): bigint => BigInt(Date.parse(`2026-01-01T${hhmmss}Z`)) * 1_000_000n;
const event = (start: string, end: string | null, type: 'interval' | 'point' = 'interval'): TimelineEvent => ({
  kind: 'k',
  severity: 'warn',
  entity: 'broker/1',
  related: [],
  type,
  start: T(start),
  end: end === null ? null : T(end),
  startedBefore: false,
  description: '',
  evidence: { before: {}, during: {}, after: {}, pollIds: [1n] },
});

describe('event durations as of the cursor', () => {
  it('an event that starts after the cursor is later, not ongoing', () => {
    expect(eventDuration(event('00:11:00', '00:13:00'), T('00:10:00'))).toBe('later');
    expect(eventDuration(event('00:13:00', null), T('00:10:00'))).toBe('later');
    expect(eventDuration(event('00:11:00', '00:11:00', 'point'), T('00:10:00'))).toBe('later');
  });

  it('one that started before the cursor and ends after it is ongoing as of the cursor', () => {
    expect(eventDuration(event('00:08:00', '00:12:00'), T('00:10:00'))).toBe('ongoing 2m');
    expect(eventDuration(event('00:08:00', null), T('00:10:00'))).toBe('ongoing 2m');
    expect(eventDuration(event('00:08:00', '00:09:00'), T('00:10:00'))).toBe('1m');
    expect(eventDuration(event('00:08:00', null), undefined)).toBe('ongoing');
  });
});

describe('the timeline view with the cursor before an event', () => {
  let b: Browser;
  beforeAll(async () => {
    b = await openBrowser(await demoDatabase(), { columns: 160, rows: 60 });
  }, 120_000);
  afterAll(() => b?.close());

  it('shows the catalog outage (00:08 to 00:12) as later at 00:05, ongoing at 00:10, over at 00:15', async () => {
    await b.press(':', 'timeline', KEY.enter);
    for (let i = 0; i < 100 && !b.frame().includes('iceberg.catalog-unreachable'); i++) await tick(50);
    const row = async (at: string): Promise<string> => {
      const f = await b.press('t', at, KEY.enter);
      return lines(f).find((l) => l.includes('iceberg.catalog-unreachable')) ?? '';
    };
    const before = await row('00:05');
    expect(before).toMatch(/(2026-01-01T)?00:08:00Z? .* later /);
    expect(before).not.toContain('ongoing');
    expect(await row('00:10')).toMatch(/ ongoing 2m /);
    expect(await row('00:15')).toMatch(/ 4m /);
    expect(b.frame()).toMatch(/interval\(s\) ongoing at the cursor/);
  });
});
