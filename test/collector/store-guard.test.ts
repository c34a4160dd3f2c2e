/**
 * The recording store's guards: the database file deleted or replaced while recording (a new
 * database is started at the path, or the collector stops with a clear error), and two
 * collectors on one database (the second waits as a standby and takes over when the first
 * stops or stops renewing its lease; never both record).
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { CallResult } from '../../src/api/client/index.ts';
import {
  Collector,
  createReporter,
  defaultCluster,
  defaultCollectorConfig,
  type CollectorConfig,
} from '../../src/collector/index.ts';
import { openDatabase, openRecordingStore, sqliteLeases, StoreLostError } from '../../src/db/index.ts';
import { tempDbPath } from '../db/fixtures.ts';
import { fakeClient } from './helpers/fakes.ts';

const UPGRADE = {
  activeVersion: 1n,
  autoFinalizationEnabled: false,
  members: [],
  state: 'FINALIZATION_STATE_FINALIZED',
  versionAfterFinalization: 1n,
};
const ok = (): CallResult<unknown> => ({
  ok: true,
  value: UPGRADE,
  httpStatus: 200,
  elapsedMs: 1,
  bytes: 2,
  body: Buffer.from('{}'),
});

function config(): CollectorConfig {
  return {
    ...defaultCollectorConfig([{ ...defaultCluster('c1', 'http://127.0.0.1:1'), shadowLinks: [] }]),
    jitterMs: 0,
  };
}

function sink() {
  let text = '';
  return { write: (s: string) => void (text += s), text: () => text };
}

function pollCount(path: string): number {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT count(*) FROM poll').pluck().get() as number;
  } finally {
    db.close();
  }
}

describe('the database file deleted or replaced while recording', () => {
  it('deleted: says so loudly and records on into a new database at the same path', async () => {
    const path = tempDbPath();
    const out = sink();
    const store = openRecordingStore(path);
    const c = new Collector({
      config: config(),
      writer: store,
      env: {},
      now: Date.now,
      clientFactory: () => fakeClient(ok),
      reporter: createReporter(out),
    });
    await c.runRound('c1', 'GetUpgradeStatus');
    await c.runRound('c1', 'GetUpgradeStatus');
    rmSync(path);
    await c.runRound('c1', 'GetUpgradeStatus');
    await c.runRound('c1', 'GetUpgradeStatus');
    await c.shutdown();
    expect(out.text()).toMatch(
      /error: the database file .+ was deleted while recording: .*a new database was started at .+ and recording goes on there/,
    );
    expect(c.stats.reopened).toBe(1);
    expect(pollCount(path)).toBe(2);
  });

  it('replaced by another flightrec database: records into the new file, not the unlinked one', async () => {
    const path = tempDbPath();
    const other = `${path}.other`;
    openDatabase(other).close();
    const store = openRecordingStore(path);
    const c = new Collector({
      config: config(),
      writer: store,
      env: {},
      now: Date.now,
      clientFactory: () => fakeClient(ok),
    });
    await c.runRound('c1', 'GetUpgradeStatus');
    renameSync(other, path);
    await c.runRound('c1', 'GetUpgradeStatus');
    await c.shutdown();
    expect(pollCount(path)).toBe(1);
  });

  it('replaced by a file that is not a database: stops with an error naming the file', async () => {
    const path = tempDbPath();
    const out = sink();
    const fatal: Error[] = [];
    const store = openRecordingStore(path);
    const c = new Collector({
      config: config(),
      writer: store,
      env: {},
      now: Date.now,
      clientFactory: () => fakeClient(ok),
      reporter: createReporter(out),
      onFatal: (e) => fatal.push(e),
    });
    await c.runRound('c1', 'GetUpgradeStatus');
    rmSync(path);
    writeFileSync(path, 'this is not an SQLite database, it is a note somebody left here'.repeat(100));
    await c.runRound('c1', 'GetUpgradeStatus');
    expect(c.stopping.aborted).toBe(true);
    expect(fatal).toHaveLength(1);
    expect(c.fatal).toBeInstanceOf(StoreLostError);
    expect(c.fatal!.message).toContain(
      `the database file ${path} was replaced by another file while recording, and no database can be opened there`,
    );
    expect(out.text()).toContain('recording stopped');
    await c.shutdown();
  });
});

describe('two collectors for the same cluster on one database', () => {
  it('the second waits as a standby (no call made) and takes over when the first stops', async () => {
    const path = tempDbPath();
    const outB = sink();
    const clientA = fakeClient(ok);
    const clientB = fakeClient(ok);
    const a = new Collector({
      config: config(),
      writer: openRecordingStore(path),
      env: {},
      now: Date.now,
      owner: 'A',
      clientFactory: () => clientA,
    });
    const b = new Collector({
      config: config(),
      writer: openRecordingStore(path),
      env: {},
      now: Date.now,
      owner: 'B',
      clientFactory: () => clientB,
      reporter: createReporter(outB),
    });
    for (let i = 0; i < 3; i++) {
      await a.runRound('c1', 'GetUpgradeStatus');
      const r = await b.runRound('c1', 'GetUpgradeStatus');
      expect(r).toMatchObject({ standby: true, calls: 0 });
    }
    expect(clientB.calls).toHaveLength(0);
    expect(b.standby).toEqual(['c1']);
    expect(outB.text()).toContain('c1: another collector (A) is recording this cluster into this database');
    expect(outB.text().match(/another collector/g)).toHaveLength(1);
    await a.shutdown();
    const r = await b.runRound('c1', 'GetUpgradeStatus');
    expect(r.standby).toBeUndefined();
    expect(r.calls).toBe(1);
    expect(outB.text()).toContain('c1: taking over the recording from A');
    await b.shutdown();
    expect(pollCount(path)).toBe(4);
    expect(clientA.calls).toHaveLength(3);
  });

  it('takes over a lease whose holder stopped renewing it (killed) after the TTL', async () => {
    const path = tempDbPath();
    let t = 1_000_000;
    const dead = openRecordingStore(path);
    // a collector that took the lease and was then killed: no release, no heartbeat
    expect(await dead.leases.acquire('c1', 'killed', t, 30_000)).toMatchObject({ held: true });
    const out = sink();
    const b = new Collector({
      config: config(),
      writer: openRecordingStore(path),
      env: {},
      now: () => t,
      owner: 'B',
      clientFactory: () => fakeClient(ok),
      reporter: createReporter(out),
      leaseTtlMs: 30_000,
    });
    t += 10_000;
    expect((await b.runRound('c1', 'GetUpgradeStatus')).standby).toBe(true);
    t += 25_000;
    expect((await b.runRound('c1', 'GetUpgradeStatus')).calls).toBe(1);
    expect(out.text()).toContain('taking over the recording from killed');
    await b.shutdown();
    dead.close();
  });

  it('a lease is taken atomically: of two owners asking at once, one holds it', async () => {
    const path = tempDbPath();
    const db1 = openDatabase(path);
    const db2 = openDatabase(path);
    const l1 = sqliteLeases(db1.sqlite);
    const l2 = sqliteLeases(db2.sqlite);
    const r1 = l1.acquire('c1', 'one', 1000, 30_000) as { held: boolean };
    const r2 = l2.acquire('c1', 'two', 1000, 30_000) as { held: boolean; owner: string };
    expect([r1.held, r2.held]).toEqual([true, false]);
    expect(r2.owner).toBe('one');
    await l1.release('c1', 'one');
    expect((l2.acquire('c1', 'two', 1001, 30_000) as { held: boolean }).held).toBe(true);
    db1.close();
    db2.close();
  });
});

describe('the lease heartbeat', () => {
  it('renews the lease between rounds, and a standby takes over on a heartbeat, without waiting for a round', async () => {
    const path = tempDbPath();
    let t = 5_000_000;
    const beats: ((go: boolean) => void)[] = [];
    const heartbeatSleep = (_ms: number, signal?: AbortSignal) =>
      new Promise<boolean>((resolve) => {
        beats.push(resolve);
        signal?.addEventListener('abort', () => resolve(false), { once: true });
      });
    const noCron = () => ({ start() {}, stop() {}, destroy() {} });
    const a = new Collector({
      config: config(),
      writer: openRecordingStore(path),
      env: {},
      now: () => t,
      owner: 'A',
      clientFactory: () => fakeClient(ok),
    });
    await a.runRound('c1', 'GetUpgradeStatus');
    const out = sink();
    const b = new Collector({
      config: config(),
      writer: openRecordingStore(path),
      env: {},
      now: () => t,
      owner: 'B',
      clientFactory: () => fakeClient(ok),
      reporter: createReporter(out),
      createTask: noCron as never,
      heartbeatSleep,
    });
    b.start();
    const tick = async (): Promise<void> => {
      await new Promise((r) => setTimeout(r, 5));
      beats.shift()?.(true);
      await new Promise((r) => setTimeout(r, 5));
    };
    await tick();
    expect(b.standby).toEqual(['c1']);
    await a.shutdown();
    await tick();
    expect(b.standby).toEqual([]);
    expect(out.text()).toContain('c1: taking over the recording from A (it stopped and gave the lease up)');
    t += 1;
    await b.shutdown();
  });
});
