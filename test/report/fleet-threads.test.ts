/**
 * `fleet` on two threads (fleet-threads.ts) answers exactly as on one: the same lines in the same
 * order, the worker reading the snapshot the caller exported; a worker that cannot open the
 * database leaves every cluster to the caller; a cluster that fails reports the error one thread
 * reports (its class and message), whichever thread took it; SQLite stays on one thread. Needs a
 * server (the worker opens its own connection).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createHistoryReader, openDatabase, type FlightrecDb } from '../../src/db/index.ts';
import { HistoryQueryError } from '../../src/db/errors.ts';
import { fleetStatus, type FleetOptions } from '../../src/report/fleet.ts';
import { fleetStatusInThreads } from '../../src/report/fleet-threads.ts';
import { EVERY_30S, runFlightrec, tempDir } from '../fixtures/timeline/run-cli.ts';
import { describeWithServer, freshPgTarget, type PgTarget } from '../helpers/pg.ts';

const tmp = tempDir();
const file = tmp.path('history.db');
let pgt: PgTarget | undefined;
let pg: FlightrecDb | undefined;
const CLUSTERS = ['dc-a', 'dc-b', 'dc-c', 'dc-d'];
const AT = BigInt(Date.parse('2026-01-01T00:02:15Z')) * 1_000_000n;

async function record(db: string): Promise<void> {
  for (const [i, cluster] of CLUSTERS.entries()) {
    const scenario = i % 2 === 0 ? 'connection-storm' : 'shadow-link';
    const r = await runFlightrec([
      ...['--db', db, '--cluster', cluster, 'collect', '--simulate', scenario, '--for', '3m', '--seed', String(20 + i)],
      ...['--connections', '30', ...EVERY_30S],
    ]);
    if (r.code !== 0) throw new Error(`collect ${cluster} into ${db}: ${r.err.slice(-500)}`);
  }
}

describeWithServer('fleet on two threads', () => {
  beforeAll(async () => {
    pgt = await freshPgTarget();
    await record(pgt.target);
    await record(file);
    pg = openDatabase(pgt.target, { readonly: true });
  }, 240_000);
  afterAll(async () => {
    pg?.close();
    await pgt?.drop();
    tmp.remove();
  });

  const opts: FleetOptions = { at: AT };

  it('gives the lines of one thread, the worker joining the exported snapshot', async () => {
    const reader = createHistoryReader(pg!);
    const one = fleetStatus(reader, opts);
    expect(one.lines.map((l) => l.cluster).sort()).toEqual(CLUSTERS);
    let theirs = -1;
    const where = { database: pgt!.target, helper: true, onHelperLines: (n: number) => (theirs = n) };
    const two = await fleetStatusInThreads(reader, opts, where);
    expect(two).toEqual(one);
    expect(theirs).toBeGreaterThanOrEqual(0);
    // one thread on request
    theirs = -1;
    await fleetStatusInThreads(reader, opts, { ...where, helper: false });
    expect(theirs).toBe(-1);
    // enough lines (each cluster many times) for the worker, started meanwhile, to take some
    const many = { ...opts, clusters: Array.from({ length: 6 }, () => CLUSTERS).flat() };
    expect(await fleetStatusInThreads(reader, many, where)).toEqual(fleetStatus(reader, many));
    expect(theirs).toBeGreaterThan(0);
    // the snapshot is exported inside a read transaction only
    expect(reader.exportSnapshot()).toBeUndefined();
    expect(reader.consistent(() => reader.exportSnapshot())).toMatch(/^[0-9A-F]+-[0-9A-F]+-[0-9]+$/);
    // nothing but a snapshot id goes into the SQL
    expect(() => reader.joinSnapshot("00000003-0000001B-1'; DROP TABLE poll; --")).toThrow(/not an exported snapshot/);
  }, 120_000);

  it('leaves every cluster to the caller when the worker cannot open the database', async () => {
    const reader = createHistoryReader(pg!);
    const bad = `${pgt!.target.replace(/\/[^/?]*(\?|$)/, '/flightrec_no_such_db$1')}`;
    const two = await fleetStatusInThreads(reader, opts, { database: bad, helper: true });
    expect(two).toEqual(fleetStatus(reader, opts));
  }, 120_000);

  it("reports a failing cluster's own error, whichever thread took it", async () => {
    const reader = createHistoryReader(pg!);
    const clusters = ['dc-a', 'dc-b', 'no-such', 'dc-c', 'dc-d'];
    const one = (() => {
      try {
        fleetStatus(reader, { ...opts, clusters });
      } catch (err) {
        return err;
      }
    })();
    expect(one).toBeInstanceOf(HistoryQueryError);
    for (let i = 0; i < 3; i++) {
      const two = await fleetStatusInThreads(
        reader,
        { ...opts, clusters },
        { database: pgt!.target, helper: true },
      ).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(two).toBeInstanceOf(HistoryQueryError);
      expect((two as Error).message).toBe((one as Error).message);
    }
  }, 120_000);

  it('stays on one thread on SQLite (no snapshot to share), with the same lines', async () => {
    const db = openDatabase(file, { readonly: true });
    try {
      const reader = createHistoryReader(db);
      expect(reader.consistent(() => reader.exportSnapshot())).toBeUndefined();
      const two = await fleetStatusInThreads(reader, opts, { database: file, helper: true });
      expect(two).toEqual(fleetStatus(reader, opts));
      expect(two.lines.map((l) => l.cluster).sort()).toEqual(CLUSTERS);
    } finally {
      db.close();
    }
  }, 120_000);
});
