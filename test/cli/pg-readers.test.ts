/**
 * Every reader on PostgreSQL answers as on SQLite: the same simulated clusters (same seeds, same
 * virtual times) recorded once into an SQLite file and once into a fresh PostgreSQL database,
 * then query (filters of every kind, --at, --since), diff, trends, timeline, summary, export,
 * fleet and `timeline --cluster '*'` print the same on both; db stats, vacuum, log and check run
 * on both; db prune leaves the same answers (retention by the collector on both engines: in
 * pg-readers-retention.test.ts, a file of its own so that it runs beside this one). Needs a server
 * (PGlite would take minutes).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { recordClusters, runFlightrec, tempDir, type CliRun } from '../fixtures/timeline/run-cli.ts';
import { onEngine } from '../helpers/engine-compare.ts';
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
const BIN = resolve(import.meta.dirname, '../../bin/flightrec.js');
/** Why `browse` cannot be driven in a terminal here, or undefined. */
const noTmux =
  spawnSync('tmux', ['-V']).status !== 0
    ? 'tmux is not installed'
    : existsSync(BIN)
      ? undefined
      : `${BIN} is missing (npm run build)`;
const NOW = Date.parse('2026-01-01T00:05:00Z');

async function record(db: string): Promise<void> {
  await recordClusters(db, CLUSTERS, 30);
}

function pgUrl(): string {
  if (pgt === undefined) throw new Error('no PostgreSQL target');
  return pgt.target;
}

/** Runs a command on one engine, the clock at NOW; the database target in the output becomes `<db>`. */
const on = (db: string, args: readonly string[]): Promise<CliRun> => onEngine(db, args, NOW);

/** Runs a command on both engines and expects the same exit code and output. */
async function same(args: readonly string[]): Promise<CliRun> {
  const [a, b] = [await on(file, args), await on(pgUrl(), args)];
  expect({ code: b.code, out: b.out, err: b.err }, args.join(' ')).toEqual({ code: a.code, out: a.out, err: a.err });
  return a;
}

