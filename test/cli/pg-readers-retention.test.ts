/**
 * Retention on both engines answers the same: the simulated incident recorded with raw retention
 * into an SQLite file and into a fresh PostgreSQL database (the collector's retention runner and
 * rollup worker on each), then trends, timeline, summary, fleet, query and export over the
 * pruned window print the same, and `db log` lists the same retention passes. A file of its own
 * (the rest of the reader comparison is pg-readers.test.ts) so that the two run side by side.
 * Needs a server (PGlite would take minutes).
 */
import { afterAll, expect, it } from 'vitest';
import { EVERY_30S, runFlightrec, tempDir, type CliRun } from '../fixtures/timeline/run-cli.ts';
import { onEngine } from '../helpers/engine-compare.ts';
import { describeWithServer, freshPgTarget } from '../helpers/pg.ts';

const tmp = tempDir();
const NOW = Date.parse('2026-01-01T00:05:00Z');

/** Runs a command on one engine, the clock at NOW; the database target in the output becomes `<db>`. */
const on = (db: string, args: readonly string[]): Promise<CliRun> => onEngine(db, args, NOW);

describeWithServer('every reader on PostgreSQL answers as on SQLite after retention', () => {
  afterAll(() => tmp.remove());

  it('retention on both: rollups written by the rollup worker; trends, timeline, summary over them answer the same', async () => {
    const sqlite = tmp.path('retained.db');
    const pgr = await freshPgTarget({ migrated: true });
    try {
      const rec = [
        '--cluster',
        'inc',
        'collect',
        '--simulate',
        'incident',
        '--for',
        '9m',
        '--seed',
        '5',
        '--connections',
        '20',
        '--retention-raw',
        '3m',
        ...EVERY_30S,
      ];
      for (const db of [sqlite, pgr.target]) {
        const r = await runFlightrec(['--db', db, ...rec]);
        expect(r.code, r.err.slice(-500)).toBe(0);
        expect(r.err).not.toContain('pruning failed');
      }
      const both = async (args: readonly string[]): Promise<CliRun> => {
        const [a, b] = [await on(sqlite, args), await on(pgr.target, args)];
        expect({ code: b.code, out: b.out, err: b.err }, args.join(' ')).toEqual({
          code: a.code,
          out: a.out,
          err: a.err,
        });
        return a;
      };
      const tl = await both(['timeline', '--since', '2026-01-01T00:00:00Z']);
      expect(tl.out).toContain('from 5m rollups before');
      await both(['-o', 'json', 'timeline']);
      await both(['trends', 'connections']);
      await both(['trends', 'produce-bytes', '--by', 'client']);
      await both(['trends', 'shadow-lag', '--by', 'topic']);
      await both(['-o', 'json', 'trends', 'iceberg-lag', '--by', 'partition']);
      await both(['summary', '--until', '2026-01-01T00:09:00Z']);
      await both(['fleet', '--at', '2026-01-01T00:05:00Z']);
      await both(['query', 'connections', '--at', '2026-01-01T00:07:00Z']);
      await both(['export', '--out', '-']);
      // the same retention passes, each engine's bytes freed and duration
      const log = await Promise.all([sqlite, pgr.target].map((db) => on(db, ['-o', 'json', 'db', 'log'])));
      const entries = log.map((r) =>
        (JSON.parse(r.out) as { entries: Record<string, unknown>[] }).entries.map(
          ({ bytes: _b, durationMs: _d, ...rest }) => rest,
        ),
      );
      expect(entries[0]!.length).toBeGreaterThan(3);
      expect(entries[1]).toEqual(entries[0]);
    } finally {
      await pgr.drop();
    }
  }, 300_000);
});
