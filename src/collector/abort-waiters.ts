/**
 * Many waiters on one long-lived AbortSignal with a single listener on it. The collector's stop
 * and abort signals live as long as the collector, and at a schedule's second every cluster has
 * waiters on them at once: each schedule's jitter sleep, each call waiting in a cluster's queue,
 * each retry back-off, each call in flight. One `addEventListener` per waiter made Node warn
 * (`MaxListenersExceededWarning: 11 abort listeners`) with two clusters on 10 s schedules, and
 * would grow with a fleet. Here each waiter joins a set that the signal's one listener runs, and
 * leaves it when done, so a signal holds one listener whatever the number of waiters.
 */

const waiting = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Runs `fn` once when `signal` aborts (at once when it already has); returns the function that
 * stops waiting, which the caller calls when it no longer needs `fn` (it is safe to call twice).
 */
export function onAbort(signal: AbortSignal, fn: () => void): () => void {
  if (signal.aborted) {
    fn();
    return () => undefined;
  }
  let set = waiting.get(signal);
  if (set === undefined) {
    const waiters = new Set<() => void>();
    set = waiters;
    waiting.set(signal, waiters);
    signal.addEventListener(
      'abort',
      () => {
        waiting.delete(signal);
        for (const w of [...waiters]) w();
        waiters.clear();
      },
      { once: true },
    );
  }
  const waiters = set;
  // a function of its own: the same `fn` may wait twice
  const entry = (): void => {
    waiters.delete(entry);
    fn();
  };
  waiters.add(entry);
  return () => void waiters.delete(entry);
}

/** How many waiters `signal` has (for tests and diagnostics). */
export function waitersOf(signal: AbortSignal): number {
  return waiting.get(signal)?.size ?? 0;
}
