/**
 * `flightrec db copy` between engines: a simulated SQLite recording (incidents, failed polls with
 * raw bodies, raw answers kept, history pruned and rolled up) copied to PostgreSQL and from there
 * to a second SQLite file gives the same `export` byte for byte (of the PostgreSQL database too)
 * and the same `query`, `timeline` and `db log` on all three; a copy into PostgreSQL stopped by a
 * signal, or killed (SIGKILL) in a child process, and run again ends identical. Poll ids: the
 * copied ids never collide with the polls a collector records into the target afterwards, also
 * when they are ids of today from another PostgreSQL database.
 *
 * PostgreSQL is the server of FLIGHTREC_TEST_PG, else PGlite (slow: every open starts a
 * PostgreSQL in WebAssembly); the SIGKILL test watches the target from a second connection while
 * the child copies, which needs a server.
 */
import { spawn } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/context.ts';
import { main } from '../../src/cli/main.ts';
import { createHistoryWriter, openDatabase, recordedPolls } from '../../src/db/index.ts';
import { COPY_SOURCE } from '../fixtures/recordings.ts';
import { copyOfRecording } from '../fixtures/shared-recording.ts';
import { runFlightrec, tempDir } from '../fixtures/timeline/run-cli.ts';
import { memoryIo } from '../helpers/memory-io.ts';
import { childArgs } from '../reliability/support/child-script.ts';
import { describeWithServer, freshPgTarget, pgAvailable } from '../helpers/pg.ts';

const tmp = tempDir();
const source = tmp.path('source.db');
const ENGINE = pgAvailable().url === undefined ? 'pglite' : 'postgres';
/** Each PGlite open starts a PostgreSQL in WebAssembly (seconds on a busy machine). */
const LONG = ENGINE === 'pglite' ? 600_000 : 120_000;

beforeAll(async () => {
  // recorded once per run for both db copy files
  await copyOfRecording(source, COPY_SOURCE);
}, 120_000);
afterAll(() => tmp.remove());

/** The outputs a copy must reproduce (one command at a time: a PGlite database has one user). */
async function answersOf(db: string): Promise<string[]> {
  const at = { now: () => 0 };
  const argvs = [
    ['--db', db, 'export', '--out', '-'],
    ['--db', db, 'query', 'connections', '--at', '2026-01-01T00:10:00Z', '-o', 'json'],
    ['--db', db, 'query', 'polls', '--since', '2026-01-01T00:00:00Z', '--until', '2026-01-01T00:12:00Z', '-o', 'csv'],
    ['--db', db, 'timeline', '--since', '2026-01-01T00:00:00Z', '--until', '2026-01-01T00:12:00Z'],
    ['--db', db, '-o', 'json', 'db', 'log'],
  ];
  const out: string[] = [];
  for (const argv of argvs) {
    const r = await runFlightrec(argv, at);
    expect(r.code, r.err).toBe(0);
    out.push(r.out.replaceAll(db, 'DB'));
  }
  return out;
}

/** `db copy -o json`, expected to succeed; its summary. */
async function copy(from: string, to: string, ...extra: string[]): Promise<Record<string, unknown>> {
  const run = await runFlightrec(['-o', 'json', 'db', 'copy', '--from', from, '--to', to, ...extra]);
  expect(run.code, run.err).toBe(0);
  return JSON.parse(run.out) as Record<string, unknown>;
}

