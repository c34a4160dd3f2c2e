/**
 * Computes rollups off the collector's thread: entry point of a worker thread (see
 * rollup-thread.ts for the caller). It opens its own connection to the database file (WAL: it
 * writes rollup rows while the collector writes polls), kept between jobs (opened again when the
 * file was replaced), runs createRollUp for each job and posts back `{ id, ok }` or
 * `{ id, ok: false, message }`. A `stop` message closes the connection at the next bucket
 * boundary (no transaction is open there: each one is synchronous), so the job ends with an
 * error at its next read, and lets the thread end. A `checkpoint` request writes the file's WAL
 * back on the same connection (PASSIVE: it never waits for a lock), so that the collector's
 * retention pass needs no thread of its own for it while this one runs.
 */
import { statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { parentPort } from 'node:worker_threads';
import {
  createHistoryReader,
  createRollupStore,
  openDatabase,
  type CheckpointReply,
  type FlightrecDb,
} from '../../db/index.ts';
import { isDbUrl } from '../../db/engines/registry.ts';
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
  /** PostgreSQL: the file holding the password, when the URL has none */
  readonly passwordFile?: string;
}

/** A PASSIVE WAL checkpoint of the SQLite file `database`, on the worker's connection to it. */
export interface CheckpointJob {
  readonly type: 'checkpoint';
  readonly id: number;
  readonly database: string;
}

/** What the worker receives. */
export type RollUpWorkerRequest = RollUpJob | CheckpointJob | { readonly type: 'stop' };

/** What the worker answers, per job. */
export type RollUpWorkerReply =
  | { readonly id: number; readonly ok: true; readonly damaged?: readonly string[] }
  | { readonly id: number; readonly ok: false; readonly message: string };

const port = parentPort;
/** The connection, kept between jobs, and the file it was opened on (a replaced file is opened again). */
let open: { readonly db: FlightrecDb; readonly file: string } | undefined;
let stopped = false;

function fileId(path: string): string | undefined {
  // a PostgreSQL database is no file: it is the same while its URL is
  if (isDbUrl(path)) return path;
  try {
    const st = statSync(path);
    return `${st.dev}:${st.ino}`;
  } catch {
    return undefined;
  }
}

function close(): void {
  const db = open?.db;
  open = undefined;
  db?.close();
}

/** The connection to `path`: the open one, unless the file was replaced; openDatabase would create a missing file. */
function connection(path: string, passwordFile: string | undefined): FlightrecDb {
  // a PostgreSQL database has no file to be replaced: its connection is kept
  const file = isDbUrl(path) ? path : fileId(path);
  if (file === undefined) throw new Error(`the database ${path} is no longer there`);
  if (open !== undefined && open.file === file && open.db.path === path) return open.db;
  close();
  const db = openDatabase(path, passwordFile === undefined ? {} : { passwordFile });
  // a page cache of its own next to the collector's: 4 MiB rather than 64 (rollUp reads each page about once)
  db.engine.cacheKiB(4096);
  open = { db, file };
  return db;
}

async function run(job: RollUpJob): Promise<RollUpWorkerReply> {
  try {
    const db = connection(job.database, job.passwordFile);
    const damaged: string[] = [];
    const onDamage = (message: string): void => void damaged.push(message);
    await createRollUp(createHistoryReader(db), createRollupStore(db), { thresholds: job.thresholds, onDamage })(
      job.cluster,
      job.untilNs,
    );
    return { id: job.id, ok: true, damaged };
  } catch (err) {
    return { id: job.id, ok: false, message: stopped ? 'stopped' : err instanceof Error ? err.message : String(err) };
  }
}

function checkpoint(job: CheckpointJob): CheckpointReply {
  const t0 = performance.now();
  try {
    const wal = connection(job.database, undefined).engine.passiveCheckpoint();
    if (wal === undefined) return { id: job.id, ok: false, message: 'the checkpoint could not run now' };
    return { id: job.id, ok: true, frames: wal.frames, checkpointed: wal.checkpointed, ms: performance.now() - t0 };
  } catch (err) {
    return { id: job.id, ok: false, message: err instanceof Error ? err.message : String(err) };
  }
}

port?.on('message', (m: RollUpWorkerRequest) => {
  if (m.type === 'stop') {
    stopped = true;
    try {
      // between two buckets: no transaction is open (each one is synchronous)
      close();
    } catch {
      // the caller terminates the thread if the job does not end
    }
    port.close();
    return;
  }
  if (m.type === 'checkpoint') {
    if (!stopped) port.postMessage(checkpoint(m));
    return;
  }
  void run(m).then((reply) => {
    if (!stopped) port.postMessage(reply);
  });
});
