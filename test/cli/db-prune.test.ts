/**
 * `db prune` never destroys a recording by surprise: `--dry-run` changes nothing (the file's
 * hash is the same) and prints the counts a real prune then removes; removing an operation's
 * newest poll needs `--force`; on a terminal it asks, naming the counts, unless `--yes`; off a
 * terminal (scripts) it goes ahead as it always did. Raw history that does not decode is left
 * out of the rollups it writes first, with a line naming it, instead of stopping the prune.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/index.ts';
import { runCli } from '../collector/helpers/run-cli.ts';
import { memoryIo } from '../helpers/memory-io.ts';

let dir: string;
let recording: string;
let n = 0;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'flightrec-prune-'));
  recording = join(dir, 'recording.db');
  // 2026-01-01T00:00:00Z to 00:10:00Z, every operation on its default schedule; connection polls are stored 8 to a batch
  const code = await runCli(
    ['--db', recording, 'collect', '--simulate', 'quiet', '--for', '10m', '--connections', '30'],
    memoryIo({ cwd: dir }),
  );
  expect(code).toBe(0);
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A fresh copy of the recording (checkpointed: the collector closed it). */
function copy(): string {
  const path = join(dir, `copy${++n}.db`);
  copyFileSync(recording, path);
  return path;
}

const sha = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');
const CUT = '2026-01-01T00:05:00Z';
const COUNTS = ['polls', 'connectionBatches', 'connections', 'versions', 'documents'] as const;

/** A terminal on stdin that answers `answer` to the prompt. */
function terminal(answer: string): NodeJS.ReadStream {
  const stdin = new PassThrough() as unknown as NodeJS.ReadStream & { isTTY: boolean };
  stdin.isTTY = true;
  setTimeout(() => (stdin as unknown as PassThrough).write(answer), 20);
  return stdin;
}

