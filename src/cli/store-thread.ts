/**
 * The collector's write queue in a thread of its own (store-worker.ts): records are posted to
 * it and written there, through its own connection, so that the collector's event loop goes on
 * with the calls and the decoding of other clusters while PostgreSQL answers. Every request is
 * answered in order with the queue's counters and lines, which land in the collector's stats and
 * output as if the queue ran here. A thread that dies stops the recording (a fatal store error).
 */
import { RequestChannel, ThreadLostError } from '../threads/channel.ts';
import { launchThread } from '../threads/launch.ts';
import { StoreLostError, type PollRecord } from '../db/poll-record.ts';
import { jsonNumberPaths } from '../collector/record-transfer.ts';
import type { RecordQueue, RecordQueueHooks } from '../collector/index.ts';
import type { StoreWorkerInit, StoreWorkerReply, StoreWorkerRequest } from './store-worker.ts';

/** A RecordQueue whose writes happen in the store thread; close() ends the thread. */
export class StoreThread implements RecordQueue {
  readonly #hooks: RecordQueueHooks;
  readonly #channel: RequestChannel<StoreWorkerRequest, StoreWorkerReply>;
  /** records the thread holds unwritten, as of its last answer */
  #held = 0;
  /** records never written for want of a thread: posted when it died, or handed over after, or not copyable */
  #lost = 0;
  /** records posted and not answered yet, and their answers' bytes */
  #inFlight = 0;
  #inFlightBytes = 0;
  /** the budget of those bytes: past it, rounds wait before their next call (behind) */
  readonly #maxInFlightBytes: number;
  /** settles when the bytes in flight are back within the budget */
  #caughtUp: { promise: Promise<void>; resolve: () => void } | undefined;
  #fatal: StoreLostError | undefined;
  /** the thread ended or failed: nothing can be posted to it */
  #dead = false;
  #closed: Promise<void> | undefined;

  constructor(init: StoreWorkerInit, hooks: RecordQueueHooks) {
    this.#hooks = hooks;
    this.#maxInFlightBytes = init.maxHeldBytes;
    const worker = launchThread(
      {
        callerUrl: import.meta.url,
        bundled: ['../store-worker.js', './store-worker.js'],
        sourceFile: './store-worker.ts',
        missing: 'flightrec: the store worker (dist/store-worker.js) is missing from the installation',
      },
      { workerData: init },
    );
    this.#channel = new RequestChannel(worker, {
      failed: (err) => `the store thread failed: ${err.message}`,
      exited: (code) => `the store thread ended (code ${code})`,
      onLost: (message) => this.#gone(message),
    });
  }

  get fatal(): StoreLostError | undefined {
    return this.#fatal;
  }

  get unwritten(): number {
    return this.#held + this.#lost + this.#inFlight;
  }

  push(record: PollRecord): Promise<void> {
    // a count that is not a number must not leave the budget stuck past its limit
    const bytes = Number.isFinite(record.outcome.bytes) ? Math.max(0, record.outcome.bytes) : 0;
    this.#inFlight++;
    this.#inFlightBytes += bytes;
    return this.#request('push', (id) => ({ type: 'push', id, record, numbers: jsonNumberPaths(record) })).finally(
      () => {
        this.#inFlight--;
        this.#inFlightBytes -= bytes;
        if (this.#inFlightBytes <= this.#maxInFlightBytes && this.#caughtUp !== undefined) {
          this.#caughtUp.resolve();
          this.#caughtUp = undefined;
        }
      },
    );
  }

  /** Past the budget of bytes handed over and not written (the max held bytes), a promise that settles once back within it. */
  behind(): Promise<void> | undefined {
    if (this.#inFlightBytes <= this.#maxInFlightBytes || this.#dead) return undefined;
    if (this.#caughtUp === undefined) {
      let resolve: () => void = () => undefined;
      const promise = new Promise<void>((r) => {
        resolve = r;
      });
      this.#caughtUp = { promise, resolve };
    }
    return this.#caughtUp.promise;
  }

  flush(): Promise<void> {
    return this.#request('flush', (id) => ({ type: 'flush', id }));
  }

  checkFile(): boolean {
    // a PostgreSQL database has no file to lose; the thread reports a lost store itself
    return this.#fatal === undefined;
  }

  /** Closes the thread's connection and ends it (every call: the first one does it). */
  close(): Promise<void> {
    this.#closed ??= this.#request('close', (id) => ({ type: 'close', id })).then(async () => {
      this.#dead = true;
      await this.#channel.terminate();
    });
    return this.#closed;
  }

  /** Posts one request; settles (never rejects) when it is answered or the thread is gone. */
  #request(type: StoreWorkerRequest['type'], make: (id: number) => StoreWorkerRequest): Promise<void> {
    if (this.#dead) {
      // the thread is gone: a record handed over now is never written
      if (type === 'push') this.#lost++;
      return Promise.resolve();
    }
    return this.#channel.request(make).then(
      (m) => this.#reply(m),
      (err: unknown) => {
        // the thread went before answering: #gone counted what was in flight
        if (err instanceof ThreadLostError) return;
        // a record that cannot be copied to the thread (a bug to see): said, counted, the others go on
        if (type === 'push') this.#lost++;
        this.#hooks.line(
          `error: a poll could not be handed to the store thread and is not written: ${err instanceof Error ? err.message : String(err)}`,
        );
      },
    );
  }

  #reply(m: StoreWorkerReply): void {
    Object.assign(this.#hooks.counters, m.counters);
    this.#held = m.unwritten;
    for (const line of m.lines) this.#hooks.line(line);
    if (m.fatal !== undefined) this.#stop(m.fatal, false);
  }

  /** The thread is gone: what was posted to it and not answered is not written. */
  #gone(message: string): void {
    if (this.#dead) return;
    this.#dead = true;
    if (this.#closed === undefined) {
      this.#lost += this.#inFlight;
      this.#stop(message);
    }
  }

  #stop(message: string, say = true): void {
    if (this.#fatal !== undefined) return;
    this.#fatal = new StoreLostError(message);
    if (say) this.#hooks.line(`error: ${message}; recording stopped`);
    this.#hooks.onFatal(this.#fatal);
  }
}
