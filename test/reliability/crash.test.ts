/**
 * Item 2 of the reliability issue: crash safety. A collector child process records the
 * simulated cluster at full speed and is killed with SIGKILL at a random moment 50-400 ms into
 * its run, 20 times in a row, restarted each time: every other kill counts from the child's start
 * (ready), the others from its first commit, so that half the kills land in the middle of writing
 * also on a loaded machine, where a child may take longer than 400 ms to write anything. After every kill: `PRAGMA integrity_check`
 * is ok, every committed poll is still there unchanged, every new poll reconstructs exactly the
 * answer the (deterministic) simulated world gave at that instant, and recording resumed at the
 * next tick. The last restart comes after 5 minutes of downtime: the timeline shows that gap.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { OperationName } from '../../src/api/schema/operations.ts';
import type { PollRow } from '../../src/api/schema/resources.ts';
import { encodeAnswer } from '../../src/api/wire/answers.ts';
import { createHistoryReader, openDatabase, type HistoryReader } from '../../src/db/index.ts';
import { buildTimeline, type TimelineSource } from '../../src/report/timeline/timeline.ts';
import { createWorld, isSimError, type SimWorld } from '../../src/sim/index.ts';
import { childArgs } from './support/child-script.ts';
import { CRASH_WORLD } from './support/crash-world.ts';
import { sqliteOf } from '../helpers/sqlite-handle.ts';

/** Kills in a row (the issue asks for at least 20). */
const KILLS = 20;
/** At most this many, when the first KILLS came too early too often (see the test). */
const MAX_KILLS = 3 * KILLS;
/** Before the last (clean) run the collector stays down this long: the timeline must show the gap. */
const DOWNTIME_S = 300;
const TICK = 30_000_000_000n;
const SEED = Number(process.env.FLIGHTREC_CRASH_SEED ?? Date.now() % 1_000_000);

const dir = mkdtempSync(join(tmpdir(), 'flightrec-crash-'));
const dbPath = join(dir, 'crash.db');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A small deterministic PRNG, so a failing sequence of kill moments can be replayed with FLIGHTREC_CRASH_SEED. */
function prng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

interface ChildRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly out: string;
  readonly err: string;
}

/** When a kill's delay starts: at the child's `ready`, or at its first commit after it. */
type KillFrom = 'ready' | 'commit';

/** The polls committed in the store (0 before it has its tables). */
function committedPolls(db: Database.Database): number {
  try {
    return Number(db.prepare('SELECT count(*) FROM poll').pluck().get());
  } catch {
    return 0;
  }
}

/**
 * Starts the child; kills it `killAfterMs` after it says ready, or after that, after the first
 * poll it commits (`from`), or lets it finish when `killAfterMs` is undefined.
 */
async function runChild(args: string[], killAfterMs: number | undefined, from: KillFrom = 'ready'): Promise<ChildRun> {
  const script = await childArgs('crash-child.ts');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...script, dbPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let armed = false;
    let watch: NodeJS.Timeout | undefined;
    let reader: Database.Database | undefined;
    const stopWatching = (): void => {
      clearInterval(watch);
      reader?.close();
      reader = undefined;
    };
    const kill = (): void => {
      stopWatching();
      setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    };
    const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (armed || killAfterMs === undefined || !out.includes('ready ')) return;
      armed = true;
      if (from === 'ready') return kill();
      // the child has opened (and migrated) the store: watch it from a read-only connection
      reader = new Database(dbPath, { readonly: true, fileMustExist: true });
      const before = committedPolls(reader);
      watch = setInterval(() => {
        if (reader !== undefined && committedPolls(reader) > before) kill();
      }, 5);
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(guard);
      stopWatching();
      resolve({ code, signal, out, err });
    });
  });
}

/** The answer text of a poll as reconstructed from the store. */
function storedAnswer(reader: HistoryReader, p: PollRow): string {
  const r = reader.reconstructAnswer(p.id);
  if (r.answer === undefined) throw new Error(`poll ${p.id} ${p.operation} has no answer (${p.outcome}: ${p.message})`);
  return encodeAnswer(p.operation as OperationName, r.answer as never);
}

const digest = (text: string): string => createHash('sha256').update(text).digest('hex');

