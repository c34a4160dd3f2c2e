/**
 * Retention's rollUp runs in a worker thread: `collect --simulate --retention-raw` prunes while
 * recording, the rollups of the pruned part are written (rollup tables, rollup_progress) and
 * `trends` over it answers from them, yet the collector's thread never ran createRollUp. The
 * worker loads its own copy of the modules (tsx's loader, not vitest's), so the spy below sees
 * only calls made on this thread: with rollUp back on the collector's thread, `onThisThread`
 * would not be empty. How long the collector's event loop waits is measured by
 * bench/rollup-size.ts (a wall-time bound here would either flake on a loaded machine or be too
 * loose to tell the two apart at a test's size). Stopping the thread in the middle of a rollUp
 * leaves rollups that the next call completes to what one uninterrupted call writes.
 */
import { copyFileSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { OperationName, RequestOf, ResponseOf } from '../../src/api/schema/operations.ts';
import { createHistoryReader, createHistoryWriter, createRollupStore, openDatabase } from '../../src/db/index.ts';
import { createRollUp, RollUpThread } from '../../src/report/rollup/index.ts';
import { DEFAULT_THRESHOLDS } from '../../src/report/timeline/thresholds.ts';
import { computeTrends } from '../../src/report/trends/index.ts';
import { recordSim } from '../fixtures/timeline/sim-recorder.ts';
import { memoryIo } from '../helpers/memory-io.ts';
import { sqliteOf } from '../helpers/sqlite-handle.ts';
import { runCli } from './helpers/run-cli.ts';

const onThisThread: number[] = [];
vi.mock('../../src/report/rollup/roll-up.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/report/rollup/roll-up.ts')>();
  return {
    ...original,
    createRollUp: (...args: Parameters<typeof original.createRollUp>) => {
      onThisThread.push(threadId);
      return original.createRollUp(...args);
    },
  };
});

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'flightrec-rollup-worker-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const START_NS = BigInt(Date.parse('2026-01-01T00:00:00Z')) * 1_000_000n;
const MIN_NS = 60_000_000_000n;

const REQUESTS: { [N in OperationName]: (target: string) => RequestOf<N> } = {
  ListKafkaConnections: () => ({ filter: '', orderBy: '', pageSize: 20_000 }),
  GetShadowLink: (name) => ({ name }),
  ListShadowTopics: (shadowLinkName) => ({ shadowLinkName }),
  GetShadowTopic: (target) => ({ shadowLinkName: target.split('/')[0] ?? '', name: target.split('/')[1] ?? '' }),
  GetUpgradeStatus: () => ({}),
  GetIcebergStatus: () => ({ topicsFilter: [] }),
};

/** The quiet scenario's polls over `seconds`, written straight into a new database at `path` (faster than collect). */
function recordInto(path: string, seconds: number): bigint {
  const rec = recordSim('quiet', { connections: 5, seconds });
  const writer = createHistoryWriter(openDatabase(path));
  for (const p of rec.polls) {
    if (p.answer === undefined) continue;
    const op = p.poll.operation as OperationName;
    const answer = p.answer as ResponseOf<typeof op>;
    const conns = op === 'ListKafkaConnections' ? (answer as ResponseOf<'ListKafkaConnections'>) : undefined;
    const at = p.poll.startTime;
    writer.writePoll({
      cluster: 'sim',
      operation: op,
      target: p.poll.target,
      request: REQUESTS[op](p.poll.target),
      round: `r${at}`,
      attempt: 1,
      scheduledAt: at,
      startedAt: at,
      endedAt: at + 1_000_000n,
      outcome: { ok: true, answer, bytes: 0 },
      ...(conns === undefined
        ? {}
        : {
            coverage: { rowsReturned: conns.connections.length, totalSize: conns.totalSize, fanoutCalls: 1, slice: '' },
          }),
    });
  }
  writer.close();
  return rec.start;
}

