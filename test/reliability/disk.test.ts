/**
 * Item 4 of the reliability issue: disk and database faults. The store fills up (SQLite's
 * max_page_count: every write fails with SQLITE_FULL) or turns read-only (query_only) in the
 * middle of a recording: the collector says so, keeps the polls in memory, writes them when
 * the store accepts writes again, and loses nothing. A read-only file, a corrupt file and a
 * database from a newer flightrec give every command a clear error, and are left untouched.
 */
import { chmodSync, copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHistoryReader, openDatabase, type FlightrecDb } from '../../src/db/index.ts';
import { runCli, runCliChild, type CliRun } from './support/cli.ts';
import { recordThroughProxy, type Recording } from './support/record.ts';
import { compareWithServed, fileDigest, makeNewer, pagesOf, scribble } from './support/store-faults.ts';
import { sqliteOf } from '../helpers/sqlite-handle.ts';

const QUIET = 'name: quiet-store\ndescription: a healthy cluster\nevents: []\n';
const dir = mkdtempSync(join(tmpdir(), 'flightrec-disk-'));
chmodSync(dir, 0o755);
const base = join(dir, 'base.db');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(async () => {
  await recordThroughProxy({ dbPath: base, scenario: QUIET, seconds: 300 });
}, 60_000);

/** Records with a store fault switched on after `from` rounds and off after `to` rounds. */
async function recordWithStoreFault(
  name: string,
  on: (db: FlightrecDb) => void,
  off: (db: FlightrecDb) => void,
): Promise<{ rec: Recording; peak: number; path: string; before: Map<bigint, string> }> {
  const path = join(dir, `${name}.db`);
  let handle: FlightrecDb | undefined;
  let rounds = 0;
  let peak = 0;
  const before = new Map<bigint, string>();
  const rec = await recordThroughProxy({
    dbPath: path,
    scenario: QUIET,
    seconds: 600,
    onDb: (db) => (handle = db),
    onRound: (_r, collector) => {
      rounds++;
      peak = Math.max(peak, collector.stats.unwritten);
      if (rounds === 24) {
        // what is stored before the fault, as a separate reader sees it
        const ro = openDatabase(path, { readonly: true });
        const reader = createHistoryReader(ro);
        for (const p of reader.polls({}))
          before.set(
            p.id,
            JSON.stringify(reader.reconstructAnswer(p.id), (_k, v: unknown) => (typeof v === 'bigint' ? `${v}` : v)),
          );
        ro.close();
        on(handle!);
      }
      if (rounds === 72) off(handle!);
    },
  });
  return { rec, peak, path, before };
}

