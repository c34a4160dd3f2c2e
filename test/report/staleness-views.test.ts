/**
 * Issue 34 item 6, through the command line on SQLite and PostgreSQL: one staleness verdict in
 * every view. Two clusters stop: `one` after a single round (no interval to learn from the
 * recording: the collector's default schedule stands in, as in query), `many` after five
 * minutes of rounds. At instants before and after each becomes stale, query (its warning),
 * summary (its "stale" line), timeline (an ongoing collection.gap) and fleet (an open warning)
 * say the same. An operation on a slower schedule, polled once while the others go on, is no gap
 * (its schedule is not known yet).
 */
import { expect, it } from 'vitest';
import { runFlightrec } from '../fixtures/timeline/run-cli.ts';
import { forEachEngine } from '../helpers/pg.ts';

const T = (hms: string): string => `2026-01-01T${hms}Z`;

/** cluster, instant, and whether the cluster's answer is stale then (more than twice its 30 s interval). */
const CASES = [
  { cluster: 'one', at: T('00:00:50'), stale: false },
  { cluster: 'one', at: T('00:01:10'), stale: true },
  { cluster: 'one', at: T('00:10:00'), stale: true },
  { cluster: 'many', at: T('00:05:50'), stale: false },
  { cluster: 'many', at: T('00:06:10'), stale: true },
  { cluster: 'many', at: T('00:30:00'), stale: true },
] as const;

interface Verdicts {
  query: boolean;
  summary: boolean;
  timeline: boolean;
  fleet: boolean;
}

async function verdicts(db: string, cluster: string, at: string): Promise<Verdicts> {
  const run = async (args: string[]): Promise<string> => {
    const r = await runFlightrec(['--db', db, ...args]);
    expect(r.code, `${args.join(' ')}: ${r.err}`).toBe(0);
    return `${r.out}\n${r.err}`;
  };
  const query = await run(['--cluster', cluster, 'query', 'connections', '--at', at]);
  const summary = await run(['--cluster', cluster, 'summary', '--until', at]);
  const timeline = JSON.parse(await run(['--cluster', cluster, '-o', 'json', 'timeline', '--until', at])) as {
    events: { kind: string; end: string | null }[];
  };
  const fleet = JSON.parse(await run(['-o', 'json', 'fleet', '--at', at])) as {
    clusters: { cluster: string; openEvents: { warn: number; error: number } }[];
  };
  const line = fleet.clusters.find((c) => c.cluster === cluster);
  return {
    query: /\bstale\b/.test(query),
    summary: /^Observed: .*\bstale\b/m.test(summary),
    timeline: timeline.events.some((e) => e.kind === 'collection.gap' && e.end === null),
    fleet: line !== undefined && line.openEvents.warn + line.openEvents.error > 0,
  };
}

forEachEngine(
  'staleness: one verdict in query, summary, timeline and fleet',
  (engine) => {
    it('for a cluster recorded once and one stopped after many rounds', async () => {
      const db = await engine.target();
      for (const [cluster, duration] of [
        ['one', '10s'],
        ['many', '5m'],
      ] as const) {
        const r = await runFlightrec([
          '--db',
          db,
          '--cluster',
          cluster,
          'collect',
          '--simulate',
          'quiet',
          '--for',
          duration,
          '--connections',
          '20',
          '--schedule',
          'upgrade=*/30 * * * * *',
          '--schedule',
          'iceberg=*/30 * * * * *',
        ]);
        expect(r.code, r.err).toBe(0);
      }
      for (const c of CASES) {
        const v = await verdicts(db, c.cluster, c.at);
        expect(v, `${c.cluster} at ${c.at}`).toEqual({
          query: c.stale,
          summary: c.stale,
          timeline: c.stale,
          fleet: c.stale,
        });
      }
    }, 240_000);

    it('no gap for an operation on a slower schedule polled once while the others go on', async () => {
      const db = await engine.target();
      const r = await runFlightrec([
        '--db',
        db,
        'collect',
        '--simulate',
        'quiet',
        '--for',
        '4m',
        '--connections',
        '20',
        '--schedule',
        'upgrade=0 */10 * * * *',
      ]);
      expect(r.code, r.err).toBe(0);
      const t = await runFlightrec(['--db', db, '-o', 'json', 'timeline', '--until', T('00:04:00')]);
      const events = (JSON.parse(t.out) as { events: { kind: string }[] }).events;
      expect(events.filter((e) => e.kind === 'collection.gap')).toEqual([]);
    }, 240_000);
  },
  { onPglite: false },
);
