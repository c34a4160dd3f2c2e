/**
 * `fleet` on two threads: the clusters are independent, so a worker thread (fleet-worker.ts),
 * with its own connection reading the same snapshot, takes clusters from a shared counter while
 * this thread takes the others; both cores work and the two connections' round trips overlap.
 * Only where the engine can share a read snapshot (PostgreSQL): every line is then read as of the
 * same instant, as one thread reads them. The lines are the same, and so is their order (a total
 * order, compareFleetLines). A cluster that fails is computed again here, in order, so the error
 * reported is the one a single thread reports (the first failing cluster's, its own class).
 */
import type { Worker } from 'node:worker_threads';
import { launchThread } from '../threads/launch.ts';
import {
  compareFleetLines,
  DEFAULT_FLEET_WINDOW,
  fleetLine,
  fleetStatus,
  type Fleet,
  type FleetLine,
  type FleetOptions,
  type FleetReader,
} from './fleet.ts';
import { FLEET_NEXT, FLEET_STOP, type FleetWorkerData, type FleetWorkerMessage } from './fleet-worker.ts';

/** Where a worker thread opens the database again, and whether to start one. */
export interface FleetDatabase {
  /** the database as it was opened (a URL; may hold a password: never printed) */
  readonly database: string;
  readonly passwordFile?: string;
  /**
   * false: one thread. A second thread costs CPU of its own (its start, its own connection, its
   * code optimised again): it only shortens the wall time while a core is free (docs/performance.md)
   */
  readonly helper: boolean;
  /** told how many lines the worker gave (0 when it took none or did not start) */
  readonly onHelperLines?: (count: number) => void;
}

/** A reader that can share its read snapshot with another reader (the store's HistoryReader). */
export type SharingReader = FleetReader & {
  exportSnapshot(): string | undefined;
  consistent<T>(fn: () => T): T;
};

/** A started worker: what it posted, and a promise settled once it is done or gone. */
interface Helper {
  readonly lines: Map<number, FleetLine>;
  readonly finished: Promise<void>;
}

/**
 * The fleet as of `opts.at`, as fleetStatus computes it, with a second thread where the engine
 * shares snapshots and there are two clusters or more; else fleetStatus itself.
 */
export async function fleetStatusInThreads(
  reader: SharingReader,
  opts: FleetOptions,
  where: FleetDatabase,
): Promise<Fleet> {
  let helper: Helper | undefined;
  let clusters: readonly string[] = [];
  const shared = new Int32Array(new SharedArrayBuffer(8));
  const mine = new Map<number, FleetLine>();
  const mineFailed = new Map<number, unknown>();
  const single = reader.consistent((): Fleet | undefined => {
    clusters = opts.clusters ?? reader.clusters();
    const snapshot =
      !where.helper || clusters.length < 2 || opts.events === false ? undefined : reader.exportSnapshot();
    if (snapshot === undefined) return fleetStatus(reader, { ...opts, clusters });
    helper = startHelper(where, snapshot, clusters, opts, shared.buffer as SharedArrayBuffer);
    for (;;) {
      const index = Atomics.add(shared, FLEET_NEXT, 1);
      const cluster = clusters[index];
      if (cluster === undefined) return undefined;
      try {
        mine.set(index, fleetLine(reader, cluster, opts));
      } catch (err) {
        // the helper takes no more; the clusters before this one decide which error is reported
        mineFailed.set(index, err);
        Atomics.store(shared, FLEET_STOP, 1);
        return undefined;
      }
    }
  });
  if (single !== undefined) return single;
  if (helper !== undefined) await helper.finished;
  const theirs = helper?.lines ?? new Map<number, FleetLine>();
  where.onHelperLines?.(theirs.size);
  // in order, as one thread goes: a cluster neither thread finished is computed here (its error thrown)
  const lines = reader.consistent(() =>
    clusters.map((cluster, i) => {
      const line = mine.get(i) ?? theirs.get(i);
      if (line !== undefined) return line;
      if (mineFailed.has(i)) throw mineFailed.get(i);
      return fleetLine(reader, cluster, opts);
    }),
  );
  return { at: opts.at, window: opts.window ?? DEFAULT_FLEET_WINDOW, lines: lines.sort(compareFleetLines) };
}

/** Starts the worker; undefined when it cannot start (this thread then takes every cluster). */
function startHelper(
  where: FleetDatabase,
  snapshot: string,
  clusters: readonly string[],
  opts: FleetOptions,
  shared: SharedArrayBuffer,
): Helper | undefined {
  const { clusters: _, ...rest } = opts;
  const data: FleetWorkerData = {
    database: where.database,
    ...(where.passwordFile === undefined ? {} : { passwordFile: where.passwordFile }),
    snapshot,
    clusters,
    opts: rest,
    shared,
  };
  let worker: Worker;
  try {
    worker = launchThread(
      {
        callerUrl: import.meta.url,
        bundled: ['../fleet-worker.js', './fleet-worker.js'],
        sourceFile: './fleet-worker.ts',
        missing: 'the fleet worker (fleet-worker.js) is missing from the installation',
      },
      { workerData: data },
    );
  } catch {
    return undefined;
  }
  const lines = new Map<number, FleetLine>();
  const finished = new Promise<void>((resolve) => {
    const end = (): void => {
      resolve();
      void worker.terminate();
    };
    // a cluster it failed on or never finished is computed again by the caller
    worker.on('message', (m: FleetWorkerMessage) => {
      if (m.kind === 'line') lines.set(m.index, m.line);
      else if (m.kind === 'done') end();
    });
    worker.on('error', end);
    worker.on('exit', end);
  });
  return { lines, finished };
}
