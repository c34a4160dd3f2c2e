/**
 * The retention runner on a real SQLite file with an injected clock: bounded steps, the newest
 * poll of each operation kept, maxSize, the rollup hook, the maintenance log, and a failure in
 * the middle of a prune that loses nothing that was to stay.
 */
import { describe, expect, it } from 'vitest';
import {
  Collector,
  defaultCluster,
  defaultCollectorConfig,
  emptyStats,
  RetentionRunner,
  type RetentionConfig,
  type RetentionStepResult,
  type RetentionStore,
} from '../../src/collector/index.ts';
import {
  createHistoryReader,
  createHistoryWriter,
  openDatabase,
  openHistoryMaintenance,
  readMaintenanceLog,
  RetentionPruner,
  type FlightrecDb,
} from '../../src/db/index.ts';
import { heldRanges } from '../../src/db/maintain/held-ranges.ts';
import { generateConnectionPolls } from '../helpers/connection-answers.ts';
import { LIST_REQUEST, okRecord, tempDbPath } from '../db/fixtures.ts';
import { shadowLinkAnswer, upgradeAnswer } from '../db/small-answers.ts';
import { fakeClient, memoryWriter, ok } from './helpers/fakes.ts';
import { sqliteOf } from '../helpers/sqlite-handle.ts';

const MIN_MS = 60_000;
const NS_PER_MS = 1_000_000n;

/** 30 polls a minute apart: connections (batches of 3), a shadow link, and the upgrade status for the first 12 only. */
function recorded() {
  const path = tempDbPath();
  const db = openDatabase(path);
  const writer = createHistoryWriter(db, { batchFrames: 3 });
  const polls = generateConnectionPolls({ connections: 40, churn: 0.1, polls: 30, seed: 11 });
  const ids = polls.map((p, i) => {
    writer.writePoll(
      okRecord('GetShadowLink', shadowLinkAnswer(i % 3), {
        at: p.at + 1n,
        request: { name: 'dr-link' },
        target: 'dr-link',
      }),
    );
    if (i < 12) writer.writePoll(okRecord('GetUpgradeStatus', upgradeAnswer(i), { at: p.at + 2n, request: {} }));
    return writer.writePoll(okRecord('ListKafkaConnections', p.answer, { at: p.at, request: LIST_REQUEST }));
  });
  return { db, writer, polls, ids, reader: createHistoryReader(db), maintenance: openHistoryMaintenance(db) };
}

/** A store that counts its steps and can be told to throw. */
function spy(inner: RetentionStore, onStep: (n: number, maxPolls: number) => void = () => {}) {
  const steps: { maxPolls: number; result: RetentionStepResult }[] = [];
  const store: RetentionStore = {
    clusters: () => inner.clusters(),
    usedBytes: () => inner.usedBytes(),
    oldestPoll: () => inner.oldestPoll(),
    step: (cluster, cutoff, maxPolls) => {
      onStep(steps.length, maxPolls);
      const result = inner.step(cluster, cutoff, maxPolls);
      steps.push({ maxPolls, result });
      return result;
    },
    cleanup: (cluster, maxRows) => inner.cleanup(cluster, maxRows),
    pruneRollups: (cutoff, maxRows) => inner.pruneRollups(cutoff, maxRows),
    log: (e) => inner.log(e),
  };
  return { store, steps };
}

function runner(
  db: FlightrecDb,
  retention: Partial<RetentionConfig>,
  store: RetentionStore,
  extra: Partial<ConstructorParameters<typeof RetentionRunner>[0]> = {},
) {
  const stats = emptyStats();
  const lines: string[] = [];
  let now = 0;
  const r = new RetentionRunner({
    retention: { rawMs: null, rollupsMs: null, maxSizeBytes: null, ...retention },
    store,
    stats,
    nowNs: () => 0n,
    clockMs: () => now,
    pause: () => Promise.resolve(),
    line: (l) => lines.push(l),
    initialPolls: 4,
    maxPolls: 4,
    ...extra,
  });
  return { runner: r, stats, lines, tick: (ms: number) => (now += ms), db };
}

function check(db: FlightrecDb): void {
  expect(sqliteOf(db).pragma('foreign_key_check')).toEqual([]);
  expect(sqliteOf(db).pragma('integrity_check', { simple: true })).toBe('ok');
}

