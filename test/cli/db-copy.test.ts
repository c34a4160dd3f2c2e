/**
 * `flightrec db copy` end to end: a simulated recording (incidents, failed polls with raw bodies,
 * raw answers kept, history pruned and rolled up) copied to a new file gives the same `export`
 * byte for byte and the same `query`, `timeline` and `db log`; a copy stopped by a signal, or
 * killed (SIGKILL) in a child process, and run again ends identical without a duplicate; the
 * hostile cases (onto itself, a missing source, a file that is no flightrec history, a target
 * of a newer flightrec) are refused with a clear message and nothing written.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sameDatabase, shownTarget } from '../../src/cli/commands/db-copy.ts';
import type { CliIo } from '../../src/cli/context.ts';
import { main } from '../../src/cli/main.ts';
import { COPY_SOURCE } from '../fixtures/recordings.ts';
import { copyOfRecording } from '../fixtures/shared-recording.ts';
import { runFlightrec, tempDir } from '../fixtures/timeline/run-cli.ts';
import { memoryIo } from '../helpers/memory-io.ts';
import { childArgs } from '../reliability/support/child-script.ts';

const tmp = tempDir();
const source = tmp.path('source.db');

beforeAll(async () => {
  // recorded once per run for both db copy files
  await copyOfRecording(source, COPY_SOURCE);
}, 120_000);
afterAll(() => tmp.remove());

/** The outputs a copy must reproduce. */
async function answersOf(db: string): Promise<string[]> {
  const at = { now: () => 0 };
  const runs = await Promise.all([
    runFlightrec(['--db', db, 'export', '--out', '-'], at),
    runFlightrec(['--db', db, 'query', 'connections', '--at', '2026-01-01T00:10:00Z', '-o', 'json'], at),
    runFlightrec(
      ['--db', db, 'query', 'polls', '--since', '2026-01-01T00:00:00Z', '--until', '2026-01-01T00:12:00Z', '-o', 'csv'],
      at,
    ),
    runFlightrec(['--db', db, 'timeline', '--since', '2026-01-01T00:00:00Z', '--until', '2026-01-01T00:12:00Z'], at),
    runFlightrec(['--db', db, '-o', 'json', 'db', 'log'], at),
  ]);
  for (const r of runs) expect(r.code, r.err).toBe(0);
  return runs.map((r) => r.out.replaceAll(db, 'DB'));
}

let expected: string[];
beforeAll(async () => {
  expected = await answersOf(source);
}, 60_000);

const pollCount = (db: string): number => {
  const s = new Database(db, { readonly: true });
  try {
    return s.prepare('SELECT count(*) FROM poll').pluck().get() as number;
  } finally {
    s.close();
  }
};
const sha = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

