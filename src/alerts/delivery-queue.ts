/**
 * The delivery of one receiver, apart from everything else: a bounded queue of what waits
 * (keyed: what is queued again while it waits is sent once, in its latest state; past the bound
 * the oldest is dropped and counted), one request at a time, each attempt under the receiver's
 * timeout, failed attempts retried with exponential back-off up to a cap, then given up and
 * counted. Nothing here ever waits on the collector, nor the collector on it.
 */
import type { PostOutcome } from './http-post.ts';

/** Retries of one delivery. */
export interface RetryPolicy {
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

/** Counters of one receiver (alerts for Alertmanager, events for a webhook). */
export interface DeliveryCounts {
  sent: number;
  failed: number;
  dropped: number;
}

/** What a DeliveryQueue is built from. */
export interface DeliveryQueueOptions<T> {
  /** most items waiting */
  readonly capacity: number;
  /** most items per request */
  readonly batch: number;
  readonly retry: RetryPolicy;
  /** sends a batch (built at each attempt, so it says what is true then) */
  readonly send: (items: readonly T[], signal: AbortSignal) => Promise<PostOutcome>;
  /** a line for the log (a delivery given up, a receiver back) */
  readonly line: (text: string) => void;
  /** what lines call the receiver */
  readonly name: string;
  /** called after a batch was delivered */
  readonly delivered?: (items: readonly T[]) => void;
  /** waits `ms` or until aborted (default: a timer) */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

function timerSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Back-off before attempt `attempt` + 1: base × 2^(attempt − 1), at most the cap. */
export function backoffMs(policy: RetryPolicy, attempt: number): number {
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(30, attempt - 1));
}

/** One receiver's queue and sender; see the module comment. */
export class DeliveryQueue<T> {
  readonly counts: DeliveryCounts = { sent: 0, failed: 0, dropped: 0 };
  readonly #o: DeliveryQueueOptions<T>;
  readonly #waiting = new Map<string, T>();
  readonly #stop = new AbortController();
  #inFlight = 0;
  #running: Promise<void> | undefined;
  /** the receiver failed and has not delivered since (said once) */
  #failing = false;

  constructor(opts: DeliveryQueueOptions<T>) {
    this.#o = opts;
  }

  /** Items waiting or being sent. */
  get queued(): number {
    return this.#waiting.size + this.#inFlight;
  }

  /** Queues `item` under `key` (an item already waiting under it is replaced in its place); never waits. */
  push(key: string, item: T): void {
    if (this.#stop.signal.aborted) {
      this.counts.dropped++;
      return;
    }
    this.#waiting.set(key, item);
    while (this.#waiting.size > this.#o.capacity) {
      const oldest = this.#waiting.keys().next().value as string;
      this.#waiting.delete(oldest);
      this.counts.dropped++;
    }
    this.#kick();
  }

  #kick(): void {
    if (this.#running !== undefined || this.#stop.signal.aborted) return;
    this.#running = this.#run().finally(() => {
      this.#running = undefined;
      if (this.#waiting.size > 0) this.#kick();
    });
  }

  /** Settles when nothing waits (or `signal` aborts). */
  async idle(signal?: AbortSignal): Promise<void> {
    if (signal === undefined) {
      while (this.#running !== undefined) await this.#running;
      return;
    }
    // one listener for the whole wait, taken off at its end (the signal may outlive it)
    let onAbort = (): void => {};
    const aborted = new Promise<void>((r) => (onAbort = r));
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      while (this.#running !== undefined && !signal.aborted) await Promise.race([this.#running, aborted]);
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  /** Stops: the request in flight is cut, what waits is dropped (and counted). */
  async close(): Promise<void> {
    this.#stop.abort();
    await this.#running;
    this.counts.dropped += this.#waiting.size;
    this.#waiting.clear();
  }

  async #run(): Promise<void> {
    const stop = this.#stop.signal;
    while (this.#waiting.size > 0 && !stop.aborted) {
      const keys = [...this.#waiting.keys()].slice(0, this.#o.batch);
      const items = keys.map((k) => this.#waiting.get(k) as T);
      for (const k of keys) this.#waiting.delete(k);
      this.#inFlight = items.length;
      try {
        await this.#deliver(items, stop);
      } finally {
        this.#inFlight = 0;
      }
    }
  }

  async #deliver(items: readonly T[], stop: AbortSignal): Promise<void> {
    const { retry, name } = this.#o;
    const sleep = this.#o.sleep ?? timerSleep;
    let last = '';
    for (let attempt = 1; attempt <= retry.maxAttempts; attempt++) {
      if (stop.aborted) {
        this.counts.dropped += items.length;
        return;
      }
      const got = await this.#o.send(items, stop);
      if (got.ok) {
        this.counts.sent += items.length;
        if (this.#failing) this.#o.line(`alerts: ${name} accepts deliveries again`);
        this.#failing = false;
        this.#o.delivered?.(items);
        return;
      }
      last = got.message;
      if (!got.retry || attempt === retry.maxAttempts) break;
      await sleep(backoffMs(retry, attempt), stop);
    }
    if (stop.aborted) {
      this.counts.dropped += items.length;
      return;
    }
    this.counts.failed += items.length;
    if (!this.#failing)
      this.#o.line(
        `alerts: ${name}: delivery failed (${last}); ${items.length} ${items.length === 1 ? 'alert' : 'alerts'} given up, later ones are still tried`,
      );
    this.#failing = true;
  }
}
