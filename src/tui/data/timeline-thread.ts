/** Starts the timeline worker: from the bundle its own entry file, from source the TypeScript file through tsx's loader. */
import { Worker } from 'node:worker_threads';
import { workerEntry } from '../../threads/worker-entry.ts';
import type { Timeline } from '../../report/timeline/timeline.ts';
import type { Thresholds } from '../../report/timeline/thresholds.ts';

/** A running timeline computation: its result, and a way to stop it. */
export interface TimelineTask {
  readonly result: Promise<Timeline>;
  /** terminates the worker; the result then rejects */
  stop(): void;
}

/**
 * Computes the timeline of `database` (a file, or a URL with its `passwordFile`) in a worker
 * thread; the result rejects when no worker can run it.
 */
export function timelineInWorker(
  database: string,
  cluster: string | undefined,
  passwordFile?: string | undefined,
  thresholds?: Thresholds,
): TimelineTask {
  const where = workerEntry(import.meta.url, ['../timeline-worker.js', './timeline-worker.js'], './timeline-worker.ts');
  if (where === undefined) return { result: Promise.reject(new Error('timeline worker not found')), stop: () => {} };
  const worker = new Worker(where.code, {
    workerData: { database, cluster, passwordFile, thresholds },
    eval: where.eval,
    execArgv: where.execArgv,
  });
  worker.unref();
  const result = new Promise<Timeline>((resolve, reject) => {
    worker.once('message', (m: { ok: true; timeline: Timeline } | { ok: false; message: string }) => {
      if (m.ok) resolve(m.timeline);
      else reject(new Error(m.message));
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`timeline worker exited with ${code}`)));
  });
  return { result, stop: () => void worker.terminate() };
}
