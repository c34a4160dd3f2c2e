/**
 * Computes rollups off the collector's thread: entry point of a worker thread (see
 * rollup-thread.ts for the caller). For each job it opens its own connection to the database
 * file (WAL: it writes rollup rows while the collector writes polls), runs createRollUp, closes
 * the connection and posts back `{ id, ok }` or `{ id, ok: false, message }`. A `stop` message
 * closes the connection at the next bucket boundary (no transaction is open there: each one is
 * synchronous), so the job ends with an error at its next read, and lets the thread end.
 */
import { existsSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { createHistoryReader, createRollupStore, openDatabase, type FlightrecDb } from '../../db/index.ts';
import type { Thresholds } from '../timeline/thresholds.ts';
import { createRollUp } from './roll-up.ts';

/** A rollUp to run: the database file, the cluster, the cut-off (ns) and the detector thresholds. */
export interface RollUpJob {
  readonly type: 'run';
  readonly id: number;
  readonly database: string;
  readonly cluster: string;
  readonly untilNs: bigint;
  readonly thresholds: Thresholds;
}

/** What the worker receives. */
export type RollUpWorkerRequest = RollUpJob | { readonly type: 'stop' };

/** What the worker answers, per job. */
export type RollUpWorkerReply = { readonly id: number; readonly ok: true } | { readonly id: number; readonly ok: false; readonly message: string };

const port = parentPort;
let open: FlightrecDb | undefined;
let stopped = false;

async function run(job: RollUpJob): Promise<RollUpWorkerReply> {
  let db: FlightrecDb | undefined;
  try {
    // openDatabase would create a missing file: the collector's file is gone (or replaced) then
    if (!existsSync(job.database)) throw new Error(`the database ${job.database} is no longer there`);
    db = openDatabase(job.database);
    open = db;
    await createRollUp(createHistoryReader(db), createRollupStore(db), { thresholds: job.thresholds })(job.cluster, job.untilNs);
    return { id: job.id, ok: true };
  } catch (err) {
    const message = stopped ? 'stopped' : err instanceof Error ? err.message : String(err);
    return { id: job.id, ok: false, message };
  } finally {
    open = undefined;
    db?.close();
  }
}

port?.on('message', (m: RollUpWorkerRequest) => {
  if (m.type === 'stop') {
    stopped = true;
    try {
      open?.close();
    } catch {
      // the caller terminates the thread if the job does not end
    }
    port.close();
    return;
  }
  void run(m).then((reply) => {
    if (!stopped) port.postMessage(reply);
  });
});