describe('rollups in a worker thread', () => {
  it('collect --retention-raw writes the rollups of what it prunes from a worker; trends read them', async () => {
    const db = join(dir, 'w.db');
    const io = memoryIo({ cwd: dir });
    const code = await runCli(
      ['--db', db, 'collect', '--simulate', '--for', '16m', '--connections', '10', '--retention-raw', '6m'],
      io,
    );
    expect(io.err()).not.toMatch(/flightrec:|retention: /);
    expect(code).toBe(0);
    expect(onThisThread).toEqual([]);

    const handle = openDatabase(db, { readonly: true });
    try {
      const count = (table: string): number =>
        Number(handle.sqlite.prepare(`SELECT count(*) FROM ${table}`).pluck().get());
      expect(count('rollup_bucket')).toBeGreaterThan(0);
      expect(count('rollup_conn')).toBeGreaterThan(0);
      const progress = handle.sqlite
        .prepare('SELECT resolution, "until" FROM rollup_progress ORDER BY resolution')
        .safeIntegers()
        .all() as { resolution: bigint; until: bigint }[];
      // the events (resolution 0) and the 5-minute buckets reach the last cut-off's bucket (00:10)
      expect(progress.map((p) => p.resolution)).toEqual([0n, 300n]);
      for (const p of progress) expect(p.until).toBeGreaterThanOrEqual(START_NS + 10n * MIN_NS);

      const reader = createHistoryReader(handle);
      const first = reader.polls({ cluster: 'sim', limit: 1 })[0];
      expect(first!.startTime).toBeGreaterThan(START_NS + 5n * MIN_NS);
      const trends = computeTrends(reader, { metric: 'requests', by: 'broker', cluster: 'sim' });
      // from the start of the recording, which only the rollups still cover
      expect(trends.since).toBe(START_NS);
      expect(trends.rollups?.resolution).toBe(300);
    } finally {
      handle.close();
    }
  }, 30_000);

  it('a failing rollUp rejects with the worker message; close() ends the thread and later runs reject', async () => {
    const thread = new RollUpThread({ database: join(dir, 'missing.db'), thresholds: DEFAULT_THRESHOLDS });
    await expect(thread.run('sim', START_NS)).rejects.toThrow(/rollups: the database .*missing\.db is no longer there/);
    await thread.close();
    await expect(thread.run('sim', START_NS)).rejects.toThrow(/rollups stopped/);
    expect(onThisThread).toEqual([]);
  }, 30_000);

  it('close() in the middle of a rollUp stops it at a bucket; the rollups left resume to the same result', async () => {
    const db = join(dir, 's.db');
    const start = recordInto(db, 100 * 60);
    const whole = join(dir, 'whole.db');
    copyFileSync(db, whole);
    const until = start + 100n * MIN_NS;
    const progressOf = (path: string): bigint | undefined => {
      const h = openDatabase(path, { readonly: true });
      try {
        return createRollupStore(h).progress('sim', 300);
      } finally {
        h.close();
      }
    };

    const thread = new RollUpThread({ database: db, thresholds: DEFAULT_THRESHOLDS });
    const job = thread.run('sim', until);
    const outcome = job.then(
      () => 'finished',
      (err: unknown) => String(err),
    );
    // stopped once the first hour of buckets is written (a worker's progress, not a timer of the collector)
    while (progressOf(db) === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
    await thread.close();
    expect(await outcome).toMatch(/rollups stopped/);
    const stoppedAt = progressOf(db)!;
    expect(stoppedAt).toBeLessThan(until);

    // the rest, resumed from rollup_progress, gives what one uninterrupted rollUp gives
    const rows = async (path: string): Promise<unknown[]> => {
      const h = openDatabase(path);
      try {
        await createRollUp(createHistoryReader(h), createRollupStore(h))('sim', until);
        const columns = 'resolution, start, open_max, open_last, opened, requests';
        return h.sqlite.prepare(`SELECT ${columns} FROM rollup_conn ORDER BY ${columns}`).all();
      } finally {
        h.close();
      }
    };
    const resumed = await rows(db);
    expect(resumed.length).toBeGreaterThan(0);
    expect(resumed).toEqual(await rows(whole));
  }, 60_000);

  it("takes retention's checkpoint on its own connection once it runs, writing back the WAL the store left", async () => {
    const path = join(dir, 'cp.db');
    const start = recordInto(path, 20 * 60);
    const thread = new RollUpThread({ database: path, thresholds: DEFAULT_THRESHOLDS });
    // no thread is started for a checkpoint: the caller's own checkpoint does it then
    expect(thread.checkpoint()).toBeUndefined();
    await thread.run('sim', start + 10n * MIN_NS);
    const store = openDatabase(path);
    try {
      sqliteOf(store).pragma('wal_autocheckpoint = 0');
      store.sqlite.exec('CREATE TABLE cp_t (x BLOB)');
      const insert = store.sqlite.prepare('INSERT INTO cp_t VALUES (randomblob(20000))');
      for (let i = 0; i < 20; i++) insert.run();
      const done = await thread.checkpoint();
      expect(done?.ok).toBe(true);
      if (done?.ok !== true) return;
      expect(done.frames).toBeGreaterThan(20);
      expect(done.checkpointed).toBe(done.frames);
      // nothing is left for the store's connection to copy, and it writes on
      const [left] = sqliteOf(store).pragma('wal_checkpoint(PASSIVE)') as { log: number; checkpointed: number }[];
      expect(left!.checkpointed).toBe(left!.log);
      insert.run();
      expect(store.sqlite.prepare('SELECT count(*) FROM cp_t').pluck().get()).toBe(21);
    } finally {
      store.close();
    }
    // the file gone (moved away): a checkpoint says why it did not run, and rejects nothing
    renameSync(path, `${path}.moved`);
    const gone = await thread.checkpoint();
    expect(gone).toEqual({ ok: false, reason: expect.stringMatching(/no longer there/) });
    await thread.close();
    expect(thread.checkpoint()).toBeUndefined();
  }, 60_000);

  it('leaves the checkpoint of a database server to the store (no log of its own to write back)', () => {
    const thread = new RollUpThread({ database: 'postgres://127.0.0.1:5432/test', thresholds: DEFAULT_THRESHOLDS });
    expect(thread.checkpoint()).toBeUndefined();
  });
});
