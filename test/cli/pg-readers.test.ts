/**
 * Every reader on PostgreSQL answers as on SQLite: the same simulated clusters (same seeds, same
 * virtual times) recorded once into an SQLite file and once into a fresh PostgreSQL database,
 * then query (filters of every kind, --at, --since), diff, trends, timeline, summary, export,
 * fleet and `timeline --cluster '*'` print the same on both; db stats, vacuum, log and check run
 * on both; db prune leaves the same answers. Needs a server (PGlite would take minutes).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EVERY_30S, runFlightrec, tempDir, type CliRun } from '../fixtures/timeline/run-cli.ts';
import { describeWithServer, freshPgTarget, type PgTarget } from '../helpers/pg.ts';

const tmp = tempDir();
const file = tmp.path('history.db');
let pgt: PgTarget | undefined;

/** Two clusters: a connection storm and a shadow link paused (each with shadow, Iceberg and upgrade data). */
const CLUSTERS = [
  { cluster: 'dc-storm', scenario: 'connection-storm', for: '4m', seed: '11' },
  { cluster: 'dc-shadow', scenario: 'shadow-link', for: '4m', seed: '12' },
] as const;

const AT = '2026-01-01T00:02:15Z';
const NOW = Date.parse('2026-01-01T00:05:00Z');

async function record(db: string): Promise<void> {
  for (const c of CLUSTERS) {
    const r = await runFlightrec([
      '--db',
      db,
      '--cluster',
      c.cluster,
      'collect',
      '--simulate',
      c.scenario,
      '--for',
      c.for,
      '--seed',
      c.seed,
      '--connections',
      '30',
      ...EVERY_30S,
    ]);
    if (r.code !== 0) throw new Error(`collect ${c.cluster} into ${db}: ${r.err.slice(-500)}`);
  }
}

function pgUrl(): string {
  if (pgt === undefined) throw new Error('no PostgreSQL target');
  return pgt.target;
}

/**
 * A PostgreSQL poll id is (UTC day number << 32) + sequence (DESIGN-17: ids give the day of their
 * partition); the sequence is SQLite's id for the same recording. Both outputs get the sequence.
 */
function pollSequences(s: string): string {
  return s.replace(/\b\d{13,17}\b/g, (n) => {
    const id = BigInt(n);
    const day = id >> 32n;
    return day >= 19_000n && day <= 40_000n ? String(id & 0xffff_ffffn) : n;
  });
}

/** Runs a command on one engine, the clock at NOW; the database target in the output becomes `<db>`. */
async function on(db: string, args: readonly string[]): Promise<CliRun> {
  const r = await runFlightrec(['--db', db, ...args], { now: () => NOW });
  const clean = (s: string) => pollSequences(s.split(db).join('<db>'));
  return { code: r.code, out: clean(r.out), err: clean(r.err) };
}

/** Runs a command on both engines and expects the same exit code and output. */
async function same(args: readonly string[]): Promise<CliRun> {
  const [a, b] = [await on(file, args), await on(pgUrl(), args)];
  expect({ code: b.code, out: b.out, err: b.err }, args.join(' ')).toEqual({ code: a.code, out: a.out, err: a.err });
  return a;
}