for (const fault of [
  {
    name: 'full',
    title: 'the disk fills up (every write fails with SQLITE_FULL)',
    on: (db: FlightrecDb) =>
      sqliteOf(db).pragma(`max_page_count = ${Number(sqliteOf(db).pragma('page_count', { simple: true }))}`),
    off: (db: FlightrecDb) => sqliteOf(db).pragma('max_page_count = 1073741823'),
    cause: /full/i,
  },
  {
    name: 'readonly',
    title: 'the database turns read-only',
    on: (db: FlightrecDb) => sqliteOf(db).pragma('query_only = ON'),
    off: (db: FlightrecDb) => sqliteOf(db).pragma('query_only = OFF'),
    cause: /read-?only|readonly/i,
  },
]) {
  describe(`in the middle of a recording, ${fault.title}`, () => {
    let run: Awaited<ReturnType<typeof recordWithStoreFault>>;
    beforeAll(async () => {
      run = await recordWithStoreFault(fault.name, fault.on, fault.off);
    }, 60_000);

    it('says so once with the cause, keeps the polls in memory, and says when writes work again', () => {
      const text = run.rec.lines.join('');
      const refused = text.match(/error: cannot write a poll[^\n]*/g) ?? [];
      expect(refused.length).toBeGreaterThanOrEqual(1);
      expect(refused[0]).toMatch(fault.cause);
      expect(refused[0]).toMatch(/kept in memory/);
      expect(text).toMatch(/the database accepts writes again/);
      expect(run.peak, 'polls held in memory during the fault').toBeGreaterThan(20);
      expect(run.rec.report).toEqual({ aborted: false, unwritten: 0 });
    });

    it('loses nothing: every call is a poll that reconstructs what was served, and earlier polls are unchanged', () => {
      const db = openDatabase(run.path, { readonly: true });
      try {
        expect(sqliteOf(db).pragma('integrity_check', { simple: true })).toBe('ok');
        const reader = createHistoryReader(db);
        const polls = reader.polls({});
        const { problems, lost } = compareWithServed(reader, polls, run.rec.log);
        expect(problems).toEqual([]);
        expect(lost, 'records lost').toBe(0);
        expect(polls.length).toBe(run.rec.collector.stats.polls);
        expect(run.before.size).toBeGreaterThan(20);
        for (const [id, text] of run.before) {
          expect(
            JSON.stringify(reader.reconstructAnswer(id), (_k, v: unknown) => (typeof v === 'bigint' ? `${v}` : v)),
            `poll ${id}`,
          ).toBe(text);
        }
        // the state as of every instant of the fault is the state that was served then
        for (const p of polls.filter((q) => q.operation === 'ListKafkaConnections' && q.outcome === 'ok')) {
          const state = reader.stateAt('connections', p.startTime);
          expect(state.poll?.id, `latest list at ${p.startTime}`).toBe(p.id);
          expect(state.rows, `connections as of poll ${p.id}`).toEqual(
            (reader.reconstructAnswer(p.id).answer as { connections: object[] }).connections,
          );
        }
      } finally {
        db.close();
      }
    });

    it('writes the held polls before newer ones: poll ids stay in time order', () => {
      const db = openDatabase(run.path, { readonly: true });
      try {
        const polls = createHistoryReader(db).polls({});
        expect(polls.filter((p, i) => i > 0 && p.id < polls[i - 1]!.id).map((p) => String(p.id))).toEqual([]);
      } finally {
        db.close();
      }
    });
  });
}

/** Commands that only read the history, and commands that write it. */
function commands(db: string): { readers: string[][]; writers: string[][] } {
  const answer = join(dir, 'upgrade-answer.json');
  writeFileSync(
    answer,
    '{"activeVersion":"15","versionAfterFinalization":"15","state":"FINALIZATION_STATE_FINALIZED","members":[]}',
  );
  return {
    readers: [
      ['--db', db, 'query', 'connections', '--at', '2026-01-01T00:04:00Z'],
      [
        '--db',
        db,
        '-o',
        'json',
        'query',
        'polls',
        '--since',
        '2025-12-31T00:00:00Z',
        '--until',
        '2026-01-02T00:00:00Z',
      ],
      ['--db', db, 'timeline'],
      ['--db', db, 'summary', '--until', '2026-01-01T00:05:00Z'],
      ['--db', db, 'diff', '--from', '2026-01-01T00:01:00Z', '--to', '2026-01-01T00:04:00Z'],
      ['--db', db, 'db', 'stats'],
      ['--db', db, 'export', '--out', join(dir, `export-${Math.random().toString(36).slice(2)}.json`)],
    ],
    writers: [
      ['--db', db, 'collect', '--simulate', 'quiet', '--for', '1m'],
      ['--db', db, 'import', '--op', 'GetUpgradeStatus', '--at', '2026-01-01T01:00:00Z', answer],
      ['--db', db, 'db', 'prune', '--older-than', '2026-01-01T00:02:00Z'],
      ['--db', db, 'db', 'vacuum'],
    ],
  };
}

/** Asserts a run ended in a clear, typed error (exit 1; 2 for diff, which follows diff(1)) naming the cause, not a stack trace. */
function expectClearError(run: CliRun, cause: RegExp, what: string): void {
  expect(run.unexpected, `${what}: ${run.err}`).toBe(false);
  expect(run.code, `${what}: ${run.err}`).toBe(what.startsWith('diff ') ? 2 : 1);
  expect(run.err, what).toMatch(cause);
  expect(run.err, what).not.toMatch(/\n\s+at /);
}

