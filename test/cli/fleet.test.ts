/**
 * Five simulated clusters in one database, each recorded by the collector from a different
 * built-in scenario (accelerated simulated time): `timeline --cluster '*'` and `fleet` show each
 * cluster's incidents under its own name and under no other; query and summary carry the
 * cluster too; a glob matching nothing is refused with the recorded names.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordClusters, runFlightrec, tempDir } from '../fixtures/timeline/run-cli.ts';

const tmp = tempDir();
const db = tmp.path('fleet.db');

/** cluster name, scenario, simulated time recorded, and the event kind only that scenario causes. */
const CLUSTERS = [
  { cluster: 'dc1-outage', scenario: 'broker-outage', for: '6m', kind: 'connections.broker-empty' },
  { cluster: 'dc2-storm', scenario: 'connection-storm', for: '4m', kind: 'connections.storm' },
  { cluster: 'lake-iceberg', scenario: 'iceberg', for: '7m', kind: 'iceberg.catalog-unreachable' },
  { cluster: 'prod-upgrade', scenario: 'rolling-upgrade', for: '5m', kind: 'upgrade.state' },
  { cluster: 'prod-shadow', scenario: 'shadow-link', for: '4m', kind: 'shadow.link-state' },
] as const;

/** Inside every incident above: broker down, storm, catalog unreachable, upgrade running, link paused. */
const DURING = '2026-01-01T00:02:15Z';

beforeAll(() => recordClusters(db, CLUSTERS, 40), 240_000);
afterAll(() => tmp.remove());

const run = (args: string[]) => runFlightrec(['--db', db, ...args]);

interface TimelineDoc {
  clusters: { cluster: string; events: { kind: string; severity: string; end: string | null }[] }[];
}

interface FleetDoc {
  at: string;
  clusters: {
    cluster: string;
    lastPoll: string | null;
    ageSeconds: number | null;
    openConnections: number | null;
    worstShadowLag: string | null;
    iceberg: { state: string; detail: string };
    upgrade: string | null;
    openEvents: { error: number; warn: number; info: number };
  }[];
}