describe('SIGKILL at random moments: nothing committed is lost or half written, recording resumes', () => {
  const world: SimWorld = createWorld({ ...CRASH_WORLD });
  /** poll id → digest of its reconstructed answer, for every poll seen so far */
  const seen = new Map<bigint, string>();
  const kills: { delay: number; newPolls: number }[] = [];
  let lastStart: bigint | undefined;

  /** Opens the store after a run and checks it; returns the polls the run added. */
  const check = (label: string, downtime: number): PollRow[] => {
    const db = openDatabase(dbPath);
    try {
      expect(sqliteOf(db).pragma('integrity_check', { simple: true }), `${label}: integrity_check`).toBe('ok');
      expect(sqliteOf(db).pragma('foreign_key_check'), `${label}: foreign keys`).toEqual([]);
      const reader = createHistoryReader(db);
      const polls = reader.polls({});
      const ids = new Set(polls.map((p) => p.id));
      const lost = [...seen.keys()].filter((id) => !ids.has(id));
      expect(lost, `${label}: committed polls lost`).toEqual([]);
      const added = polls.filter((p) => !seen.has(p.id));
      for (const p of added) {
        expect(p.outcome, `${label}: poll ${p.id}`).toBe('ok');
        const text = storedAnswer(reader, p);
        world.advanceTo(p.startTime);
        const expected = world.answer(p.operation as OperationName, reader.reconstructAnswer(p.id).request as never);
        if (isSimError(expected)) throw new Error(`the world refused ${p.operation}: ${expected.message}`);
        expect(text, `${label}: poll ${p.id} ${p.operation} at ${p.startTime}`).toBe(
          encodeAnswer(p.operation as OperationName, expected as never),
        );
        const rows = (reader.reconstructAnswer(p.id).answer as { connections?: unknown[] }).connections;
        if (rows !== undefined) expect(BigInt(rows.length), `${label}: poll ${p.id} rows`).toBe(p.rowsReturned);
        seen.set(p.id, digest(text));
      }
      if (added.length > 0 && lastStart !== undefined) {
        const resumed = (lastStart / TICK + 1n) * TICK + BigInt(downtime) * 1_000_000_000n;
        expect(added[0]!.startTime, `${label}: resumed at the next tick`).toBe(resumed);
      }
      if (added.length > 0) lastStart = added.at(-1)!.startTime;
      return added;
    } finally {
      db.close();
    }
  };

  it(`survives ${KILLS} kills in a row (seed ${SEED})`, async () => {
    const random = prng(SEED);
    const wrote = (): number => kills.filter((k) => k.newPolls > 0).length;
    // KILLS kills, and more (up to MAX_KILLS) until KILLS / 2 of them came after the child wrote: a kill
    // right after start may leave nothing new, which is fine, and on a busy machine (other test
    // files on both cores) more of them do; the kills that matter are those in the middle of writing,
    // which the kills timed from a first commit make sure of, so that a loaded run needs no more than KILLS
    for (let i = 0; i < MAX_KILLS && (i < KILLS || wrote() < KILLS / 2); i++) {
      const delay = 50 + Math.floor(random() * 351);
      const from: KillFrom = i % 2 === 0 ? 'ready' : 'commit';
      const run = await runChild(['0'], delay, from);
      const label = `kill ${i + 1} ${delay} ms after ${from === 'ready' ? 'start' : 'its first commit'} (seed ${SEED})`;
      expect(run.signal, `${label}: ${run.err}`).toBe('SIGKILL');
      expect(run.err, label).toBe('');
      const added = check(label, 0);
      kills.push({ delay, newPolls: added.length });
    }
    expect(kills.length).toBeGreaterThanOrEqual(KILLS);
    expect(wrote(), `kills after a write: ${JSON.stringify(kills)}`).toBeGreaterThanOrEqual(KILLS / 2);
  }, 300_000);

  it('after 5 minutes down, records normally to the end; everything committed is intact; the timeline shows the gap', async () => {
    const run = await runChild([String(DOWNTIME_S), 'finish'], undefined);
    expect(run.code, run.err).toBe(0);
    expect(run.out).toMatch(/done \{"aborted":false,"unwritten":0\}/);
    check('final run', DOWNTIME_S);
    const db = openDatabase(dbPath, { readonly: true });
    try {
      const reader = createHistoryReader(db);
      const polls = reader.polls({});
      expect(polls.length).toBe(seen.size);
      for (const p of polls) expect(digest(storedAnswer(reader, p)), `poll ${p.id}`).toBe(seen.get(p.id));
      const timeline = buildTimeline(reader as unknown as TimelineSource, {});
      const gaps = timeline.events.filter((e) => e.kind === 'collection.gap');
      expect(
        gaps.some((e) => e.end !== null && e.end - e.start >= BigInt(DOWNTIME_S) * 1_000_000_000n),
        'the downtime is a gap',
      ).toBe(true);
    } finally {
      db.close();
    }
  }, 60_000);
});
