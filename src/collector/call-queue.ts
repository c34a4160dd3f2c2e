/**
 * One call at a time per cluster: the server answers 429 to overlapping ListKafkaConnections
 * calls, so every call of every schedule of a cluster goes through one FIFO queue.
 */

import { onAbort } from './abort-waiters.ts';

/** A FIFO mutex: `run` executes its task when every earlier task has settled. */
export interface CallQueue {
  /** Runs `task` alone; rejects with the signal's reason if it aborts while still waiting. */
  run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** Tasks waiting, not counting the running one. */
  readonly waiting: number;
  /** True while a task runs. */
  readonly busy: boolean;
}

/** Thrown by `run` when the caller's signal aborts before its turn came. */
export class QueueAbortedError extends Error {
  override readonly name = 'QueueAbortedError';
}

interface Waiter {
  start: () => void;
  cancelled: boolean;
}

/** Creates an empty call queue. */
export function createCallQueue(): CallQueue {
  const waiters: Waiter[] = [];
  let busy = false;

  const next = (): void => {
    while (waiters.length > 0) {
      const w = waiters.shift()!;
      if (w.cancelled) continue;
      busy = true;
      w.start();
      return;
    }
    busy = false;
  };

  return {
    get waiting() {
      return waiters.filter((w) => !w.cancelled).length;
    },
    get busy() {
      return busy;
    },
    run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
      if (signal?.aborted) return Promise.reject(new QueueAbortedError('aborted before the call was queued'));
      return new Promise<T>((resolve, reject) => {
        const waiter: Waiter = {
          cancelled: false,
          start: () => {
            stopWaiting();
            let p: Promise<T>;
            try {
              p = task();
            } catch (err) {
              p = Promise.reject(err);
            }
            p.then(resolve, reject).finally(next);
          },
        };
        // one listener on the signal however many calls wait (abort-waiters.ts)
        const stopWaiting =
          signal === undefined
            ? () => undefined
            : onAbort(signal, () => {
                waiter.cancelled = true;
                reject(new QueueAbortedError('aborted while waiting for the previous call to finish'));
              });
        waiters.push(waiter);
        if (!busy) next();
      });
    },
  };
}