describe('db copy', () => {
  it('the recording holds failures with raw bodies, raw answers, pruned and rolled-up history', () => {
    const s = new Database(source, { readonly: true });
    const one = (sql: string): number => s.prepare(sql).pluck().get() as number;
    expect(one('SELECT count(*) FROM poll WHERE ok = 0')).toBeGreaterThan(10);
    expect(one('SELECT count(*) FROM poll_raw r JOIN poll p ON p.id = r.poll_id WHERE p.ok = 1')).toBeGreaterThan(10);
    expect(one('SELECT count(*) FROM maintenance_log')).toBeGreaterThan(0);
    expect(one('SELECT count(*) FROM rollup_conn')).toBeGreaterThan(0);
    expect(one('SELECT count(*) FROM rollup_event')).toBeGreaterThan(0);
    expect(one("SELECT min(started_at) FROM poll WHERE operation = 'GetShadowLink'")).toBeGreaterThan(
      1_767_225_600_000_000_000 + 60e9,
    );
    s.close();
    expect(expected[0]).toContain('"failure":{"code":"unavailable"');
  });

  it('copies into a new file: export byte for byte, query, timeline and db log the same', async () => {
    const target = tmp.path('copy.db');
    const run = await runFlightrec(['db', 'copy', '--from', source, '--to', target]);
    expect(run.code, run.err).toBe(0);
    expect(run.err).toMatch(
      new RegExp(
        `^copied ${pollCount(source)} polls of 1 cluster in \\d+\\.\\d s into ${target.replaceAll('.', '\\.')}\\n$`,
      ),
    );
    expect(await answersOf(target)).toEqual(expected);
    // run again: nothing left to copy, nothing added
    const again = await runFlightrec(['-o', 'json', 'db', 'copy', '--from', source, '--to', target]);
    expect(again.code, again.err).toBe(0);
    expect(JSON.parse(again.out)).toMatchObject({
      polls: 0,
      alreadyCopied: pollCount(source),
      maintenanceLogEntries: 0,
    });
    expect(await answersOf(target)).toEqual(expected);
  }, 60_000);

  it('stops between two batches on a signal, with a progress bar on a terminal, and goes on when run again', async () => {
    const target = tmp.path('interrupted.db');
    const controller = new AbortController();
    let t = 0;
    let bars = 0;
    let err = '';
    const io: CliIo = {
      ...memoryIo({ signal: controller.signal, now: () => (t += 1000) }),
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
    expect(await main(['db', 'copy', '--from', source, '--to', target, '--batch', '10'], io)).toBe(1);
    const total = pollCount(source);
    expect(err).toContain(`\r[${'-'.repeat(24)}]    0%  0/${total} polls  0 polls/s  ETA -`);
    // now() ticks a second per call: the copy's start, the bar's start, then one per drawing
    expect(err).toContain(`%  20/${total} polls  7 polls/s  ETA 0:`);
    expect(err).toContain(`flightrec: interrupted after copying 20 of ${total} polls into ${target}`);
    expect(pollCount(target)).toBe(20);
    const rest = await runFlightrec(['-o', 'json', 'db', 'copy', '--from', source, '--to', target]);
    expect(rest.code, rest.err).toBe(0);
    expect(JSON.parse(rest.out)).toMatchObject({ polls: total - 20, alreadyCopied: 20, clusters: 1 });
    expect(pollCount(target)).toBe(total);
    expect(await answersOf(target)).toEqual(expected);
  }, 60_000);

  it('killed (SIGKILL) in the middle, run again: the same answers, no duplicate', async () => {
    const target = tmp.path('killed.db');
    const argv = ['db', 'copy', '--from', source, '--to', target, '--batch', '1'];
    // run() of src/cli/main.ts, bundled (test/reliability/support/child-script.ts): seconds less to start than through tsx
    const child = spawn(process.execPath, [...(await childArgs('run-child.ts')), ...argv], { stdio: 'ignore' });
    const ended = new Promise<NodeJS.Signals | null>((done) => child.on('exit', (_c, signal) => done(signal)));
    // kill it as soon as the target holds a committed poll
    let seen = 0;
    for (let i = 0; i < 6000 && seen === 0 && child.exitCode === null; i++) {
      await new Promise((r) => setTimeout(r, 5));
      try {
        if (existsSync(target)) seen = pollCount(target);
      } catch {
        // the table is not there yet
      }
    }
    child.kill('SIGKILL');
    expect(await ended).toBe('SIGKILL');
    const held = pollCount(target);
    expect(held).toBeGreaterThan(0);
    expect(held).toBeLessThan(pollCount(source));
    const rest = await runFlightrec(['-o', 'json', 'db', 'copy', '--from', source, '--to', target]);
    expect(rest.code, rest.err).toBe(0);
    expect(JSON.parse(rest.out)).toMatchObject({ alreadyCopied: held, polls: pollCount(source) - held });
    expect(pollCount(target)).toBe(pollCount(source));
    expect(await answersOf(target)).toEqual(expected);
  }, 90_000);

  it('refuses to copy a database onto itself, by any name', async () => {
    const link = tmp.path('link.db');
    symlinkSync(source, link);
    const before = sha(source);
    for (const to of [source, link, `${tmp.dir}/./source.db`]) {
      const run = await runFlightrec(['db', 'copy', '--from', source, '--to', to]);
      expect(run.code).toBe(2);
      expect(run.err).toContain('--from and --to name the same database');
    }
    expect(sha(source)).toBe(before);
  });

  it('refuses a missing source, a file that is no flightrec history, and a target of a newer flightrec', async () => {
    const missing = await runFlightrec(['db', 'copy', '--from', tmp.path('nope.db'), '--to', tmp.path('n.db')]);
    expect(missing.code).toBe(1);
    expect(missing.err).toBe(`flightrec: --from: no history database at ${tmp.path('nope.db')}; nothing was copied\n`);
    expect(existsSync(tmp.path('n.db'))).toBe(false);

    const text = tmp.path('notes.txt');
    writeFileSync(text, 'not a database at all, just some text that is long enough to be a header\n'.repeat(20));
    const notDb = await runFlightrec(['db', 'copy', '--from', text, '--to', tmp.path('n2.db')]);
    expect(notDb.code).toBe(1);
    expect(notDb.err).toMatch(/not an SQLite database/);

    const other = tmp.path('other.sqlite');
    const s = new Database(other);
    s.exec('CREATE TABLE songs (title TEXT)');
    s.close();
    const notOurs = await runFlightrec(['db', 'copy', '--from', other, '--to', tmp.path('n3.db')]);
    expect(notOurs.code).toBe(1);
    expect(notOurs.err).toContain('not a flightrec history');
    const intoOther = await runFlightrec(['db', 'copy', '--from', source, '--to', other]);
    expect(intoOther.code).toBe(1);
    expect(intoOther.err).toContain('not a flightrec history (left untouched)');

    const newer = tmp.path('newer.db');
    copyFileSync(source, newer);
    const n = new Database(newer);
    n.pragma('user_version = 999');
    n.close();
    const before = sha(newer);
    const run = await runFlightrec(['db', 'copy', '--from', source, '--to', newer]);
    expect(run.code).toBe(1);
    expect(run.err).toContain('was written by a newer flightrec (schema version 999');
    expect(sha(newer)).toBe(before);

    const batch = await runFlightrec(['db', 'copy', '--from', source, '--to', tmp.path('b.db'), '--batch', '0']);
    expect(batch.code).toBe(2);
    expect(batch.err).toContain('--batch: must be a whole number from 1 to 10000');
    const csv = await runFlightrec(['-o', 'csv', 'db', 'copy', '--from', source, '--to', tmp.path('c.db')]);
    expect(csv.code).toBe(2);
    expect(csv.err).toBe('flightrec: invalid --output "csv": expected text or json\n');
    expect(existsSync(tmp.path('b.db')) || existsSync(tmp.path('c.db'))).toBe(false);
  });

  it('tells the same PostgreSQL database under two spellings from two databases', () => {
    expect(
      sameDatabase('postgres://a:pw@DB.example/history', 'postgresql://b@db.example:5432/history?sslmode=require'),
    ).toBe(true);
    expect(sameDatabase('postgres://db.example/history', 'postgres://db.example/history2')).toBe(false);
    expect(sameDatabase('postgres://db.example/history', 'postgres://db.example:5433/history')).toBe(false);
    expect(sameDatabase('postgres://db.example/history', tmp.path('history'))).toBe(false);
  });

  it('never prints a password of a URL, nor a control character', () => {
    expect(shownTarget('postgres://flight:s3cr%40t@db.example:5432/history?sslmode=require')).toBe(
      'postgres://flight@db.example:5432/history?sslmode=require',
    );
    expect(shownTarget('postgresql://:pw@h/db')).toBe('postgresql://@h/db');
    expect(shownTarget('x\u001b[2J.db')).toBe('x\\x1b[2J.db');
  });
});
