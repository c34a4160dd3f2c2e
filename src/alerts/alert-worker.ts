/**
 * Runs the live timeline off the collector's thread: entry point of a worker thread (see
 * alert-thread.ts for the caller). It opens the database read-only (its own connection), keeps
 * one LiveTimeline per cluster, and answers each step with the transitions it found (bigints
 * survive the structured clone). A failed step is said and the next one goes on. A database file
 * replaced under the collector (which then opens the new one) is opened again here too.
 */
import { statSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { createHistoryReader, openDatabase, type FlightrecDb, type HistoryReader } from '../db/index.ts';
import { isDbUrl } from '../db/engines/registry.ts';
import type { Thresholds } from '../report/timeline/thresholds.ts';
import type { LiveTransition } from './event-tracker.ts';
import { LiveTimeline, type LiveSource } from './live-timeline.ts';

/** What the worker is started with. */
export interface AlertWorkerData {
  /** a database file or a PostgreSQL URL */
  readonly database: string;
  readonly passwordFile?: string;
  readonly thresholds: Thresholds;
  /** when the collector started, ns (history before it is a quiet warm-up) */
  readonly startNs: bigint;
  readonly rebaseAfterNs?: bigint;
}

/** What the worker receives. */
export type AlertWorkerRequest =
  | { readonly type: 'step'; readonly id: number; readonly cluster: string; readonly horizon: bigint }
  | { readonly type: 'finish'; readonly id: number; readonly clusters: readonly string[] };

/** What the worker answers: after each request, its transitions (and a failure, if it had one). */
export type AlertWorkerReply =
  | {
      readonly type: 'step';
      readonly id: number;
      readonly transitions: readonly LiveTransition[];
      readonly error?: string;
    }
  | {
      readonly type: 'finished';
      readonly id: number;
      readonly transitions: readonly LiveTransition[];
      readonly error?: string;
    };

const data = workerData as AlertWorkerData;
const port = parentPort;
const timelines = new Map<string, LiveTimeline>();
let open: { db: FlightrecDb; reader: HistoryReader; file: string | undefined } | undefined;

/** The identity of the database file (a PostgreSQL database is the same while its URL is). */
function fileId(path: string): string | undefined {
  if (isDbUrl(path)) return path;
  try {
    const st = statSync(path);
    return `${st.dev}:${st.ino}`;
  } catch {
    return undefined;
  }
}

/** The reader of the database; with `check`, of the file there now (checked at the start of each step, not within one). */
function reader(check = false): HistoryReader {
  const file = check || open === undefined ? fileId(data.database) : open.file;
  if (open !== undefined && open.file !== file) {
    try {
      open.db.close();
    } catch {
      // a read-only connection loses nothing
    }
    open = undefined;
  }
  if (open === undefined) {
    const db = openDatabase(data.database, {
      readonly: true,
      ...(data.passwordFile === undefined ? {} : { passwordFile: data.passwordFile }),
    });
    // a page cache of its own next to the collector's: small, each new page is read about once
    db.engine.cacheKiB(8192);
    open = { db, reader: createHistoryReader(db), file };
  }
  return open.reader;
}

/** What the live timelines read: the reader of the file open now. */
const source: LiveSource = {
  polls: (q) => reader().polls(q),
  samples: (resource, q) => reader().samples(resource, q),
  connectionFrames: (q) => reader().connectionFrames(q),
  reconstructAnswer: (id) => reader().reconstructAnswer(id),
  consistent: (fn) => reader(true).consistent(fn),
};

function timeline(cluster: string): LiveTimeline {
  let t = timelines.get(cluster);
  if (t === undefined) {
    t = new LiveTimeline(source, {
      cluster,
      thresholds: data.thresholds,
      startNs: data.startNs,
      ...(data.rebaseAfterNs === undefined ? {} : { rebaseAfterNs: data.rebaseAfterNs }),
    });
    timelines.set(cluster, t);
  }
  return t;
}

function failure(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

port?.on('message', (m: AlertWorkerRequest) => {
  if (m.type === 'step') {
    try {
      const transitions = timeline(m.cluster).step(m.horizon);
      port.postMessage({ type: 'step', id: m.id, transitions } satisfies AlertWorkerReply);
    } catch (err) {
      port.postMessage({ type: 'step', id: m.id, transitions: [], error: failure(err) } satisfies AlertWorkerReply);
    }
    return;
  }
  const transitions: LiveTransition[] = [];
  let error: string | undefined;
  for (const cluster of m.clusters) {
    try {
      transitions.push(...timeline(cluster).finish());
    } catch (err) {
      error ??= failure(err);
    }
  }
  try {
    open?.db.close();
  } catch {
    // a read-only connection loses nothing
  }
  open = undefined;
  port.postMessage({
    type: 'finished',
    id: m.id,
    transitions,
    ...(error === undefined ? {} : { error }),
  } satisfies AlertWorkerReply);
  port.close();
});