describeWithServer('every reader on PostgreSQL answers as on SQLite', () => {
  beforeAll(async () => {
    pgt = await freshPgTarget();
    await record(file);
    await record(pgt.target);
  }, 240_000);
  afterAll(async () => {
    await pgt?.drop();
    tmp.remove();
  });

  it('query: resources, filters (strings, has, wildcards, numbers), --at and --since', async () => {
    const c = ['--cluster', 'dc-storm'];
    const cases: string[][] = [
      ['query', 'connections', '--at', AT],
      ['-o', 'json', 'query', 'connections', '--at', AT],
      ['query', 'connections', '--at', AT, '--filter', 'state = "KAFKA_CONNECTION_STATE_OPEN"'],
      ['query', 'connections', '--at', AT, '--filter', 'client_id = "reporting-batch-storm-*"'],
      ['query', 'connections', '--at', AT, '--filter', 'client_id = "*-7"'],
      ['query', 'connections', '--at', AT, '--filter', 'client_id > "reporting-batch-storm-5"'],
      ['query', 'connections', '--at', AT, '--filter', 'authentication_info.user_principal:"User:svc-*"'],
      ['query', 'connections', '--at', AT, '--filter', 'client_id:"*storm*"'],
      ['query', 'connections', '--at', AT, '--filter', 'NOT client_id = "REPORTING-*"'],
      ['query', 'connections', '--at', AT, '--filter', 'client_id < "reporting-batch-storm-2" OR source.port < 2000'],
      ['query', 'connections', '--at', AT, '--filter', 'node_id >= 1 AND total_request_statistics.request_count > 3'],
      ['query', 'connections', '--at', AT, '--filter', 'NOT group_id = ""', '--order-by', 'client_id desc'],
      ['query', 'connections', '--at', AT, '--order-by', 'group_id, uid', '--limit', '20'],
      ['query', 'shadow-links', '--at', AT],
      ['query', 'shadow-partitions', '--at', AT, '--filter', 'topic_name = "click*" AND source_high_watermark > 0'],
      ['query', 'shadow-topics', '--at', AT],
      ['query', 'shadow-tasks', '--at', AT],
      ['query', 'upgrade', '--at', AT],
      ['query', 'upgrade-members', '--at', AT],
      ['query', 'iceberg-topics', '--at', AT],
      ['query', 'iceberg-partitions', '--at', AT, '--filter', 'topic = "pay*" OR commit_lag > 0'],
      ['-o', 'csv', 'query', 'polls', '--since', '2026-01-01T00:00:00Z', '--until', '2026-01-01T00:04:00Z'],
      ['-o', 'csv', 'query', 'connections', '--since', '2026-01-01T00:01:30Z', '--until', '2026-01-01T00:02:30Z'],
    ];
    for (const args of cases) {
      const r = await same([...c, ...args]);
      expect(r.code, `${args.join(' ')}: ${r.err}`).toBe(0);
    }
  }, 240_000);

  it('diff, trends, timeline (text and json), summary, export', async () => {
    const c = ['--cluster', 'dc-storm'];
    const cases: string[][] = [
      ['diff', '--from', '2026-01-01T00:01:00Z', '--to', AT],
      ['-o', 'json', 'diff', 'connections', 'shadow-links', '--from', '2026-01-01T00:00:30Z', '--to', '2026-01-01T00:03:30Z'],
      ['trends', 'connections'],
      ['trends', 'connections', '--by', 'client', '--since', '2026-01-01T00:01:00Z', '--until', '2026-01-01T00:03:00Z'],
      ['-o', 'json', 'trends', 'produce-bytes', '--by', 'principal', '--top', '5'],
      ['trends', 'requests', '--by', 'broker'],
      ['trends', 'shadow-lag', '--by', 'link'],
      ['-o', 'json', 'trends', 'iceberg-lag', '--by', 'topic'],
      ['timeline'],
      ['-o', 'json', 'timeline'],
      ['timeline', '--min-severity', 'warn', '--for', 'broker/1'],
      ['summary', '--until', '2026-01-01T00:04:00Z'],
      ['-o', 'json', 'summary', '--window', '2m', '--until', AT],
      ['export', '--out', '-'],
      ['export', '--out', '-', '--since', '2026-01-01T00:01:00Z', '--until', '2026-01-01T00:02:00Z'],
    ];
    for (const args of cases) {
      const r = await same([...c, ...args]);
      expect(r.code, `${args.join(' ')}: ${r.err}`).toBeLessThanOrEqual(1);
    }
    const shadow = await same(['--cluster', 'dc-shadow', '-o', 'json', 'timeline']);
    expect(shadow.out).toContain('shadow.link-state');
  }, 240_000);

  it("fleet, and timeline, query and summary with --cluster '*'", async () => {
    const fleet = await same(['fleet', '--at', AT]);
    expect(fleet.out).toContain('dc-shadow');
    await same(['-o', 'json', 'fleet', '--at', AT]);
    await same(['fleet']);
    const tl = await same(['--cluster', '*', 'timeline']);
    expect(tl.out).toContain('connections.storm');
    await same(['--cluster', '*', '-o', 'json', 'timeline']);
    await same(['--cluster', 'dc-*', '-o', 'csv', 'query', 'shadow-links', '--at', AT]);
    await same(['--cluster', '*', 'summary']);
  }, 240_000);
});
