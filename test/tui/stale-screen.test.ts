/**
 * Keys handled before the next render act on the screen of the state they act on: a burst that
 * opens a view and presses Enter opens that view's selected row, not a row of the view before
 * (CI once saw Enter on the shadow links open the overview's upgrade event, the handler of the
 * earlier render still subscribed).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoDatabase } from './helpers/demo-db.ts';
import { openBrowser, tick, KEY, type Browser } from './helpers/render.ts';
import { crumbs, selectedRow } from './helpers/frame.ts';

describe('keys ahead of the render', () => {
  let b: Browser;
  beforeAll(async () => {
    b = await openBrowser(await demoDatabase(), { columns: 120, rows: 32 });
    // the overview's events come after the first frame; wait until one is selected
    for (let i = 0; i < 200 && !/^›/.test(selectedRow(b.frame())); i++) await tick(10);
  }, 120_000);
  afterAll(() => b?.close());

  it('a burst opening the shadow links and pressing Enter opens the selected link', async () => {
    expect(selectedRow(b.frame())).toMatch(/upgrade/);
    const f = await b.press(`:shadow-links${KEY.enter}${KEY.enter}`);
    expect(crumbs(f)).toContain('overview › shadow-links › link dr-primary');
  });

  it('a burst moving down and pressing Enter opens the row moved to', async () => {
    await b.press(KEY.esc);
    const f = await b.press(`j${KEY.enter}`);
    expect(crumbs(f)).toContain('shadow-links › link analytics-mirror');
  });
});
