/**
 * Item 9 of the hostile-input issue: damage that passes SQLite's own checks (a flipped byte
 * inside a stored blob), random flipped bytes, truncated files and zeroed pages. Every reader
 * command runs in a child process on each damaged copy and must end within 30 s with exit code
 * 0, 1 or 2 (0 only where the damage missed what it reads), a `flightrec:` message and no stack
 * trace; `db check` names the damage. A fixed seed keeps the cases the same from run to run.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatTimestampShort } from '../../src/api/codec/timestamp.ts';
import { runCliChild, type CliRun } from './support/cli.ts';
import { connectError } from './support/mutations.ts';
import { recordThroughProxy } from './support/record.ts';
import { prng } from '../helpers/connection-answers.ts';

const dir = mkdtempSync(join(tmpdir(), 'flightrec-corrupt-'));
const clean = join(dir, 'clean.db');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SCENARIO =
  'name: corrupt\ndescription: churn and a storm\nevents:\n  - { at: 60s, kind: connection_storm, rate: 2, duration: 60s }\n';
const SECONDS = 600;
/**
 * The bound that tells a hang from a slow start: each reader ends in well under 1 s on an idle
 * machine, but a loaded CI runner (load 15-20, the suite's files four at a time) took more than
 * 10 s to start some of them; a reader caught in a loop on damage never ends.
 */
const HANG_MS = 30_000;
let start = 0n;

/** The reader commands, with times inside the recording. */
function readers(): string[][] {
  const t = (s: number): string => formatTimestampShort(start + BigInt(s) * 1_000_000_000n);
  return [
    ['query', 'connections', '--at', t(SECONDS - 30)],
    ['-o', 'ndjson', 'query', 'connections', '--since', t(0), '--until', t(SECONDS)],
    ['timeline', '--since', t(0), '--until', t(SECONDS)],
    ['summary', '--until', t(SECONDS), '--window', '10m'],
    ['export', '--out', '-'],
    ['diff', '--from', t(60), '--to', t(SECONDS - 30)],
    ['trends', 'requests', '--since', t(0), '--until', t(SECONDS)],
    ['db', 'stats'],
    ['db', 'check'],
  ];
}

/** Runs every reader on a damaged copy, two at a time; returns the runs by command. */
async function readAll(
  db: string,
  which: (args: string[]) => boolean = () => true,
): Promise<{ args: string[]; run: CliRun }[]> {
  const jobs = readers().filter(which);
  const out: { args: string[]; run: CliRun }[] = [];
  const next = async (): Promise<void> => {
    for (let job = jobs.shift(); job !== undefined; job = jobs.shift()) {
      out.push({ args: job, run: await runCliChild(['--db', db, ...job], { timeoutMs: HANG_MS }) });
    }
  };
  await Promise.all([next(), next()]);
  return out;
}

/** What every reader must do on a damaged file. */
function expectContained(runs: { args: string[]; run: CliRun }[], damaged: boolean): void {
  for (const { args, run } of runs) {
    const what = `${args.join(' ')} (exit ${run.code}): ${run.err.slice(0, 600)}`;
    expect(run.ms, what).toBeLessThan(HANG_MS);
    expect([0, 1, 2], what).toContain(run.code);
    expect(run.err, what).not.toMatch(/unexpected error|\n\s+at |SqliteError/);
    if (run.code !== 0 && !(args[0] === 'diff' && run.code === 1 && run.err === ''))
      expect(run.err, what).toMatch(/^flightrec: /);
    if (damaged) expect(run.code, what).not.toBe(0);
  }
}

let chunks: { batch: number; data: Buffer }[] = [];
let fileBytes = 0;