describe("timeline --cluster '*' over five simulated clusters", () => {
  it('reports each scenario’s incident under its own cluster and no other', async () => {
    const r = await run(['--cluster', '*', '-o', 'json', 'timeline']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out) as TimelineDoc;
    expect(doc.clusters.map((c) => c.cluster)).toEqual(CLUSTERS.map((c) => c.cluster).sort());
    for (const c of CLUSTERS) {
      const having = doc.clusters.filter((t) => t.events.some((e) => e.kind === c.kind)).map((t) => t.cluster);
      expect(having, c.kind).toEqual([c.cluster]);
    }
  });

  it('puts the cluster in the text table and in every ndjson line', async () => {
    const text = await run(['--cluster', '*', 'timeline']);
    expect(text.code).toBe(0);
    expect(text.out).toMatch(
      /^Timeline of 5 clusters \(dc1-outage, dc2-storm, lake-iceberg, prod-shadow, prod-upgrade\)/,
    );
    const header = text.out.split('\n').find((l) => l.startsWith('CLUSTER'));
    expect(header).toMatch(/^CLUSTER\s+START\s+END/);
    for (const c of CLUSTERS) {
      const rows = text.out.split('\n').filter((l) => l.includes(` ${c.kind} `));
      expect(rows.length, c.kind).toBeGreaterThan(0);
      expect(rows.every((l) => l.startsWith(`${c.cluster} `))).toBe(true);
    }
    const nd = (await run(['--cluster', '*', '-o', 'ndjson', 'timeline'])).out.trim().split('\n');
    const events = nd.map((l) => JSON.parse(l) as { cluster: string; kind: string });
    for (const c of CLUSTERS) {
      expect([...new Set(events.filter((e) => e.kind === c.kind).map((e) => e.cluster))]).toEqual([c.cluster]);
    }
  });

  it('names every cluster in every other format: wide, md, yaml, html, annotations', async () => {
    const names = CLUSTERS.map((c) => c.cluster);
    const wide = (await run(['--cluster', '*', '-o', 'wide', 'timeline'])).out;
    expect(wide.split('\n').find((l) => l.startsWith('CLUSTER'))).toContain('EVIDENCE');
    const md = (await run(['--cluster', '*', '-o', 'md', 'timeline'])).out;
    expect(md).toContain('| CLUSTER | START |');
    const yaml = (await run(['--cluster', '*', '-o', 'yaml', 'timeline'])).out;
    const html = (await run(['--cluster', '*', '-o', 'html', 'timeline'])).out;
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(html.match(/<\/body>/g)).toHaveLength(1);
    expect(html).not.toMatch(/<script/i);
    const annotations = JSON.parse((await run(['--cluster', '*', '-o', 'annotations', 'timeline'])).out) as {
      tags: string[];
      text: string;
    }[];
    for (const c of CLUSTERS) {
      expect(md).toMatch(new RegExp(`^\\| ${c.cluster} \\|.*${c.kind.replace('.', '\\.')}`, 'm'));
      expect(yaml).toContain(`cluster: ${c.cluster}`);
      expect(html).toContain(`<h1>flightrec timeline — ${c.cluster}</h1>`);
      const mine = annotations.filter((a) => a.tags.includes(c.kind));
      expect(mine.length, c.kind).toBeGreaterThan(0);
      expect(mine.every((a) => a.tags.includes(`cluster:${c.cluster}`) && a.text.includes(` ${c.cluster} `))).toBe(
        true,
      );
    }
    for (const n of names) expect(wide).toContain(`\n${n} `);
    const q = JSON.parse((await run(['--cluster', '*', '-o', 'json', 'query', 'upgrade', '--at', DURING])).out) as {
      clusters: { cluster: string; rows: unknown[] }[];
    };
    expect(q.clusters.map((c) => c.cluster)).toEqual([...names].sort());
    const nd = (await run(['--cluster', '*', '-o', 'ndjson', 'query', 'upgrade', '--at', DURING])).out
      .trim()
      .split('\n');
    expect(nd.map((l) => (JSON.parse(l) as { cluster: string }).cluster)).toEqual([...names].sort());
    const summary = (await run(['--cluster', '*', 'summary'])).out;
    for (const n of names) expect(summary).toContain(`flightrec summary · cluster ${n} ·`);
  });

  it('narrows to the clusters a glob names', async () => {
    const doc = JSON.parse((await run(['--cluster', 'prod-*', '-o', 'json', 'timeline'])).out) as TimelineDoc;
    expect(doc.clusters.map((c) => c.cluster)).toEqual(['prod-shadow', 'prod-upgrade']);
    const csv = (await run(['--cluster', 'dc?-*', '-o', 'csv', 'query', 'upgrade', '--at', DURING])).out;
    expect(
      csv
        .split('\r\n')
        .slice(0, 3)
        .map((l) => l.split(',')[0]),
    ).toEqual(['cluster', 'dc1-outage', 'dc2-storm']);
  });

  it('refuses a glob that matches no cluster, naming the recorded ones (sanitised)', async () => {
    const r = await run(['--cluster', 'qa-\u001b*', 'timeline']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('no recorded cluster matches');
    expect(r.err).toContain('"dc1-outage", "dc2-storm", "lake-iceberg", "prod-shadow", "prod-upgrade"');
    expect(r.err).not.toContain('\u001b');
    const unclosed = await run(['--cluster', 'dc[1', 'fleet']);
    expect(unclosed.code).toBe(2);
    expect(unclosed.err).toContain('unclosed [');
  });

  it('summarises every cluster under its name', async () => {
    const doc = JSON.parse((await run(['--cluster', '*', '-o', 'json', 'summary'])).out) as {
      clusters: { cluster: string; changes: { kind: string }[] }[];
    };
    for (const c of CLUSTERS) {
      const having = doc.clusters.filter((s) => s.changes.some((g) => g.kind === c.kind)).map((s) => s.cluster);
      expect(having, c.kind).toEqual([c.cluster]);
    }
  });
});

describe('fleet over five simulated clusters', () => {
  it('shows each cluster’s open incidents and states as of an instant, worst first', async () => {
    const r = await run(['-o', 'json', 'fleet', '--at', DURING]);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out) as FleetDoc;
    const by = new Map(doc.clusters.map((c) => [c.cluster, c]));
    expect([...by.keys()].sort()).toEqual(CLUSTERS.map((c) => c.cluster).sort());
    for (const c of doc.clusters) {
      expect(c.lastPoll).toMatch(/^2026-01-01T00:02:/);
      expect(c.ageSeconds).toBeGreaterThanOrEqual(0);
      expect(c.ageSeconds).toBeLessThanOrEqual(30);
      expect(c.openConnections).toBeGreaterThan(0);
    }
    // the broker outage, the storm and the unreachable catalog are open errors; only there
    const withErrors = doc.clusters.filter((c) => c.openEvents.error > 0).map((c) => c.cluster);
    expect(withErrors.sort()).toEqual(['dc1-outage', 'dc2-storm', 'lake-iceberg']);
    // worst first: the clusters with open errors come before the others
    expect(doc.clusters.slice(0, 3).every((c) => c.openEvents.error > 0)).toBe(true);
    expect(by.get('lake-iceberg')!.iceberg.state).toBe('unreachable');
    for (const c of doc.clusters.filter((x) => x.cluster !== 'lake-iceberg')) expect(c.iceberg.state).toBe('ok');
    expect(by.get('prod-upgrade')!.upgrade).not.toBe('FINALIZED');
    for (const c of doc.clusters.filter((x) => x.cluster !== 'prod-upgrade')) expect(c.upgrade).toBe('FINALIZED');
    expect(by.get('prod-shadow')!.openEvents.warn).toBeGreaterThan(0);
    expect(by.get('prod-shadow')!.worstShadowLag).toMatch(/^[0-9]+$/);
  });

  it('prints a table with one line per cluster, and CSV', async () => {
    const r = await run(['fleet', '--at', DURING]);
    expect(r.code).toBe(0);
    const lines = r.out.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^CLUSTER\s+LAST POLL\s+AGE\s+CONNS\s+WORST LAG\s+ICEBERG\s+UPGRADE\s+ERROR\s+WARN\s+INFO$/,
    );
    expect(lines).toHaveLength(6);
    expect(lines.find((l) => l.startsWith('lake-iceberg'))).toContain('unreachable');
    const csv = (await run(['-o', 'csv', 'fleet', '--at', DURING])).out.split('\r\n');
    expect(csv[0]).toBe(
      'cluster,lastPoll,ageSeconds,openConnections,worstShadowLag,worstShadowLagPartition,icebergState,icebergDetail,upgrade,openError,openWarn,openInfo',
    );
    expect(csv.filter((l) => l !== '')).toHaveLength(6);
  });

  it('after the recordings end, nothing of the incidents above is still open except what the scenario leaves', async () => {
    const doc = JSON.parse((await run(['-o', 'json', 'fleet', '--at', '2026-01-01T00:07:00Z'])).out) as FleetDoc;
    const by = new Map(doc.clusters.map((c) => [c.cluster, c]));
    expect(by.get('lake-iceberg')!.iceberg.state).toBe('ok');
    expect(by.get('dc2-storm')!.openEvents.error).toBe(0);
  });
});
