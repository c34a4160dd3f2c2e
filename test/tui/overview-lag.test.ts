/**
 * Issue 34 item 6: the overview's worst shadow lag is the lag the timeline's shadow.lag-high
 * watches. In the shadow-link scenario `inventory` fails over at 19m and `customers` is promoted at
 * 21m: their shadows no longer follow the source, so their growing lag is no lag event, and the
 * overview must not mark it ▲ as the worst (fleet's WORST LAG follows the same rule).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFlightrec, tempDir } from '../fixtures/timeline/run-cli.ts';
import { openBrowser, type Browser } from './helpers/render.ts';

const tmp = tempDir();
const db = tmp.path('shadow-link.db');
let b: Browser | undefined;

beforeAll(async () => {
  const rec = await runFlightrec([
    '--db',
    db,
    'collect',
    '--simulate',
    'shadow-link',
    '--for',
    '24m',
    '--connections',
    '20',
  ]);
  expect(rec.code, rec.err).toBe(0);
  b = await openBrowser(db, { columns: 160, rows: 40 });
}, 120_000);
afterAll(() => {
  b?.close();
  tmp.remove();
});

describe('the overview after a failover', () => {
  it('takes the worst lag from the topics that still follow their source', async () => {
    const f = await b!.press('T');
    const line = f.split('\n').find((l) => l.includes('shadow lag')) ?? '';
    expect(line).toMatch(/shadow lag +[▲✓] worst [\d.,k]+ records/);
    expect(line).not.toMatch(/inventory|customers/);
  });
});
