/** Starts the timeline worker: from the bundle its own entry file, from source the TypeScript file through tsx's loader. */
import { RequestChannel } from '../../threads/channel.ts';
import { launchThread } from '../../threads/launch.ts';
import type { Timeline } from '../../report/timeline/timeline.ts';
import type { Thresholds } from '../../report/timeline/thresholds.ts';
import type { TimelineReply, TimelineRequest } from './timeline-worker.ts';

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
  let channel: RequestChannel<TimelineRequest, TimelineReply>;
  try {
    const worker = launchThread({
      callerUrl: import.meta.url,
      bundled: ['../timeline-worker.js', './timeline-worker.js'],
      sourceFile: './timeline-worker.ts',
      missing: 'timeline worker not found',
    });
    channel = new RequestChannel(worker, {
      keepAlive: 'never',
      exited: (code) => `timeline worker exited with ${code}`,
    });
  } catch (err) {
    return { result: Promise.reject(err instanceof Error ? err : new Error(String(err))), stop: () => {} };
  }
  const result = channel
    .request((id) => ({ id, job: { database, cluster, passwordFile, thresholds } }))
    .then((m) => {
      if (m.ok) return m.timeline;
      throw new Error(m.message);
    })
    .finally(() => void channel.terminate());
  return { result, stop: () => void channel.terminate() };
}
