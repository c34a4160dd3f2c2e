/**
 * Through the command line, on an SQLite file and on PostgreSQL: GetShadowLink, ListShadowTopics
 * and GetShadowTopic each report the shadow topics and partitions of a round, and every reader
 * gives one sample per entity per round (query, timeline, db stats); `--source OPERATION` reads
 * one operation's raw samples (query, export). Before: each round counted three times.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EVERY_30S, runFlightrec, tempDir, type CliRun } from '../fixtures/timeline/run-cli.ts';
import { onEngine } from '../helpers/engine-compare.ts';
import { describeWithServer, freshPgTarget, type PgTarget } from '../helpers/pg.ts';

const tmp = tempDir();
const file = tmp.path('history.db');
let pgt: PgTarget | undefined;
const NOW = Date.parse('2026-01-01T00:05:00Z');
const RANGE = ['--since', '2026-01-01T00:00:00Z', '--until', '2026-01-01T00:03:00Z'];
const SOURCES = ['GetShadowTopic', 'ListShadowTopics', 'GetShadowLink'] as const;

async function record(db: string): Promise<void> {
  const args = ['--db', db, 'collect', '--simulate', 'shadow-link', '--for', '3m', '--seed', '12'];
  const r = await runFlightrec([...args, '--connections', '30', ...EVERY_30S]);
  if (r.code !== 0) throw new Error(`collect into ${db}: ${r.err.slice(-500)}`);
}

const engines = (): [string, string][] => [
  ['sqlite', file],
  ['postgres', pgt!.target],
];
const on = (db: string, args: readonly string[]): Promise<CliRun> => onEngine(db, args, NOW);

interface Sample {
  readonly time: string;
  readonly pollId: string;
  readonly row: { shadowLinkName: string; topicName: string; partitionId: string };
}

async function partitions(db: string, extra: readonly string[] = []): Promise<{ total: number; samples: Sample[] }> {
  const r = await on(db, ['-o', 'json', 'query', 'shadow-partitions', ...RANGE, ...extra]);
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out) as { total: number; samples: Sample[] };
}

const keyOf = (s: Sample): string => [s.time, s.row.shadowLinkName, s.row.topicName, s.row.partitionId].join('/');

describeWithServer('shadow samples: one per entity per round, raw history by --source', () => {
  beforeAll(async () => {
    pgt = await freshPgTarget({ migrated: true });
    await record(file);
    await record(pgt.target);
  }, 240_000);
  afterAll(async () => {
    await pgt?.drop();
    tmp.remove();
  });

  it('query: no (instant, link, topic, partition) twice; --source gives each operation its raw samples', async () => {
    for (const [engine, db] of engines()) {
      const merged = await partitions(db);
      const keys = merged.samples.map(keyOf);
      expect(new Set(keys).size, engine).toBe(keys.length);
      expect(merged.total, engine).toBeGreaterThan(0);
      const polls = JSON.parse(
        (await on(db, ['-o', 'json', 'query', 'polls', ...RANGE, '--filter', 'outcome = "ok"'])).out,
      ) as { rows: { id: string; operation: string }[] };
      const opOf = new Map(polls.rows.map((p) => [p.id, p.operation]));
      const union = new Set<string>();
      let raw = 0;
      for (const source of SOURCES) {
        const own = await partitions(db, ['--source', source]);
        expect(
          own.samples.every((s) => opOf.get(s.pollId) === source),
          `${engine} ${source}`,
        ).toBe(true);
        for (const s of own.samples) union.add(keyOf(s));
        raw += own.total;
      }
      // the merged samples are exactly the entities of every round, each once (the raw ones: three times)
      expect(new Set(keys), engine).toEqual(union);
      expect(raw, engine).toBe(3 * merged.total);
      // the round's winner is the most detailed answer: the topic's own (GetShadowTopic)
      expect(new Set(merged.samples.map((s) => opOf.get(s.pollId))), engine).toEqual(new Set(['GetShadowTopic']));
      const bad = await on(db, ['query', 'shadow-topics', ...RANGE, '--source', 'GetUpgradeStatus']);
      expect(bad.code, engine).toBe(2);
      expect(bad.err).toContain(
        'invalid --source: shadow-topics is reported by ListShadowTopics, GetShadowTopic, GetShadowLink, not "GetUpgradeStatus"',
      );
      const at = await on(db, ['-o', 'json', 'query', 'shadow-topics', '--at', '2026-01-01T00:02:10Z']);
      const atLink = await on(db, [
        '-o',
        'json',
        'query',
        'shadow-topics',
        '--at',
        '2026-01-01T00:02:10Z',
        '--source',
        'GetShadowLink',
      ]);
      const state = JSON.parse(at.out) as { total: number };
      expect(JSON.parse(atLink.out), engine).toMatchObject({ source: 'GetShadowLink', total: state.total });
    }
  }, 120_000);

  it('the same samples on both engines', async () => {
    const args = ['query', 'shadow-topics', ...RANGE];
    const [a, b] = [await on(file, args), await on(pgt!.target, args)];
    expect(b).toEqual(a);
  }, 60_000);

  it('timeline: the shadow lag series has one point per instant', async () => {
    for (const [engine, db] of engines()) {
      const r = await on(db, ['-o', 'json', 'timeline', ...RANGE]);
      expect(r.code, r.err).toBe(0);
      const series = (JSON.parse(r.out) as { series: { name: string; points: [string, number][] }[] }).series;
      const shadow = series.filter((s) => s.name.startsWith('shadow.lag/'));
      expect(shadow.length, engine).toBeGreaterThan(0);
      for (const s of shadow) {
        const times = s.points.map((p) => p[0]);
        expect(new Set(times).size, `${engine} ${s.name}`).toBe(times.length);
      }
    }
  }, 60_000);

  it('db stats: samples as the readers give them, stored rows, bytes per sample of the own tables', async () => {
    for (const [engine, db] of engines()) {
      // not through onEngine: its poll id rewriting would reach the digits of a fraction
      const r = await runFlightrec(['--db', db, '-o', 'json', 'db', 'stats'], { now: () => NOW });
      expect(r.code, r.err).toBe(0);
      type Res = { samples: number; storedRows: number; bytes: number; bytesPerSample: number; entities: number };
      const s = JSON.parse(r.out) as {
        resources: Record<string, Res>;
        fileBytes: number;
        overheadBytes: number;
        pollLog: { bytes: number };
        strings: { bytes: number };
      };
      const all = JSON.parse(
        (await on(db, ['-o', 'json', 'query', 'shadow-partitions', '--since', '2025-12-31T00:00:00Z'])).out,
      ) as { total: number };
      const p = s.resources['shadow-partitions']!;
      expect(p.samples, engine).toBe(all.total);
      expect(p.storedRows, engine).toBe(3 * p.samples);
      for (const [name, res] of Object.entries(s.resources)) {
        expect(res.bytes, `${engine} ${name}`).toBeGreaterThan(0);
        expect(res.bytesPerSample, `${engine} ${name}`).toBeCloseTo(res.bytes / res.samples, 6);
      }
      // every table, partitioned or not (PostgreSQL's sizes counted the partitioned ones only)
      expect(s.strings.bytes, engine).toBeGreaterThan(0);
      expect(s.resources.connections!.bytes, engine).toBeGreaterThan(s.resources['shadow-tasks']!.bytes);
      const parts = Object.values(s.resources).reduce((n, res) => n + res.bytes, 0) + s.pollLog.bytes;
      expect(parts + s.overheadBytes, engine).toBeLessThanOrEqual(s.fileBytes);
      const text = await on(db, ['db', 'stats']);
      expect(text.out, engine).toMatch(/^shadow-partitions\s+\d+\s+(\d+)\s+(\d+)\s+[0-9.]+ KiB\s+\d+\.\d$/m);
      expect(text.out, engine).toMatch(/^fixed overhead\s+[0-9.]+ (B|KiB|MiB)$/m);
      expect(text.out, engine).not.toContain('bytes per connection sample');
    }
  }, 120_000);

  it('export --source: the polls of that operation only', async () => {
    for (const [engine, db] of engines()) {
      const r = await on(db, ['export', ...RANGE, '--source', 'GetShadowTopic', '--out', '-']);
      expect(r.code, r.err).toBe(0);
      const bundle = JSON.parse(r.out) as { source: string; polls: { poll: { operation: string } }[] };
      expect(bundle.source, engine).toBe('GetShadowTopic');
      expect(bundle.polls.length, engine).toBeGreaterThan(0);
      expect(new Set(bundle.polls.map((p) => p.poll.operation)), engine).toEqual(new Set(['GetShadowTopic']));
      const bad = await on(db, ['export', '--source', 'GetShadowTopics', '--out', '-']);
      expect(bad.code, engine).toBe(2);
      expect(bad.err).toContain('invalid --source: unknown operation "GetShadowTopics" (did you mean GetShadowTopic');
    }
  }, 60_000);
});
