/**
 * The first five minutes, outside the demo and the browser: summary's default window on a
 * recording that ended in the past, unset timestamps in CSV, the worst incident, and the docs a
 * new user reads first.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { defaultSummaryWindow, DEFAULT_SUMMARY_WINDOW } from '../../src/report/summary.ts';
import { worstIncident } from '../../src/report/timeline/worst-incident.ts';
import type { TimelineEvent } from '../../src/report/timeline/types.ts';
import { memoryIo } from '../helpers/memory-io.ts';
import { historyDb } from '../fixtures/report/history-db.ts';
import { scenarioRecords, T } from '../fixtures/report/scenario.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const db = historyDb(scenarioRecords());
afterAll(() => db.cleanup());
const S = 1_000_000_000n;

describe('summary without a window', () => {
  it('covers a recording that ended before the default window, and says which window it used', async () => {
    // the fixture was recorded on 2025-09-01; now is much later
    const io = memoryIo({ now: () => Date.parse('2026-03-01T00:00:00Z') });
    expect(await main(['--db', db.path, 'summary'], io)).toBe(0);
    expect(io.err()).toMatch(
      /^note: nothing was recorded in the last 6h00m; summarising the whole recording, 2025-09-01T10:00:00Z to 2025-09-01T10:04:00Z/,
    );
    expect(io.out()).toMatch(/· 4m00s until 2025-09-01T10:04:00Z/);
    expect(io.out()).not.toContain('Changed in the window: nothing');
    // JSON says the same window
    const json = memoryIo({ now: () => Date.parse('2026-03-01T00:00:00Z') });
    expect(await main(['--db', db.path, '-o', 'json', 'summary'], json)).toBe(0);
    expect(JSON.parse(json.out())).toMatchObject({
      since: '2025-09-01T10:00:00.000000000Z',
      until: '2025-09-01T10:04:00.000000000Z',
    });
  });

  it('keeps the last 6 hours up to now while the recording is recent, and any window given', () => {
    const now = T[4]! + 60n * S;
    expect(defaultSummaryWindow({ first: T[0]!, last: T[4]! }, now)).toEqual({
      until: now,
      window: DEFAULT_SUMMARY_WINDOW,
      wholeRecording: false,
    });
    const later = T[4]! + 7n * 3600n * S;
    expect(defaultSummaryWindow({ first: T[0]!, last: T[4]! }, later)).toEqual({
      until: T[4]!,
      window: T[4]! - T[0]!,
      wholeRecording: true,
    });
    expect(defaultSummaryWindow(undefined, later).wholeRecording).toBe(false);
  });
});

/** The cells of one RFC 4180 line (quoted cells may hold commas and doubled quotes). */
function csvCells(line: string): string[] {
  const cells: string[] = [];
  let i = 0;
  while (i <= line.length) {
    if (line[i] === '"') {
      let v = '';
      i++;
      while (i < line.length && !(line[i] === '"' && line[i + 1] !== '"')) {
        v += line[i] === '"' ? '"' : line[i];
        i += line[i] === '"' ? 2 : 1;
      }
      cells.push(v);
      i += 2;
    } else {
      const end = line.indexOf(',', i);
      cells.push(line.slice(i, end < 0 ? line.length : end));
      i = end < 0 ? line.length + 1 : end + 1;
    }
  }
  return cells;
}

describe('open connections in CSV', () => {
  it('write closeTime as unset (-), never a date in 1970', async () => {
    const io = memoryIo({ now: () => Number(T[4]! / 1_000_000n) });
    expect(await main(['--db', db.path, 'query', 'connections', '--at', '2025-09-01T10:02:00Z', '-o', 'csv'], io)).toBe(
      0,
    );
    const [header, ...rows] = io.out().trimEnd().split('\r\n').map(csvCells);
    const col = header!.indexOf('closeTime');
    expect(col).toBeGreaterThan(0);
    expect(io.out()).not.toContain('1970-01-01');
    expect(rows.map((r) => r[col])).toContain('-');
  });
});

describe('the worst incident', () => {
  const event = (
    kind: string,
    severity: TimelineEvent['severity'],
    entity: string,
    start: number,
    end: number | null,
  ): TimelineEvent => ({
    kind,
    severity,
    entity,
    related: [],
    type: 'interval',
    start: BigInt(start) * S,
    end: end === null ? null : BigInt(end) * S,
    startedBefore: false,
    description: '',
    evidence: { before: {}, during: {}, after: {}, pollIds: [] },
  });

  it('is the error event during which the most other entities got into trouble', () => {
    const events = [
      event('connections.broker-empty', 'error', 'broker/2', 120, 300),
      event('shadow.task-state', 'warn', 'task/a', 120, 300),
      event('shadow.task-state', 'warn', 'task/b', 120, 300),
      event('upgrade.member-down', 'warn', 'broker/2', 120, 300),
      event('connections.storm', 'error', 'principal/x', 180, 310),
      event('shadow.task-state', 'error', 'task/c', 360, 540),
      event('shadow.lag-growing', 'warn', 'topic/p', 600, 700),
      event('info.thing', 'info', 'x/1', 130, 140),
    ];
    const worst = worstIncident(events);
    expect(worst?.event.entity).toBe('broker/2');
    expect(worst?.impact).toBe(4);
    expect(worstIncident(events.filter((e) => e.severity !== 'error'))).toBeUndefined();
  });

  it('breaks ties by the longer, then the earlier event', () => {
    const tie = [
      event('a', 'error', 'x/1', 0, 10),
      event('b', 'error', 'x/2', 100, 130),
      event('c', 'error', 'x/3', 200, 230),
    ];
    expect(worstIncident(tie)?.event.entity).toBe('x/2');
  });
});

describe('the documentation a new user reads', () => {
  const cli = readFileSync(join(ROOT, 'docs/cli.md'), 'utf8');
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

  it('docs/cli.md holds no internal notes and no paths outside the repository', () => {
    expect(cli).not.toMatch(/for the lead/i);
    expect(cli).not.toMatch(/\/work\/|wire-facts\.md|\.\.\/shared\//);
    expect(cli).not.toMatch(/(^|[\s`(])\/tmp\//m);
  });

  it("the README's documentation table lists every page under docs/", () => {
    const table = readme.slice(readme.indexOf('## Documentation'));
    for (const page of readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md'))) {
      expect(table, page).toContain(`](docs/${page})`);
    }
  });

  it('documents the time language once, for the command line and the browser', () => {
    const section = cli.slice(cli.indexOf('## Times and durations'), cli.indexOf('## Output formats'));
    for (const form of ['`10:03`', '`-2h`', '`now`', 'browser', '`latest`', '1678-01-01T00:00:00Z'])
      expect(section, form).toContain(form);
  });
});
