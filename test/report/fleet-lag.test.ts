/**
 * Issue 34 item 6, through the command line on SQLite and PostgreSQL: fleet's WORST LAG is the
 * lag the timeline's shadow.lag-high watches. In the shadow-link scenario `inventory` fails over
 * at 19m and `customers` is promoted at 21m: their shadows stop following the source, so their
 * growing lag is no lag event; fleet must not show it as the worst lag.
 */
import { expect, it } from 'vitest';
import { runFlightrec } from '../fixtures/timeline/run-cli.ts';
import { forEachEngine } from '../helpers/pg.ts';

const AT = '2026-01-01T00:24:00Z';

interface Rows<R> {
  rows: R[];
}

forEachEngine(
  'fleet: the worst shadow lag by the timeline rules',
  (engine) => {
    it('leaves out the topics that no longer follow their source', async () => {
      const db = await engine.target();
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
        '--schedule',
        'upgrade=*/30 * * * * *',
        '--schedule',
        'iceberg=*/30 * * * * *',
      ]);
      expect(rec.code, rec.err).toBe(0);
      const json = async <T>(args: string[]): Promise<T> => {
        const r = await runFlightrec(['--db', db, '-o', 'json', ...args]);
        expect(r.code, r.err).toBe(0);
        return JSON.parse(r.out) as T;
      };
      const topics = await json<Rows<{ shadowLinkName: string; name: string; status: { state: string } }>>([
        'query',
        'shadow-topics',
        '--at',
        AT,
      ]);
      const detached = new Set(
        topics.rows
          .filter((t) => /FAILED_OVER|FAILING_OVER|PROMOTED|PROMOTING/.test(t.status.state))
          .map((t) => `${t.shadowLinkName}/${t.name}`),
      );
      expect([...detached].sort()).toEqual(['dr-primary/customers', 'dr-primary/inventory']);
      const parts = await json<Rows<{ shadowLinkName: string; topicName: string; partitionId: string; lag: string }>>([
        'query',
        'shadow-partitions',
        '--at',
        AT,
      ]);
      const worst = (rows: typeof parts.rows): bigint =>
        rows.reduce((m, p) => (BigInt(p.lag) > m ? BigInt(p.lag) : m), 0n);
      const following = parts.rows.filter((p) => !detached.has(`${p.shadowLinkName}/${p.topicName}`));
      // the detached topics' lag is the larger one here: the test tells the two rules apart
      expect(worst(parts.rows)).toBeGreaterThan(worst(following));

      const fleet = await json<{ clusters: { worstShadowLag: string; worstShadowLagPartition: string }[] }>([
        'fleet',
        '--at',
        AT,
      ]);
      const line = fleet.clusters[0]!;
      expect(BigInt(line.worstShadowLag)).toBe(worst(following));
      expect(detached.has(line.worstShadowLagPartition.split('/').slice(0, 2).join('/'))).toBe(false);

      // and the timeline has no lag event open on a detached topic at that instant
      const timeline = await json<{ events: { kind: string; entity: string; end: string | null }[] }>([
        'timeline',
        '--until',
        AT,
      ]);
      const openLag = timeline.events.filter((e) => e.kind === 'shadow.lag-high' && e.end === null);
      for (const e of openLag) expect(detached.has(e.entity.replace(/^shadow-topic\//, ''))).toBe(false);
    }, 240_000);
  },
  { onPglite: false },
);
