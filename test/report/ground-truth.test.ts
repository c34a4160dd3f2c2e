/**
 * Ground truth, the healthy half: the `quiet` scenario recorded over 24 simulated hours (shadow
 * and Iceberg polled every minute, where false alarms showed; connections and upgrade every 10
 * minutes, to keep the recording to about a minute) has no warn-or-worse event and no stalled or
 * stopped trend slice, over the whole day and in hour-long windows. The incident half (every
 * scripted incident of every built-in scenario found, with its kind, entity and start within one
 * schedule interval) is test/report/timeline-scenarios.test.ts, which records each scenario once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFlightrec, tempDir } from '../fixtures/timeline/run-cli.ts';

const tmp = tempDir();
const db = tmp.path('quiet-24h.db');
afterAll(() => tmp.remove());

beforeAll(async () => {
  const r = await runFlightrec([
    '--db',
    db,
    'collect',
    '--simulate',
    'quiet',
    '--for',
    '24h',
    '--schedule',
    'connections=0 */10 * * * *',
    '--schedule',
    'upgrade=0 */10 * * * *',
    '--schedule',
    'shadow=0 * * * * *',
    '--schedule',
    'iceberg=0 * * * * *',
  ]);
  if (r.code !== 0) throw new Error(`collect --simulate quiet --for 24h: ${r.err.slice(-500)}`);
}, 300_000);

/** Stalled or stopped rows and slices of a trends JSON answer, as `key@slice:class`. */
function alarms(out: string): string[] {
  const doc = JSON.parse(out) as { rows: { key: string; trend?: string; trendSeries?: (string | null)[] }[] };
  const found: string[] = [];
  for (const row of doc.rows) {
    if (row.trend === 'stalled' || row.trend === 'stopped') found.push(`${row.key}:${row.trend}`);
    (row.trendSeries ?? []).forEach((c, i) => {
      if (c === 'stalled' || c === 'stopped') found.push(`${row.key}@${i}:${c}`);
    });
  }
  return found;
}

describe('ground truth: a healthy cluster over 24 simulated hours', () => {
  it('the timeline has no warn or error event', async () => {
    const r = await runFlightrec(['--db', db, '-o', 'json', 'timeline', '--min-severity', 'warn']);
    expect(r.code, r.err).toBe(0);
    const doc = JSON.parse(r.out) as { events: { kind: string; entity: string; start: string }[] };
    expect(doc.events.map((e) => `${e.start} ${e.kind} ${e.entity}`)).toEqual([]);
  });

  it('trends: no stalled or stopped row or slice, over the day and in hour-long windows', async () => {
    const windows: string[][] = [[]];
    for (const h of ['01', '07', '13', '19'])
      windows.push(['--since', `2026-01-01T${h}:00:00Z`, '--until', `2026-01-01T${h}:59:00Z`]);
    const found: string[] = [];
    for (const w of windows) {
      for (const [metric, by] of [
        ['shadow-lag', 'partition'],
        ['shadow-lag', 'topic'],
        ['iceberg-lag', 'partition'],
      ] as const) {
        const r = await runFlightrec(['--db', db, '-o', 'json', 'trends', metric, '--by', by, ...w]);
        expect(r.code, r.err).toBe(0);
        for (const a of alarms(r.out)) found.push(`${metric} ${w.join(' ') || 'whole day'}: ${a}`);
      }
    }
    expect(found).toEqual([]);
  }, 120_000);
});
