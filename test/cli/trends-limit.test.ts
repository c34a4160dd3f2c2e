/**
 * `trends` on a recording with many connections: a table shows the 50 largest rows and says how
 * many were left out; JSON keeps every row unless --limit is given; --limit 0 shows all, --top is
 * its older name.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TRENDS_ROWS, trendsRowLimit } from '../../src/cli/commands/trends.ts';
import { recordScenario, runFlightrec, tempDir } from '../fixtures/timeline/run-cli.ts';

const tmp = tempDir();
const db = tmp.path('many.db');
beforeAll(async () => {
  await recordScenario(db, 'quiet', '1m', ['--connections', '80']);
}, 60_000);
afterAll(() => tmp.remove());

/** The number of table rows after the header line and the column line, up to the blank line before the key. */
const tableRows = (out: string): number => {
  const rows = out.trimEnd().split('\n').slice(3);
  const blank = rows.indexOf('');
  return blank === -1 ? rows.length : blank;
};

describe('trends row limit', () => {
  it('shows the largest 50 rows of a table by default and says how many were left out', async () => {
    const r = await runFlightrec(['--db', db, 'trends', 'produce-bytes']);
    expect(r.code).toBe(0);
    const total = Number(/; 50 of (\d+) rows/.exec(r.out)?.[1]);
    expect(total).toBeGreaterThan(DEFAULT_TRENDS_ROWS);
    expect(tableRows(r.out)).toBe(DEFAULT_TRENDS_ROWS);
    expect(r.err).toBe(
      `note: ${total - 50} of ${total} rows left out (the 50 largest shown); --limit N for more, --limit 0 for every row\n`,
    );
    const all = await runFlightrec(['--db', db, 'trends', 'produce-bytes', '--limit', '0']);
    expect(tableRows(all.out)).toBe(total);
    expect(all.err).toBe('');
  });

  it('keeps every row in JSON unless --limit is given; --top is the same as --limit', async () => {
    const json = JSON.parse((await runFlightrec(['--db', db, '-o', 'json', 'trends', 'produce-bytes'])).out) as {
      rows: unknown[];
      total: number;
    };
    expect(json.rows.length).toBe(json.total);
    expect(json.total).toBeGreaterThan(DEFAULT_TRENDS_ROWS);
    for (const flag of ['--limit', '--top']) {
      const cut = JSON.parse(
        (await runFlightrec(['--db', db, '-o', 'json', 'trends', 'produce-bytes', flag, '3'])).out,
      ) as { rows: unknown[]; total: number };
      expect(cut.rows).toHaveLength(3);
      expect(cut.total).toBe(json.total);
    }
  });

  it('checks --limit and --top', () => {
    expect(trendsRowLimit({}, 'table')).toEqual({ limit: 50, defaulted: true });
    expect(trendsRowLimit({}, 'csv')).toEqual({ limit: undefined, defaulted: false });
    expect(trendsRowLimit({ limit: '0' }, 'table')).toEqual({ limit: undefined, defaulted: false });
    expect(() => trendsRowLimit({ limit: '-1' }, 'table')).toThrow(/--limit/);
    expect(() => trendsRowLimit({ top: '0' }, 'table')).toThrow(/--top/);
    expect(() => trendsRowLimit({ top: '2', limit: '3' }, 'table')).toThrow(/either --limit or --top/);
  });
});
