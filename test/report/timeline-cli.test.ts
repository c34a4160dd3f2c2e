/**
 * `flightrec timeline`, `trends` and `summary` over a database recorded from the simulated
 * cluster: formats, filters, colour rules and exit codes.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordScenario, runFlightrec, tempDir } from '../fixtures/timeline/run-cli.ts';

const tmp = tempDir();
const db = tmp.path('incident.db');
beforeAll(async () => {
  await recordScenario(db, 'incident', '15m', ['--connections', '120']);
}, 180_000);
afterAll(() => tmp.remove());

const run = (args: string[], opts: Parameters<typeof runFlightrec>[1] = {}) =>
  runFlightrec(['--db', db, ...args], opts);

describe('flightrec timeline', () => {
  it('prints the table by default, without escape bytes when stdout is not a terminal', async () => {
    const r = await run(['timeline']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Timeline of cluster sim, 2026-01-01T00:00:00Z → /);
    expect(r.out).toContain('connections.broker-empty');
    expect(r.out).toContain('Key series');
    expect(r.out).not.toContain('\u001b');
  });

  it('colours on a terminal, but never with NO_COLOR or --no-color', async () => {
    expect((await run(['timeline'], { isTTY: true })).out).toContain('\u001b[');
    expect((await run(['timeline'], { isTTY: true, env: { NO_COLOR: '1' } })).out).not.toContain('\u001b');
    expect((await run(['--no-color', 'timeline'], { isTTY: true })).out).not.toContain('\u001b');
  });

  it('filters by severity and by entity, window included', async () => {
    const all = JSON.parse((await run(['-o', 'json', 'timeline'])).out) as {
      events: { severity: string; entity: string; related: string[] }[];
    };
    const errors = JSON.parse((await run(['-o', 'json', 'timeline', '--min-severity', 'error'])).out) as typeof all;
    expect(errors.events.length).toBeGreaterThan(0);
    expect(errors.events.length).toBeLessThan(all.events.length);
    expect(errors.events.every((e) => e.severity === 'error')).toBe(true);
    const broker = JSON.parse((await run(['-o', 'json', 'timeline', '--for', 'broker/2'])).out) as typeof all;
    expect(broker.events.length).toBeGreaterThan(0);
    expect(broker.events.every((e) => e.entity === 'broker/2' || e.related.includes('broker/2'))).toBe(true);
    const early = JSON.parse(
      (await run(['-o', 'json', 'timeline', '--since', '2026-01-01T00:00:00Z', '--until', '2026-01-01T00:01:30Z'])).out,
    ) as typeof all;
    expect(early.events.length).toBeLessThan(all.events.length);
  });

  it('writes every format: md, ndjson, yaml, html, annotations', async () => {
    expect((await run(['-o', 'md', 'timeline'])).out).toContain('## Incident timeline: sim');
    const nd = (await run(['-o', 'ndjson', 'timeline'])).out.trim().split('\n');
    expect(JSON.parse(nd[0]!)).toHaveProperty('kind');
    expect((await run(['-o', 'yaml', 'timeline'])).out).toContain('events:');
    const html = (await run(['-o', 'html', 'timeline'])).out;
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(html).toContain('<svg');
    expect(html).not.toMatch(/<script/i);
    const notes = JSON.parse((await run(['-o', 'annotations', 'timeline'])).out) as { time: number }[];
    expect(notes.length).toBe(nd.length);
  });

  it('exits 2 on bad usage, naming the flag', async () => {
    const bad = [
      [['timeline', '--min-severity', 'loud'], '--min-severity'],
      [['timeline', '--for', 'nothing'], '--for'],
      [['timeline', '--since', 'yesterday'], '--since'],
      [['-o', 'csv', 'timeline'], '--output'],
      [['timeline', '--since', '2026-01-01T00:10:00Z', '--until', '2026-01-01T00:01:00Z'], '--since'],
    ] as const;
    for (const [args, flag] of bad) {
      const r = await run([...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err).toContain(flag);
    }
  });

  it('--for a client includes the events whose evidence names it, and its key series', async () => {
    const r = await run(['-o', 'json', 'timeline', '--for', 'client/svc-legacy-client']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out) as { events: { kind: string; entity: string }[]; series: { name: string }[] };
    // the wave of failed logins is about listener/external; its evidence names the client
    expect(doc.events.some((e) => e.kind === 'connections.auth-failures' && e.entity === 'listener/external')).toBe(
      true,
    );
    // the key series are the client's own, not the cluster's
    expect(doc.series.map((x) => x.name)).toEqual([
      'connections.open/client/svc-legacy-client',
      'connections.auth-failures/client/svc-legacy-client',
    ]);
    const link = JSON.parse((await run(['-o', 'json', 'timeline', '--for', 'link/dr-primary'])).out) as typeof doc;
    expect(link.series.map((x) => x.name)).toEqual(['shadow.lag/dr-primary']);
  });

  it('--for an entity never recorded exits 2 with the nearest known names', async () => {
    const typo = await run(['timeline', '--for', 'client/svc-legacy-clinet']);
    expect(typo.code).toBe(2);
    expect(typo.err).toContain('nearest known: client/svc-legacy-client');
    const kind = await run(['timeline', '--for', 'foo/bar']);
    expect(kind.code).toBe(2);
    expect(kind.err).toContain('unknown kind "foo"');
    const broker = await run(['timeline', '--for', 'broker/9']);
    expect(broker.code).toBe(2);
    expect(broker.err).toMatch(/no such entity in the recording/);
    // a known entity without events is fine
    const quiet = await run(['timeline', '--for', 'iceberg-topic/legacy-events', '--min-severity', 'error']);
    expect(quiet.code).toBe(0);
  });

  it('reads thresholds from the config file and rejects unknown keys there', async () => {
    const good = tmp.path('good.yaml');
    writeFileSync(good, 'thresholds:\n  connections:\n    brokerMinConnections: 100000\n');
    const r = await run(['--config', good, '-o', 'json', 'timeline']);
    expect(r.code).toBe(0);
    expect(r.out).not.toContain('connections.broker-empty');
    const bad = tmp.path('bad.yaml');
    writeFileSync(bad, 'thresholds:\n  shadow:\n    lagRecord: 5\n');
    const e = await run(['--config', bad, 'timeline']);
    expect(e.code).toBe(2);
    expect(e.err).toContain('thresholds.shadow.lagRecord: unknown key');
  });
});

describe("flightrec diff across the incident's lag rise", () => {
  it('reports the lag change of the shadow partitions (both values and the delta) and exits 1', async () => {
    const r = await run([
      'diff',
      '--from',
      '2026-01-01T00:10:00Z',
      '--to',
      '2026-01-01T00:16:00Z',
      'shadow-partitions',
    ]);
    expect(r.code).toBe(1);
    expect(r.out).not.toContain('no differences');
    const total = /\n {4}lag (\d+) → (\d+) \((-?\+?\d+); \d+ moving\)/.exec(r.out);
    expect(total, r.out.slice(-600)).not.toBeNull();
    const [, from, to, delta] = total!;
    expect(BigInt(from!)).not.toBe(BigInt(to!));
    expect(BigInt(delta!.replace('+', ''))).toBe(BigInt(to!) - BigInt(from!));
    expect(r.out).toMatch(/ {6}lag: \d+ → \d+ \([+-]\d+\)/);
    const doc = JSON.parse(
      (
        await run([
          '-o',
          'json',
          'diff',
          '--from',
          '2026-01-01T00:10:00Z',
          '--to',
          '2026-01-01T00:16:00Z',
          'shadow-partitions',
        ])
      ).out,
    ) as {
      differences: number;
      resources: { changed: { gauges: { path: string; old: string; new: string; delta: string }[] }[] }[];
    };
    expect(doc.differences).toBeGreaterThan(0);
    const lag = doc.resources[0]!.changed.flatMap((e) => e.gauges).find((g) => g.path === 'lag');
    expect(BigInt(lag!.new) - BigInt(lag!.old)).toBe(BigInt(lag!.delta));
  });

  it('exits 2 when the database is missing', async () => {
    const r = await runFlightrec([
      '--db',
      tmp.path('missing.db'),
      'diff',
      '--from',
      '2026-01-01T00:10:00Z',
      '--to',
      '2026-01-01T00:16:00Z',
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('missing.db');
  });
});

describe('flightrec trends', () => {
  it('draws sparklines of rates rolled up by a key', async () => {
    const r = await run(['trends', 'produce-bytes', '--by', 'principal', '--top', '3']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^produce-bytes by principal/);
    expect(r.out).toMatch(/[▁▂▃▄▅▆▇█]{5}/);
    expect(r.out).toMatch(/\/s/);
    // heading and blank line, table header, 3 rows, blank line and the line saying the sparklines' scale
    expect(r.out.trim().split('\n').length).toBe(2 + 1 + 3 + 2);
    expect(r.out).toMatch(/each row on its own scale/);
  });

  it('writes JSON and CSV, and the lag trend classes', async () => {
    const doc = JSON.parse((await run(['-o', 'json', 'trends', 'shadow-lag', '--by', 'topic'])).out) as {
      rows: { trend: string; detail: { timeLagSeconds?: number } }[];
    };
    expect(doc.rows.length).toBeGreaterThan(0);
    expect(doc.rows.every((r) => ['ok', 'growing', 'stalled', 'stopped'].includes(r.trend))).toBe(true);
    expect((await run(['-o', 'csv', 'trends', 'connections', '--by', 'broker'])).out.split('\r\n')[0]).toBe(
      'key,bucket_start,value,trend',
    );
  });

  it('exits 2 on an unknown metric or key', async () => {
    expect((await run(['trends', 'latency'])).code).toBe(2);
    const r = await run(['trends', 'iceberg-lag', '--by', 'broker']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('partition, topic');
    expect((await run(['trends', 'requests', '--top', '0'])).code).toBe(2);
  });
});

describe('flightrec summary', () => {
  it('summarises the window before --until as a chat block, or JSON', async () => {
    const r = await run(['summary', '--window', '10m', '--until', '2026-01-01T00:10:00Z']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^flightrec summary · cluster sim · 10m00s until 2026-01-01T00:10:00Z/);
    expect(r.out).toContain('Abnormal now (');
    const doc = JSON.parse(
      (await run(['-o', 'json', 'summary', '--window', '10m', '--until', '2026-01-01T00:10:00Z'])).out,
    ) as { abnormal: unknown[] };
    expect(doc.abnormal.length).toBeGreaterThan(0);
  });

  it('defaults the window end to now: a stopped recording shows as a gap', async () => {
    const now = Date.UTC(2026, 0, 1, 1, 0, 0);
    const r = await run(['summary', '--window', '1h'], { now: () => now });
    expect(r.code).toBe(0);
    // one gap for the whole stopped collection, its operations named (was one per operation and target)
    expect(r.out).toMatch(/no poll of \d+ targets \([^)]*ListKafkaConnections[^)]*\) for 45m00s so far/);
  });

  it('exits 2 on a bad window', async () => {
    const r = await run(['summary', '--window', 'forever']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--window');
  });
});
