/**
 * Computes the timeline off the UI thread: opens the database read-only in a worker thread,
 * runs src/report's buildTimeline, and posts the events and series back (bigints survive the
 * structured clone). Entry point of a worker; see timeline-thread.ts for the caller.
 */
import { parentPort } from 'node:worker_threads';
import { createHistoryReader, openDatabase } from '../../db/index.ts';
import { buildTimeline, type Timeline } from '../../report/timeline/timeline.ts';
import type { Thresholds } from '../../report/timeline/thresholds.ts';

/** What the worker computes. */
export interface TimelineJob {
  readonly database: string;
  readonly cluster?: string;
  /** the password file of a PostgreSQL URL */
  readonly passwordFile?: string;
  /** the thresholds in force (`browse --config`); default: the defaults */
  readonly thresholds?: Thresholds;
}

/** The one request the worker answers. */
export interface TimelineRequest {
  readonly id: number;
  readonly job: TimelineJob;
}

/** Its reply: the timeline, or why there is none. */
export type TimelineReply =
  | { readonly id: number; readonly ok: true; readonly timeline: Timeline }
  | { readonly id: number; readonly ok: false; readonly message: string };

parentPort?.once('message', ({ id, job }: TimelineRequest) => parentPort?.postMessage(answer(id, job)));

/** The timeline of the job's database, or the failure. */
function answer(id: number, job: TimelineJob): TimelineReply {
  try {
    const db = openDatabase(job.database, {
      readonly: true,
      ...(job.passwordFile === undefined ? {} : { passwordFile: job.passwordFile }),
    });
    try {
      const timeline = buildTimeline(createHistoryReader(db), {
        ...(job.cluster === undefined ? {} : { cluster: job.cluster }),
        ...(job.thresholds === undefined ? {} : { thresholds: job.thresholds }),
      });
      return { id, ok: true, timeline };
    } finally {
      db.close();
    }
  } catch (err) {
    return { id, ok: false, message: err instanceof Error ? err.message : String(err) };
  }
}