describeWithServer('every reader on PostgreSQL answers as on SQLite', () => {
  beforeAll(async () => {
    pgt = await freshPgTarget({ migrated: true });
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
      [
        '-o',
        'json',
        'diff',
        'connections',
        'shadow-links',
        '--from',
        '2026-01-01T00:00:30Z',
        '--to',
        '2026-01-01T00:03:30Z',
      ],
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

  it('db stats: the same counts, sizes of the engine it names', async () => {
    const [a, b] = [await on(file, ['db', 'stats']), await on(pgUrl(), ['db', 'stats'])];
    expect([a.code, b.code], a.err + b.err).toEqual([0, 0]);
    expect(a.out).toMatch(/^engine\s+SQLite$/m);
    expect(b.out).toMatch(/^engine\s+PostgreSQL$/m);
    expect(b.out).toMatch(/^table size \(with indexes\)\s+[0-9.]+ (KiB|MiB)$/m);
    // from `polls` on, only the bytes differ by engine
    const counts = (out: string) =>
      out
        .slice(out.indexOf('polls '))
        .split('\n')
        .filter((l) => !/[KMG]iB\/day/.test(l))
        // the bytes are each engine's own: the counts before them are the same
        .map((l) => l.replace(/\s+[0-9.]+ (B|KiB|MiB|GiB)(\s+[0-9.]+(\/poll)?)?$/, ''));
    expect(counts(b.out)).toEqual(counts(a.out));
    const [ja, jb] = await Promise.all(
      [file, pgUrl()].map(
        async (db) =>
          // not through onEngine: its poll id rewriting would reach the digits of a fraction
          JSON.parse((await runFlightrec(['--db', db, '-o', 'json', 'db', 'stats'], { now: () => NOW })).out) as {
            engine: string;
            fileBytes: number;
            samples: Record<string, number>;
            resources: Record<string, { samples: number; bytes: number; bytesPerSample: number }>;
          },
      ),
    );
    expect([ja!.engine, jb!.engine]).toEqual(['sqlite', 'postgres']);
    expect(jb!.samples).toEqual(ja!.samples);
    // the store's tables with their indexes, every partition: more than SQLite's file, not absurdly so
    expect(jb!.fileBytes).toBeGreaterThan(ja!.fileBytes / 2);
    expect(jb!.fileBytes).toBeLessThan(ja!.fileBytes * 20);
    // each resource's own tables: bytes per sample is its bytes over its samples, on both engines
    for (const j of [ja!, jb!]) {
      const c = j.resources.connections!;
      expect(c.bytes).toBeGreaterThan(0);
      expect(c.bytes).toBeLessThan(j.fileBytes);
      expect(c.bytesPerSample).toBeCloseTo(c.bytes / c.samples, 6);
    }
  }, 120_000);

  it('db check runs the store checks on both (PostgreSQL says what it leaves to the server)', async () => {
    const [a, b] = [await on(file, ['db', 'check']), await on(pgUrl(), ['db', 'check'])];
    expect([a.code, b.code], a.err + b.err).toEqual([0, 0]);
    expect(a.out).toContain('1 sqlite file, ');
    expect(b.out).toContain("not checked: PostgreSQL's own pages and indexes");
    const tables = (out: string) => out.split('\n')[0]!.replace(/^checked <db>: (1 sqlite file, )?/, '');
    // the same rows, but for the chunk groups: PostgreSQL's are larger (fewer rows), sized for its page
    const chunks = (out: string) => Number(/(\d+) conn_chunk/.exec(out)?.[1]);
    const other = (out: string) => tables(out).replace(/\d+ conn_chunk/, 'conn_chunk');
    expect(other(b.out)).toEqual(other(a.out));
    expect(chunks(b.out)).toBeGreaterThan(0);
    expect(chunks(b.out)).toBeLessThan(chunks(a.out));
    expect(b.out).toContain('no damage found');
  }, 120_000);

  it('db prune leaves the same answers on both; db vacuum and db log run', async () => {
    const cut = ['db', 'prune', '--older-than', '2026-01-01T00:02:00Z'];
    const dry = await Promise.all([file, pgUrl()].map((db) => on(db, [...cut, '--dry-run'])));
    // the byte estimate differs by engine; the polls and samples do not
    const noBytes = (s: string) => s.replace(/about [0-9.]+ [KM]?i?B/, 'about N');
    expect(noBytes(dry[1]!.out)).toEqual(noBytes(dry[0]!.out));
    await same([...cut, '-y']);
    for (const c of ['dc-storm', 'dc-shadow']) {
      await same(['--cluster', c, 'query', 'connections', '--at', AT]);
      await same([
        '--cluster',
        c,
        '-o',
        'csv',
        'query',
        'polls',
        '--since',
        '2026-01-01T00:00:00Z',
        '--until',
        '2026-01-01T00:04:00Z',
      ]);
      await same(['--cluster', c, 'query', 'shadow-partitions', '--at', '2026-01-01T00:01:00Z']);
      await same(['--cluster', c, '-o', 'json', 'timeline']);
      await same(['--cluster', c, 'export', '--out', '-']);
    }
    for (const db of [file, pgUrl()]) {
      const v = await on(db, ['db', 'vacuum']);
      expect(v.code, v.err).toBe(0);
      expect(v.out).toMatch(/^vacuumed <db>: [0-9.]+ [KM]iB -> [0-9.]+ [KM]iB$/m);
    }
    const log = await Promise.all([file, pgUrl()].map((db) => on(db, ['-o', 'json', 'db', 'log'])));
    const entries = log.map((r) => {
      expect(r.code, r.err).toBe(0);
      // what was removed is the same; bytes freed and duration are the engine's
      const doc = JSON.parse(r.out) as { database: string; entries: Record<string, unknown>[] };
      return doc.entries.map(({ bytes: _b, durationMs: _d, ...rest }) => rest);
    });
    expect(entries[0]!.length).toBe(1);
    expect(entries[1]).toEqual(entries[0]);
  }, 240_000);

  it.skipIf(noTmux !== undefined)(
    `browse opens a PostgreSQL URL; its timeline worker reads through its own connection${noTmux === undefined ? '' : ` [skipped: ${noTmux}]`}`,
    async () => {
      const socket = `flightrec-pgr-${process.pid}`;
      const tmux = (...args: string[]) => spawnSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
      const screen = () => tmux('capture-pane', '-p', '-t', 'b').stdout ?? '';
      const waitFor = async (re: RegExp): Promise<string> => {
        for (let i = 0; ; i++) {
          const s = screen();
          if (re.test(s)) return s;
          if (i > 600) throw new Error(`the pane never showed ${String(re)}; it shows:\n${s}`);
          await new Promise((r) => setTimeout(r, 100));
        }
      };
      const cmd = `'${process.execPath}' '${BIN}' --db '${pgUrl()}' --cluster dc-storm browse`;
      const started = tmux(
        'new-session',
        '-d',
        '-s',
        'b',
        '-x',
        '160',
        '-y',
        '45',
        '-e',
        'TERM=xterm-256color',
        '-e',
        'CI=true',
        cmd,
      );
      expect(started.status, started.stderr).toBe(0);
      try {
        let s = await waitFor(/Latest events/);
        expect(s).toContain('cluster dc-storm');
        expect(s).toContain(`db ${pgUrl()}`);
        // the overview's latest events come from the timeline worker (its own PostgreSQL connection)
        s = await waitFor(/connections\.storm/);
        tmux('send-keys', '-t', 'b', ':timeline', 'Enter');
        s = await waitFor(/overview › timeline/);
        s = await waitFor(/error +connections\.storm +principal\/User:svc-reporting/);
        tmux('send-keys', '-t', 'b', ':connections', 'Enter');
        s = await waitFor(/UID +NODE +CLIENT ID/);
        expect(s).toMatch(/reporting-batch-storm-/);
      } finally {
        tmux('kill-server');
      }
    },
    120_000,
  );
});
