/**
 * Computes the timeline off the UI thread: opens the database read-only in a worker thread,
 * runs src/report's buildTimeline, and posts the events and series back (bigints survive the
 * structured clone). Entry point of a worker; see timeline-thread.ts for the caller.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createHistoryReader, openDatabase } from '../../db/index.ts';
import { buildTimeline } from '../../report/timeline/timeline.ts';
import type { Thresholds } from '../../report/timeline/thresholds.ts';

/** What the worker is started with. */
export interface TimelineJob {
  readonly database: string;
  readonly cluster?: string;
  /** the password file of a PostgreSQL URL */
  readonly passwordFile?: string;
  /** the thresholds in force (`browse --config`); default: the defaults */
  readonly thresholds?: Thresholds;
}

const job = workerData as TimelineJob;
const db = openDatabase(job.database, {
  readonly: true,
  ...(job.passwordFile === undefined ? {} : { passwordFile: job.passwordFile }),
});
try {
  const timeline = buildTimeline(createHistoryReader(db), {
    ...(job.cluster === undefined ? {} : { cluster: job.cluster }),
    ...(job.thresholds === undefined ? {} : { thresholds: job.thresholds }),
  });
  parentPort?.postMessage({ ok: true, timeline });
} catch (err) {
  parentPort?.postMessage({ ok: false, message: err instanceof Error ? err.message : String(err) });
} finally {
  db.close();
}