/** Runs `fn` on a database opened read-only (SQLite file or PostgreSQL URL), then closes it. */
function inspect<T>(target: string, fn: (db: ReturnType<typeof openDatabase>) => T): T {
  const db = openDatabase(target, { readonly: true });
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

const polls = (target: string): number =>
  inspect(target, (db) => Number(db.sqlite.prepare('SELECT count(*) FROM poll').pluck().get()));

let expected: string[];
let total: number;
beforeAll(async () => {
  expected = await answersOf(source);
  total = polls(source);
}, 60_000);

describeWithServer(`db copy SQLite -> PostgreSQL -> SQLite (${ENGINE}; on PGlite it would take minutes)`, () => {
  it(
    'gives the same export byte for byte, query, timeline and db log, on PostgreSQL and back in SQLite',
    async () => {
      expect(expected[0]).toContain('"failure":{"code":"unavailable"');
      const pgdb = (await freshPgTarget({ persistent: true, migrated: true })).target;
      expect(await copy(source, pgdb)).toMatchObject({ polls: total, alreadyCopied: 0, idsKept: total });
      // the copy analyzed what it loaded (last_analyze is set by ANALYZE, never by autovacuum)
      const analyzed = inspect(pgdb, (db) =>
        db.sqlite
          .prepare(
            "SELECT relname FROM pg_stat_user_tables WHERE relname IN ('poll', 'conn_entity') AND last_analyze IS NOT NULL ORDER BY relname",
          )
          .pluck()
          .all(),
      );
      expect(analyzed).toEqual(['conn_entity', 'poll']);
      expect(await answersOf(pgdb)).toEqual(expected);
      const back = tmp.path('back.db');
      expect(await copy(pgdb, back)).toMatchObject({ polls: total, alreadyCopied: 0, idsKept: total });
      expect(await answersOf(back)).toEqual(expected);
      // run again: nothing left to copy, nothing added
      expect(await copy(source, pgdb)).toMatchObject({ polls: 0, alreadyCopied: total, maintenanceLogEntries: 0 });
      expect(await copy(pgdb, back)).toMatchObject({ polls: 0, alreadyCopied: total, maintenanceLogEntries: 0 });
      expect((await answersOf(back))[0]).toEqual(expected[0]);
    },
    LONG,
  );

  it(
    'stopped by a signal between two batches, run again: the same answers',
    async () => {
      const pgdb = (await freshPgTarget({ persistent: true, migrated: true })).target;
      const controller = new AbortController();
      let bars = 0;
      let err = '';
      // a clock a second further at each reading: the bar (redrawn at most every 100 ms) is drawn at
      // every batch, however fast the machine copies
      let clock = 0;
      const io: CliIo = {
        ...memoryIo({ signal: controller.signal, now: () => (clock += 1000) }),
        stderr: {
          isTTY: true,
          columns: 120,
          write: (s: string) => {
            err += s;
            // the first bar, then one per batch: stop after the second batch
            if (s.startsWith('\r[') && ++bars === 3) controller.abort();
          },
        },
      };
      expect(await main(['db', 'copy', '--from', source, '--to', pgdb, '--batch', '10'], io)).toBe(1);
      expect(err).toContain(`flightrec: interrupted after copying 20 of ${total} polls into ${pgdb}`);
      expect(await copy(source, pgdb)).toMatchObject({ polls: total - 20, alreadyCopied: 20, clusters: 1 });
      const back = tmp.path('back-interrupted.db');
      await copy(pgdb, back);
      expect(await answersOf(back)).toEqual(expected);
      expect((await runFlightrec(['--db', pgdb, 'export', '--out', '-'], { now: () => 0 })).out).toBe(expected[0]);
    },
    LONG,
  );

  it(
    'keeps copied poll ids apart from the polls recorded afterwards, also ids of today from another PostgreSQL',
    async () => {
      // a recording made today on PostgreSQL: ids (today << 32) + 1, 2, 3...
      const first = (await freshPgTarget({ persistent: true, migrated: true })).target;
      const rec = await runFlightrec(['--db', first, '--cluster', 'alpha', 'collect', '--simulate', '--for', '1m']);
      expect(rec.code, rec.err).toBe(0);
      const second = (await freshPgTarget({ persistent: true, migrated: true })).target;
      const n = polls(first);
      expect(await copy(first, second)).toMatchObject({ polls: n, idsKept: n });
      // a collector records another cluster into the copy: its ids come after the copied ones
      const more = await runFlightrec(['--db', second, '--cluster', 'beta', 'collect', '--simulate', '--for', '1m']);
      expect(more.code, more.err).toBe(0);
      const [alphaMax, betaMin, all, distinct] = inspect(
        second,
        (db) =>
          db.sqlite
            .prepare(
              `SELECT (SELECT max(p.id) FROM poll p JOIN cluster c ON c.id = p.cluster_id WHERE c.name = 'alpha'),
               (SELECT min(p.id) FROM poll p JOIN cluster c ON c.id = p.cluster_id WHERE c.name = 'beta'),
               (SELECT count(*) FROM poll), (SELECT count(DISTINCT id) FROM poll)`,
            )
            .raw()
            .safeIntegers()
            .get() as [bigint, bigint, bigint, bigint],
      );
      expect(all).toBe(distinct);
      expect(betaMin).toBeGreaterThan(alphaMax);
      expect(alphaMax >> 32n).toBeGreaterThan(20_000n); // ids of today, not small ones
      // and the recording copied from SQLite (ids 1, 2, 3...): new polls come after them too
      const copied = (await freshPgTarget({ persistent: true, migrated: true })).target;
      await copy(source, copied);
      const after = await runFlightrec(['--db', copied, '--cluster', 'beta', 'collect', '--simulate', '--for', '30s']);
      expect(after.code, after.err).toBe(0);
      const [count, unique] = inspect(
        copied,
        (db) => db.sqlite.prepare('SELECT count(*), count(DISTINCT id) FROM poll').raw().get() as [number, number],
      );
      expect(count).toBe(unique);
      expect(count).toBeGreaterThan(total);
    },
    LONG,
  );
  it(
    'numbers the polls of a later day itself (a source clock ahead): no row waits in a default partition',
    async () => {
      // five polls of the recording, with ids of a day three days ahead of today
      const ahead = tmp.path('ahead.db');
      const day = BigInt(Math.floor(Date.now() / 86_400_000) + 3);
      const from = openDatabase(source, { readonly: true });
      const to = openDatabase(ahead, { keepRawAnswers: true });
      try {
        const writer = createHistoryWriter(to);
        for (const p of recordedPolls(from).page(0n, 2n ** 62n, 5))
          writer.writePoll({ ...p.record, id: (day << 32n) + p.id });
        writer.close();
      } finally {
        from.close();
      }
      const pgdb = (await freshPgTarget({ persistent: true, migrated: true })).target;
      expect(await copy(ahead, pgdb)).toMatchObject({ polls: 5, idsKept: 0 });
      const days = inspect(pgdb, (db) =>
        (db.sqlite.prepare('SELECT id FROM poll ORDER BY id').pluck().safeIntegers().all() as bigint[]).map(
          (id) => id >> 32n,
        ),
      );
      expect(days).toHaveLength(5);
      for (const d of days) expect(d).toBeLessThan(day);
      expect(
        (await runFlightrec(['--db', pgdb, 'query', 'polls', '-o', 'csv'])).out.split('\n').filter(Boolean),
      ).toHaveLength(6);
    },
    LONG,
  );
});

describeWithServer('db copy into PostgreSQL killed (SIGKILL) in the middle', () => {
  it(
    'run again: the same answers, no duplicate',
    async () => {
      const pgdb = (await freshPgTarget({ migrated: true })).target;
      const argv = ['db', 'copy', '--from', source, '--to', pgdb, '--batch', '1'];
      // run() of src/cli/main.ts, bundled (test/reliability/support/child-script.ts): seconds less to start than through tsx
      const child = spawn(process.execPath, [...(await childArgs('run-child.ts')), ...argv], { stdio: 'ignore' });
      const ended = new Promise<NodeJS.Signals | null>((done) => child.on('exit', (_c, signal) => done(signal)));
      const client = new pg.Client({ connectionString: pgdb });
      await client.connect();
      const count = async (): Promise<number> =>
        Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM poll')).rows[0]!.n);
      // kill it as soon as the target holds a committed poll
      let seen = 0;
      try {
        for (let i = 0; i < 3000 && seen === 0 && child.exitCode === null; i++) {
          await new Promise((r) => setTimeout(r, 10));
          seen = await count();
        }
        child.kill('SIGKILL');
        expect(await ended).toBe('SIGKILL');
        const held = await count();
        expect(held).toBeGreaterThan(0);
        expect(held).toBeLessThan(total);
        expect(await copy(source, pgdb)).toMatchObject({ alreadyCopied: held, polls: total - held });
        expect(await count()).toBe(total);
      } finally {
        await client.end();
      }
      expect(await answersOf(pgdb)).toEqual(expected);
    },
    LONG,
  );
});