describe('a database file that cannot be trusted or written', () => {
  it('a corrupt header: every command says it is not a flightrec database, and the file is untouched', async () => {
    const path = join(dir, 'header.db');
    copyFileSync(base, path);
    scribble(path, 0, 100);
    const digest = fileDigest(path);
    const { readers, writers } = commands(path);
    for (const argv of [...readers, ...writers]) {
      expectClearError(await runCli(argv), /not an SQLite database|not a database|corrupt/i, argv.slice(2).join(' '));
    }
    expect(fileDigest(path)).toBe(digest);
  }, 60_000);

  it('corrupt pages: commands fail clearly (or read what is intact) and never modify the file', async () => {
    const path = join(dir, 'pages.db');
    copyFileSync(base, path);
    const { size, count } = pagesOf(path);
    expect(count).toBeGreaterThan(4);
    scribble(path, size, size * (count - 1));
    const digest = fileDigest(path);
    const runs: [string, CliRun][] = [];
    const { readers, writers } = commands(path);
    for (const argv of [...readers, ...writers]) runs.push([argv.slice(2).join(' '), await runCli(argv)]);
    for (const [what, run] of runs) {
      // diff follows diff(1): its trouble is 2
      const failed = what.startsWith('diff ') ? 2 : 1;
      expect(run.unexpected, `${what}: ${run.err}`).toBe(false);
      expect([0, failed], `${what}: ${run.err}`).toContain(run.code);
      if (run.code === failed) expect(run.err, what).toMatch(/malformed|corrupt|not a database/i);
    }
    expect(runs.filter(([, r]) => r.code !== 0).length, 'commands that noticed').toBeGreaterThanOrEqual(8);
    expect(fileDigest(path)).toBe(digest);
  }, 60_000);

  it('a database from a newer flightrec: every command refuses it and leaves it untouched', async () => {
    const path = join(dir, 'newer.db');
    copyFileSync(base, path);
    makeNewer(path);
    const digest = fileDigest(path);
    const { readers, writers } = commands(path);
    for (const argv of [...readers, ...writers]) {
      expectClearError(await runCli(argv), /newer flightrec/, argv.slice(2).join(' '));
    }
    expect(fileDigest(path)).toBe(digest);
  }, 60_000);

  /** A history in a directory the user may read but not write, the file itself read-only. */
  const readOnlyCopy = (
    prepare: (path: string) => void = () => {},
  ): { path: string; as: { uid?: number; gid?: number } } => {
    const ro = mkdtempSync(join(dir, 'ro-'));
    const path = join(ro, 'readonly.db');
    copyFileSync(base, path);
    prepare(path);
    chmodSync(path, 0o444);
    chmodSync(ro, 0o555);
    // as root, file modes do not bind: run the commands as an unprivileged user
    return { path, as: process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {} };
  };

  it('a read-only file: writing commands fail clearly and the file is untouched', async () => {
    const { path, as } = readOnlyCopy();
    const digest = fileDigest(path);
    const collect = await runCliChild(['--db', path, 'collect', '--simulate', 'quiet', '--for', '1m'], {
      ...as,
      cwd: dir,
    });
    expectClearError(collect, /readonly|read-only|permission/i, 'collect');
    const prune = await runCliChild(['--db', path, 'db', 'prune', '--older-than', '2026-01-01T00:02:00Z'], {
      ...as,
      cwd: dir,
    });
    expectClearError(prune, /readonly|read-only|permission/i, 'db prune');
    expect(fileDigest(path)).toBe(digest);
  }, 60_000);

  it('a read-only file in a read-only directory: reading commands still read it', async () => {
    const { path, as } = readOnlyCopy();
    const query = await runCliChild(['--db', path, '-o', 'json', 'query', 'polls', '--since', '2025-12-31T00:00:00Z'], {
      ...as,
      cwd: dir,
    });
    expect(query.unexpected, query.err).toBe(false);
    expect(query.code, query.err).toBe(0);
    expect((JSON.parse(query.out) as { rows: unknown[] }).rows.length).toBeGreaterThan(50);
  }, 60_000);

  it('a read-only copy still in WAL mode (taken while its writer ran): the error names the cause and the way out', async () => {
    const { path, as } = readOnlyCopy((p) => {
      const raw = new Database(p);
      raw.pragma('journal_mode = WAL'); // what a copy taken while the collector runs looks like
      raw.close();
    });
    const query = await runCliChild(['--db', path, 'query', 'polls', '--since', '2025-12-31T00:00:00Z'], {
      ...as,
      cwd: dir,
    });
    expectClearError(query, /WAL mode.*readonly\.db-shm.*not writable; copy/, 'query');
  }, 60_000);
});
