/**
 * Issue 34 item 5, through the command line on a real SQLite file: an event read from a window
 * whose warm-up does not reach its start is marked `≤` (startedBefore), and every event shown
 * without that mark has the start it has when the whole recording is read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordScenario, runFlightrec, tempDir } from '../fixtures/timeline/run-cli.ts';

interface Event {
  kind: string;
  entity: string;
  type: string;
  start: string;
  end: string | null;
  startedBefore: boolean;
}

const tmp = tempDir();
const db = tmp.path('incident.db');
beforeAll(async () => {
  await recordScenario(db, 'incident', '25m', ['--connections', '40']);
}, 180_000);
afterAll(() => tmp.remove());

async function events(args: readonly string[]): Promise<Event[]> {
  const r = await runFlightrec(['--db', db, '-o', 'json', 'timeline', ...args]);
  expect(r.code, r.err).toBe(0);
  return (JSON.parse(r.out) as { events: Event[] }).events;
}

/** The RFC 3339 instant of a time of day on the simulated day, as the JSON writes it. */
const T = (hm: string): string => `2026-01-01T${hm}:00.000000000Z`;

const key = (e: Event): string => `${e.kind} ${e.entity} ${e.end ?? 'ongoing'}`;

describe('timeline --since: a start cut by the window is marked, one the window holds is the true start', () => {
  it('marks the lag that began at 00:06 when read from --since 00:20 (warm-up from 00:10)', async () => {
    const cut = await events(['--since', '2026-01-01T00:20:00Z']);
    const lag = cut.find((e) => e.kind === 'shadow.lag-high' && e.entity === 'shadow-topic/dr-primary/payments');
    expect(lag).toBeDefined();
    expect(lag!.start).toBe('2026-01-01T00:10:00.000000000Z');
    expect(lag!.startedBefore).toBe(true);
    const r = await runFlightrec(['--db', db, 'timeline', '--since', '2026-01-01T00:20:00Z']);
    expect(r.out).toMatch(/^≤2026-01-01T00:10:00Z .*shadow\.lag-high +shadow-topic\/dr-primary\/payments/m);
  });

  it('shows each start the window holds as the whole recording does, and marks each one shown later', async () => {
    const whole = new Map<string, Event>();
    for (const e of await events([])) whole.set(key(e), e);
    for (const since of ['00:05', '00:10', '00:12', '00:15', '00:18', '00:20', '00:23']) {
      for (const e of await events(['--since', `2026-01-01T${since}:00Z`])) {
        const full = whole.get(key(e));
        if (full === undefined) continue;
        const where = `--since ${since}: ${key(e)} at ${e.start}`;
        // a window that holds the start shows it as the whole recording does
        if (full.start >= T(since))
          expect({ start: e.start, cut: e.startedBefore }, where).toEqual({ start: full.start, cut: false });
        // a start shown later than the true one was cut by the window: marked
        if (e.start > full.start) expect(e.startedBefore, where).toBe(true);
      }
    }
  }, 120_000);
});