function pollsOf(db: FlightrecDb, op: string): { id: number; at: bigint }[] {
  return (
    db.sqlite
      .prepare('SELECT id, started_at FROM poll WHERE operation = ? ORDER BY started_at')
      .safeIntegers()
      .all(op) as { id: bigint; started_at: bigint }[]
  ).map((r) => ({ id: Number(r.id), at: r.started_at }));
}

describe('the retention runner', () => {
  it('prunes raw history older than `raw` in bounded steps, keeps the newest poll per operation, logs it', async () => {
    const { db, writer, polls, ids, reader, maintenance } = recorded();
    const now = polls[29]!.at + 30_000n * NS_PER_MS;
    const cutoff = now - 10n * 60_000n * NS_PER_MS;
    const { store, steps } = spy(new RetentionPruner(db));
    const { runner: r, stats } = runner(db, { rawMs: 10 * MIN_MS }, store);
    const before = maintenance.stats().polls;
    const entities = maintenance.stats().entities.connections!;
    await r.run(now);

    // the cleanup: connections gone before the kept batches
    expect(maintenance.stats().entities.connections).toBeLessThan(entities);
    expect(steps.length).toBeGreaterThan(3);
    for (const s of steps) expect(s.result.polls).toBeLessThanOrEqual(s.maxPolls);
    // connections: whole sealed batches older than the cut-off went, the rest reads as recorded
    const kept = pollsOf(db, 'ListKafkaConnections');
    expect(kept.length).toBeLessThan(30);
    const first = ids.findIndex((id) => Number(id) === kept[0]!.id);
    expect(polls[first]!.at).toBeLessThan(cutoff); // its batch reaches past the cut-off
    expect(first + 3).toBeGreaterThan(polls.findIndex((p) => p.at >= cutoff));
    kept.forEach((k, i) => expect(reader.reconstructAnswer(BigInt(k.id)).answer).toEqual(polls[first + i]!.answer));
    // shadow link: everything older went; upgrade: its newest poll stays although it is older
    expect(pollsOf(db, 'GetShadowLink').every((p) => p.at >= cutoff)).toBe(true);
    expect(pollsOf(db, 'GetUpgradeStatus').map((p) => p.at)).toEqual([polls[11]!.at + 2n]);
    check(db);

    const removed = before - maintenance.stats().polls;
    expect(stats.prunedPolls).toBe(removed);
    expect(stats.retentionRuns).toBe(1);
    const log = readMaintenanceLog(db.sqlite);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ cluster: 'prod', action: 'retention-raw', cutoff, polls: removed });
    expect(log[0]!.samples).toBeGreaterThan(removed);
    expect(heldRanges(db.sqlite)[0]).toEqual({ resolution: 'raw', from: polls[11]!.at + 2n, to: polls[29]!.at + 1n });

    // the writer carries on after the cleanup; a second pass at the same time removes nothing
    const next = generateConnectionPolls({ connections: 40, churn: 0.1, polls: 31, seed: 11 })[30]!;
    const id = writer.writePoll(okRecord('ListKafkaConnections', next.answer, { at: next.at, request: LIST_REQUEST }));
    expect(reader.reconstructAnswer(id).answer).toEqual(next.answer);
    await r.run(now);
    expect(readMaintenanceLog(db.sqlite)).toHaveLength(1);
    check(db);
    writer.close();
  });

  it('halves its steps when a slice runs long, waits for rounds in flight, and counts the longest slice', async () => {
    const { db, polls, writer } = recorded();
    const events: string[] = [];
    const ctl: { tick?: (ms: number) => number } = {};
    const { store, steps } = spy(new RetentionPruner(db), (n) => {
      events.push(`step ${n}`);
      ctl.tick?.(n === 0 ? 30 : 4);
    });
    let round: Promise<void> | undefined = new Promise<void>((resolve) =>
      setTimeout(() => {
        events.push('round done');
        round = undefined;
        resolve();
      }, 5),
    );
    const made = runner(db, { rawMs: 5 * MIN_MS }, store, {
      initialPolls: 16,
      maxPolls: 16,
      sliceMs: 10,
      roundsInFlight: () => round,
    });
    ctl.tick = made.tick;
    await made.runner.run(polls[29]!.at);
    expect(events[0]).toBe('round done');
    expect(steps[0]!.maxPolls).toBe(16);
    expect(steps[1]!.maxPolls).toBe(8);
    expect(made.stats.maxPruneDelayMs).toBe(30);
    writer.close();
  });

  it('past maxSize removes the oldest raw history first, never the newest poll of an operation', async () => {
    const { db, writer, maintenance } = recorded();
    const pruner = new RetentionPruner(db);
    const used = pruner.usedBytes();
    const { runner: r, lines } = runner(db, { maxSizeBytes: Math.floor(used * 0.7) }, pruner, {
      initialPolls: 64,
      maxPolls: 64,
    });
    const conn = pollsOf(db, 'ListKafkaConnections');
    await r.run(conn.at(-1)!.at + 1n);
    const kept = pollsOf(db, 'ListKafkaConnections');
    expect(kept.length).toBeLessThan(conn.length);
    expect(kept.at(-1)).toEqual(conn.at(-1)); // the newest stays; what went is the oldest
    expect(kept).toEqual(conn.slice(conn.length - kept.length));
    expect(pollsOf(db, 'GetUpgradeStatus').length).toBeGreaterThanOrEqual(1);
    expect(pruner.usedBytes() <= Math.floor(used * 0.7) || lines.some((l) => l.includes('maxSize'))).toBe(true);
    expect(readMaintenanceLog(db.sqlite).every((e) => e.action === 'retention-size')).toBe(true);
    expect(readMaintenanceLog(db.sqlite).length).toBeGreaterThan(0);
    check(db);
    maintenance.stats();
    writer.close();
  });

  it('summarises before pruning: rollUp gets the cut-off, and a failing one prunes nothing', async () => {
    const { db, polls, writer } = recorded();
    const calls: [string, bigint][] = [];
    const now = polls[29]!.at;
    const ok = runner(db, { rawMs: 10 * MIN_MS }, new RetentionPruner(db), {
      rollUp: (c, until) => void calls.push([c, until]),
    });
    const failing = runner(db, { rawMs: 5 * MIN_MS }, new RetentionPruner(db), {
      rollUp: () => Promise.reject(new Error('rollup table locked')),
    });
    await ok.runner.run(now);
    expect(calls).toEqual([['prod', now - 10n * 60_000n * NS_PER_MS]]);
    const count = pollsOf(db, 'GetShadowLink').length;
    await failing.runner.run(now);
    expect(pollsOf(db, 'GetShadowLink').length).toBe(count);
    expect(failing.lines.join('\n')).toMatch(/retention: pruning failed .*rollup table locked/);
    writer.close();
  });

  it('survives a failure mid-prune: that step rolls back, what is to stay stays, the next pass ends it', async () => {
    const { db, polls, ids, reader, writer, maintenance } = recorded();
    const now = polls[29]!.at;
    const cutoff = now - 8n * 60_000n * NS_PER_MS;
    db.sqlite.exec(`CREATE TEMP TABLE boom (on_ INTEGER);
      CREATE TEMP TRIGGER boom_batch BEFORE DELETE ON main.conn_batch WHEN (SELECT count(*) FROM temp.boom) > 0
      BEGIN SELECT RAISE(ABORT, 'disk I/O error (simulated)'); END;`);
    let armed = true;
    const { store, steps } = spy(new RetentionPruner(db), (n) => {
      if (n === 2 && armed) db.sqlite.exec('INSERT INTO temp.boom VALUES (1)');
    });
    const { runner: r, lines, stats } = runner(db, { rawMs: 8 * MIN_MS }, store);
    const before = maintenance.stats().polls;
    await r.run(now);
    expect(steps).toHaveLength(2); // the third step threw and rolled back
    expect(lines.join('\n')).toMatch(/retention: pruning failed and is retried at the next pass .*disk I\/O error/);
    expect(maintenance.stats().polls).toBe(before - stats.prunedPolls);
    expect(readMaintenanceLog(db.sqlite)[0]).toMatchObject({ action: 'retention-raw', polls: stats.prunedPolls });
    check(db);
    // every connection poll left reads exactly as recorded
    for (const k of pollsOf(db, 'ListKafkaConnections')) {
      const i = ids.findIndex((id) => Number(id) === k.id);
      expect(reader.reconstructAnswer(BigInt(k.id)).answer).toEqual(polls[i]!.answer);
    }
    db.sqlite.exec('DELETE FROM temp.boom');
    armed = false;
    await r.run(now);
    expect(pollsOf(db, 'GetShadowLink').every((p) => p.at >= cutoff)).toBe(true);
    check(db);
    writer.close();
  });

  it('ends a pass that wrote with a checkpoint of the store (a slice of its own), a pass that wrote nothing without one', async () => {
    const { db, polls } = recorded();
    const now = polls[29]!.at + 30_000n * NS_PER_MS;
    const pruner = new RetentionPruner(db);
    const { store } = spy(pruner);
    const order: string[] = [];
    const counted: RetentionStore = {
      ...store,
      step: (cluster, cutoff, maxPolls) => {
        order.push('step');
        return store.step(cluster, cutoff, maxPolls);
      },
      checkpoint: () => {
        order.push('checkpoint');
        return pruner.checkpoint();
      },
    };
    const { runner: r } = runner(db, { rawMs: 10 * MIN_MS }, counted);
    await r.run(now);
    expect(order.filter((o) => o === 'checkpoint')).toHaveLength(1);
    expect(order.at(-1)).toBe('checkpoint');
    // nothing more to prune: no checkpoint
    await r.run(now);
    expect(order.filter((o) => o === 'checkpoint')).toHaveLength(1);
    check(db);
    db.close();
  });

  it('counts only the call of a checkpoint that runs elsewhere as a slice, and ends the pass when it has settled', async () => {
    const { db, polls } = recorded();
    const now = polls[29]!.at + 30_000n * NS_PER_MS;
    const { store } = spy(new RetentionPruner(db));
    let settle: (() => void) | undefined;
    let tick: (ms: number) => void = () => {};
    const elsewhere: RetentionStore = {
      ...store,
      checkpoint: () => {
        tick(1);
        return new Promise<void>((resolve) => {
          settle = () => {
            // the other thread's time (a slow sync) is no poll's
            tick(500);
            resolve();
          };
        });
      },
    };
    const made = runner(db, { rawMs: 10 * MIN_MS }, elsewhere);
    tick = made.tick;
    let ended = false;
    const pass = made.runner.run(now).then(() => {
      ended = true;
    });
    for (let i = 0; i < 200 && settle === undefined; i++) await Promise.resolve();
    expect(settle).toBeDefined();
    await new Promise((resolve) => setImmediate(resolve));
    expect(ended).toBe(false);
    settle!();
    await pass;
    expect(ended).toBe(true);
    expect(made.stats.maxPruneDelayMs).toBeLessThan(500);
    // a checkpoint that fails elsewhere fails nothing here
    const failing: RetentionStore = { ...store, checkpoint: () => Promise.reject(new Error('disk gone')) };
    const again = runner(db, { rawMs: 5 * MIN_MS }, failing);
    await again.runner.run(now);
    expect(again.lines).toEqual([]);
    check(db);
    db.close();
  });

  it("lets a thread that holds the store already (the rollups') take the checkpoint, else the store does", async () => {
    const { db, polls } = recorded();
    const now = polls[29]!.at + 30_000n * NS_PER_MS;
    const { store } = spy(new RetentionPruner(db));
    const order: string[] = [];
    const own: RetentionStore = { ...store, checkpoint: () => void order.push('store') };
    let running = true;
    const elsewhere = (): Promise<void> | undefined => {
      if (!running) return undefined;
      order.push('rollups');
      return Promise.resolve();
    };
    await runner(db, { rawMs: 20 * MIN_MS }, own, { checkpointElsewhere: elsewhere }).runner.run(now);
    expect(order).toEqual(['rollups']);
    // the rollups' thread not running: the store's own checkpoint
    running = false;
    await runner(db, { rawMs: 10 * MIN_MS }, own, { checkpointElsewhere: elsewhere }).runner.run(now);
    expect(order).toEqual(['rollups', 'store']);
    check(db);
    db.close();
  });

  it('checkpoints a file in another thread, the WAL written back (the pruner answers with a promise)', async () => {
    const { db, polls } = recorded();
    const now = polls[29]!.at + 30_000n * NS_PER_MS;
    const pruner = new RetentionPruner(db);
    const { runner: r } = runner(db, { rawMs: 10 * MIN_MS }, pruner);
    await r.run(now);
    const pending = () => sqliteOf(db).pragma('wal_checkpoint(PASSIVE)') as { log: number; checkpointed: number }[];
    // the pass's own checkpoint has written back what pruning left in the WAL: nothing is left to copy
    const [after] = pending();
    expect(after!.log).toBeGreaterThan(0);
    expect(after!.checkpointed).toBe(after!.log);
    // asked directly: a promise, settled with what it did
    db.sqlite.exec(
      "INSERT INTO meta (key, value) VALUES ('soak-test', 1) ON CONFLICT (key) DO UPDATE SET value = value + 1",
    );
    const done = pruner.checkpoint();
    expect(done).toBeInstanceOf(Promise);
    const outcome = await done;
    expect(outcome).toMatchObject({ ok: true });
    check(db);
    db.close();
  });

  it('prunes rollup rows older than `rollups` (tables named by the rollup schema)', async () => {
    const { db, writer } = recorded();
    db.sqlite.exec('CREATE TABLE rollup_5m_test (bucket INTEGER NOT NULL, value INTEGER) ');
    const insert = db.sqlite.prepare('INSERT INTO rollup_5m_test VALUES (?, 1)');
    for (let i = 0n; i < 100n; i++) insert.run(i * 300n * 1_000_000_000n);
    const tables = [{ resolution: '5m' as const, table: 'rollup_5m_test', time: 'bucket' }];
    const pruner = new RetentionPruner(db, tables);
    const { runner: r } = runner(db, { rollupsMs: 50 * 5 * MIN_MS }, pruner);
    await r.run(100n * 300n * 1_000_000_000n);
    const left = db.sqlite.prepare('SELECT count(*) FROM rollup_5m_test').pluck().get();
    expect(left).toBe(50);
    expect(readMaintenanceLog(db.sqlite).at(-1)).toMatchObject({ action: 'retention-rollups', samples: 50 });
    writer.close();
  });

  it('runs in the collector between its rounds', async () => {
    const calls: string[] = [];
    const store: RetentionStore = {
      clusters: () => ['c1'],
      usedBytes: () => 0,
      oldestPoll: () => 0n,
      step: (cluster, cutoff) => {
        calls.push(`step ${cluster} ${cutoff}`);
        return { polls: 1, samples: 2, bytes: 3, more: false };
      },
      cleanup: () => ({ polls: 0, samples: 0, bytes: 0, more: false }),
      pruneRollups: () => ({ polls: 0, samples: 0, bytes: 0, more: false }),
      log: (e) => void calls.push(`log ${e.action} ${e.polls}`),
    };
    const config = {
      ...defaultCollectorConfig([{ ...defaultCluster('c1', 'http://127.0.0.1:1'), shadowLinks: [] }]),
      jitterMs: 0,
      retention: { rawMs: 60_000, rollupsMs: null, maxSizeBytes: null },
    };
    const upgrade = {
      activeVersion: 1n,
      autoFinalizationEnabled: false,
      members: [],
      state: 'FINALIZATION_STATE_FINALIZED',
    };
    const c = new Collector({
      config,
      writer: memoryWriter(),
      env: {},
      now: () => 120_000,
      retentionStore: store,
      clientFactory: () =>
        fakeClient((op) =>
          op === 'GetUpgradeStatus'
            ? ok({ ...upgrade, versionAfterFinalization: 1n })
            : ok({ connections: [], totalSize: 0n }),
        ),
    });
    await c.runAll();
    // the pass goes on between polls (event-loop turns), after the rounds
    for (let i = 0; i < 50 && calls.length < 2; i++) await new Promise((resolve) => setImmediate(resolve));
    await c.shutdown();
    // one pass (no minute passed between the rounds), its cut-off 60 s before the poll clock
    expect(calls).toEqual(['step c1 60000000000', 'log retention-raw 1']);
    expect(c.stats).toMatchObject({ retentionRuns: 1, prunedPolls: 1, prunedBytes: 3 });
  });
});