describe('db prune', () => {
  it('--dry-run changes nothing (same file hash) and prints the counts a real prune then removes', async () => {
    const db = copy();
    const before = sha(db);
    const dry = memoryIo({ cwd: dir });
    expect(await runCli(['--db', db, '-o', 'json', 'db', 'prune', '--older-than', CUT, '--dry-run'], dry)).toBe(0);
    expect(sha(db)).toBe(before);
    expect(existsSync(`${db}-wal`)).toBe(false);
    const plan = JSON.parse(dry.out()) as Record<string, unknown> & {
      samples: Record<string, number>;
      bytes: number;
      from: string;
      to: string;
    };
    expect(plan).toMatchObject({ dryRun: true, olderThan: CUT, from: '2026-01-01T00:00:00Z' });
    expect(plan.polls).toBeGreaterThan(0);
    expect(plan.samples.connections).toBeGreaterThan(0);
    expect(plan.bytes).toBeGreaterThan(0);
    expect(plan.to < CUT).toBe(true);

    const text = memoryIo({ cwd: dir });
    expect(await runCli(['--db', db, 'db', 'prune', '--older-than', CUT, '--dry-run'], text)).toBe(0);
    expect(text.out()).toMatch(
      new RegExp(`^would prune polls before ${CUT}: ${plan.polls} polls, ${plan.connectionBatches} connection batches`),
    );
    expect(text.out()).toMatch(
      /samples: connections \d+, .*; about [\d.]+ [KM]iB; polls from 2026-01-01T00:00:00Z to /,
    );
    expect(sha(db)).toBe(before);

    const real = memoryIo({ cwd: dir });
    expect(await runCli(['--db', db, '-o', 'json', 'db', 'prune', '--older-than', CUT], real)).toBe(0);
    const done = JSON.parse(real.out()) as Record<string, unknown>;
    for (const k of COUNTS) expect(done[k], k).toBe(plan[k]);
    expect(sha(db)).not.toBe(before);
  });

  it("refuses to remove an operation's newest poll without --force (exit 2, nothing removed)", async () => {
    const db = copy();
    const before = sha(db);
    const io = memoryIo({ cwd: dir });
    expect(await runCli(['--db', db, 'db', 'prune', '--older-than', '2026-01-01T01:00:00Z'], io)).toBe(2);
    expect(io.err()).toMatch(
      /would remove the newest poll of cluster sim: .*ListKafkaConnections.*\(newest poll 2026-01-01T00:10:00Z\).*--force/,
    );
    expect(sha(db)).toBe(before);
    const forced = memoryIo({ cwd: dir });
    expect(await runCli(['--db', db, 'db', 'prune', '--older-than', '2026-01-01T01:00:00Z', '--force'], forced)).toBe(
      0,
    );
    expect(forced.out()).toMatch(/^pruned polls before 2026-01-01T01:00:00Z: \d+ polls/);
  });

  it('asks on a terminal, naming the counts: no keeps everything, yes prunes; --yes does not ask', async () => {
    const db = copy();
    const before = sha(db);
    const no = { ...memoryIo({ cwd: dir }), stdin: terminal('n\n') };
    expect(await runCli(['--db', db, 'db', 'prune', '--older-than', CUT], no)).toBe(1);
    expect(no.err()).toMatch(
      /prune polls before 2026-01-01T00:05:00Z: \d+ polls, .*\nsamples: .*\nDelete them\? This cannot be undone\. \[y\/N\] nothing pruned/,
    );
    expect(sha(db)).toBe(before);

    const yes = { ...memoryIo({ cwd: dir }), stdin: terminal('y\n') };
    expect(await runCli(['--db', db, 'db', 'prune', '--older-than', CUT], yes)).toBe(0);
    expect(yes.out()).toMatch(/^pruned polls before/);

    const other = copy();
    const flag = { ...memoryIo({ cwd: dir }), stdin: terminal('') };
    expect(await runCli(['--db', other, 'db', 'prune', '--older-than', CUT, '--yes'], flag)).toBe(0);
    expect(flag.err()).not.toContain('Delete them?');
  });

  it('refuses a cut-off outside the years 0001 to 9999 as bad usage (exit 2), not a crash', async () => {
    const io = memoryIo({ cwd: dir });
    // the shared time language clamps an instant to the representable range (1678 to 2261):
    // a cut-off before every poll, so nothing goes; refusing it (exit 2) would do too
    expect([0, 2]).toContain(await runCli(['--db', copy(), 'db', 'prune', '--older-than=212309w'], io));
    expect(io.err()).not.toMatch(/RangeError|unexpected error|\n\s+at /);
  });

  it('off a terminal (a script) prunes without asking, as it always did, summarising first (rollups)', async () => {
    const db = copy();
    const io = memoryIo({ cwd: dir });
    expect(await runCli(['--db', db, 'db', 'prune', '--older-than', CUT], io)).toBe(0);
    expect(io.out()).toMatch(/^pruned polls before 2026-01-01T00:05:00Z: [1-9]\d* polls/);
    expect(io.err()).toBe('');
    // the copy held no rollups; the prune wrote the 5-minute bucket before the cut-off first
    const stats = memoryIo({ cwd: dir });
    expect(await runCli(['--db', db, 'db', 'stats'], stats)).toBe(0);
    expect(stats.out()).toMatch(/\n5m +2026-01-01T00:00:00Z \.\. /);
  });

  it('leaves a damaged page out of the rollups it writes first, says which, and prunes', async () => {
    const db = copy();
    const damage = openDatabase(db);
    damage.sqlite
      .prepare('UPDATE conn_frame SET versions = ? WHERE poll = (SELECT min(poll) FROM conn_frame)')
      .run(Buffer.from([7, 7, 7]));
    damage.close();
    const io = memoryIo({ cwd: dir });
    expect(await runCli(['--db', db, 'db', 'prune', '--older-than', CUT], io)).toBe(0);
    expect(io.err()).toMatch(
      /^rollups: the 5-minute bucket 2026-01-01T00:00:00Z to 2026-01-01T00:05:00Z of cluster sim left out: the history database is damaged \(table conn_frame, poll /,
    );
    expect(io.out()).toMatch(/^pruned polls before 2026-01-01T00:05:00Z: [1-9]\d* polls/);
  });
});
