/**
 * A second thread for `fleet` (see fleet-threads.ts for the caller): it opens the database
 * read-only, joins the caller's exported read snapshot, and takes clusters from the shared
 * counter one at a time, as the caller does, posting each cluster's line (or the failure that
 * stopped it) and finally `done`. Entry point of a worker thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createHistoryReader, openDatabase, type FlightrecDb } from '../db/index.ts';
import { fleetLine, type FleetLine, type FleetOptions } from './fleet.ts';

/** What the worker is started with (its workerData). */
export interface FleetWorkerData {
  /** the database (a URL: a worker's own connection) and, for a URL without its password, the password file */
  readonly database: string;
  readonly passwordFile?: string;
  /** the read snapshot to join (the caller's read transaction, exported) */
  readonly snapshot: string;
  readonly clusters: readonly string[];
  readonly opts: Omit<FleetOptions, 'clusters'>;
  /** Int32Array over it: FLEET_NEXT, the next cluster to take; FLEET_STOP, 1 once the caller wants no more taken */
  readonly shared: SharedArrayBuffer;
}

/** Index of the next cluster to take in FleetWorkerData.shared. */
export const FLEET_NEXT = 0;
/** Index of the stop flag in FleetWorkerData.shared. */
export const FLEET_STOP = 1;

/** What the worker posts: a line, a cluster that failed (the caller computes it again), or its end. */
export type FleetWorkerMessage =
  | { readonly kind: 'line'; readonly index: number; readonly line: FleetLine }
  | { readonly kind: 'failed'; readonly index: number; readonly message: string }
  | { readonly kind: 'done'; readonly message?: string };

const data = workerData as FleetWorkerData | undefined;
if (parentPort !== null && data !== undefined) {
  const port = parentPort;
  port.postMessage(run(data, (m) => port.postMessage(m)));
}

/** Takes and computes clusters until none is left, the caller stops it, or one fails. */
function run(job: FleetWorkerData, post: (m: FleetWorkerMessage) => void): FleetWorkerMessage {
  const shared = new Int32Array(job.shared);
  let db: FlightrecDb | undefined;
  try {
    db = openDatabase(job.database, {
      readonly: true,
      ...(job.passwordFile === undefined ? {} : { passwordFile: job.passwordFile }),
    });
    const reader = createHistoryReader(db);
    reader.joinSnapshot(job.snapshot);
    reader.consistent(() => {
      // the snapshot is joined with the first read, before any cluster is taken
      reader.clusters();
      while (Atomics.load(shared, FLEET_STOP) === 0) {
        const index = Atomics.add(shared, FLEET_NEXT, 1);
        const cluster = job.clusters[index];
        if (cluster === undefined) return;
        try {
          post({ kind: 'line', index, line: fleetLine(reader, cluster, job.opts) });
        } catch (err) {
          post({ kind: 'failed', index, message: messageOf(err) });
          return;
        }
      }
    });
    return { kind: 'done' };
  } catch (err) {
    return { kind: 'done', message: messageOf(err) };
  } finally {
    db?.close();
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