beforeAll(async () => {
  const rec = await recordThroughProxy({
    dbPath: clean,
    scenario: SCENARIO,
    seconds: SECONDS,
    connections: 80,
    rules: [
      {
        name: 'failed calls keep raw bodies',
        from: 120,
        until: 150,
        ops: ['GetUpgradeStatus'],
        mutate: connectError('unavailable', 503, 'try later'),
      },
    ],
  });
  start = rec.start;
  const db = new Database(clean, { readonly: true });
  chunks = db.prepare('SELECT batch, data FROM conn_chunk ORDER BY batch, first_entity').all() as {
    batch: number;
    data: Buffer;
  }[];
  db.close();
  fileBytes = statSync(clean).size;
}, 60_000);

/** A copy of the clean database with `damage` applied to its bytes. */
function damagedCopy(name: string, damage: (bytes: Buffer) => Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, damage(readFileSync(clean)));
  return path;
}

describe('corruption that passes PRAGMA integrity_check', () => {
  it('a chunk group whose count byte is flipped: every reader stops with a message naming conn_chunk, db check lists it', async () => {
    expect(chunks.length).toBeGreaterThan(10);
    const target = chunks[Math.floor(chunks.length / 3)]!;
    const path = damagedCopy('chunk.db', (bytes) => {
      const at = bytes.indexOf(target.data);
      expect(at).toBeGreaterThan(0);
      bytes[at] = 0xff; // the group's connection count now runs on into the next bytes
      bytes[at + 1] = 0xff;
      return bytes;
    });
    const integrity = new Database(path, { readonly: true });
    expect(integrity.pragma('integrity_check', { simple: true })).toBe('ok');
    integrity.close();
    const runs = await readAll(path);
    expectContained(runs, false);
    for (const { args, run } of runs) {
      // the whole-range reads meet the damaged batch
      if (args.includes('--since') && args[0] !== 'trends')
        expect(run.err, args.join(' ')).toMatch(/damaged \(table conn_chunk, poll \d+, batch \d+/);
    }
    const check = runs.find((r) => r.args[1] === 'check')!.run;
    expect(check.code).toBe(1);
    expect(check.out).toMatch(new RegExp(`damaged: table conn_chunk, batch ${target.batch}, .*\\(polls \\d+-\\d+, `));
  }, 180_000);

  it('random flipped bytes: every reader ends within the hang bound with a message, never a stack trace', async () => {
    const rnd = prng(19);
    for (let c = 0; c < 2; c++) {
      const path = damagedCopy(`flip-${c}.db`, (bytes) => {
        // past the header page: flips in the first page make every open fail the same way
        for (let i = 0; i < 4; i++) {
          const at = 4096 + Math.floor(rnd() * (bytes.length - 4096));
          bytes[at] = bytes[at]! ^ (1 << Math.floor(rnd() * 8));
        }
        return bytes;
      });
      expectContained(await readAll(path), false);
    }
  }, 300_000);

  it('a truncated file and zeroed pages: a flightrec: message, exit 1', async () => {
    const truncated = join(dir, 'truncated.db');
    copyFileSync(clean, truncated);
    truncateSync(truncated, Math.floor(fileBytes * 0.6));
    // every command opens the file the same way: three of them stand for all
    const runs = await readAll(
      truncated,
      (args) => ['query', 'export', 'db'].includes(args[0] === '-o' ? args[2]! : args[0]!) && args[1] !== 'stats',
    );
    expect(runs).toHaveLength(4);
    expectContained(runs, true);
    expect(runs.find((r) => r.args[1] === 'check')!.run.err).toMatch(
      /^flightrec: cannot open history database .*: the file is damaged or truncated/,
    );
    const zeroed = damagedCopy('zeroed.db', (bytes) => {
      const pages = Math.floor(bytes.length / 4096);
      bytes.fill(0, 4096 * Math.floor(pages / 2), 4096 * (Math.floor(pages / 2) + 2));
      return bytes;
    });
    const zeroedRuns = await readAll(zeroed);
    expectContained(zeroedRuns, false);
    const check = zeroedRuns.find((r) => r.args[1] === 'check')!.run;
    expect(check.code).toBe(1);
    expect(check.out).toMatch(/^damaged: table /m);
  }, 240_000);
});
