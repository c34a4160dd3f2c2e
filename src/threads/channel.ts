/**
 * A typed request channel to a worker thread: each request gets an id, its reply (which carries
 * the same id) settles its promise, and a thread that fails or ends rejects every request still
 * waiting and is reported once. Replies to ids no one waits for (a job given up) are dropped.
 * Used by every asynchronous thread (store, rollup, timeline, alerts); the PostgreSQL bridge
 * waits on Atomics instead and only shares the launcher (launch.ts).
 */
import type { TransferListItem, Worker } from 'node:worker_threads';

/** Messages to and from a thread carry the id of the request they belong to. */
export interface Identified {
  readonly id: number;
}

/** A request rejected because the thread failed or ended (the message says which). */
export class ThreadLostError extends Error {
  override readonly name = 'ThreadLostError';
}

/**
 * When the thread keeps the process alive: `always` (as a worker does by default), `busy` only
 * while a request waits for its reply (a job in progress; an idle thread lets the process end),
 * `never`.
 */
export type KeepAlive = 'always' | 'busy' | 'never';

/** How a channel tells of its thread. */
export interface ChannelOptions {
  readonly keepAlive?: KeepAlive;
  /** the thread failed or ended without close() or terminate(): told once, with how; waiting requests reject with the same message */
  readonly onLost?: (message: string, how: 'failed' | 'exited') => void;
  /** the message of a failure (default: the error's) */
  readonly failed?: (err: Error) => string;
  /** the message of an exit (default: `the worker exited (code N)`) */
  readonly exited?: (code: number) => string;
}

interface Waiting<Reply> {
  readonly resolve: (reply: Reply) => void;
  readonly reject: (err: Error) => void;
}

/** Requests of type Req answered by replies of type Reply, over one worker thread. */
export class RequestChannel<Req extends Identified, Reply extends Identified> {
  readonly #worker: Worker;
  readonly #opts: ChannelOptions;
  readonly #waiting = new Map<number, Waiting<Reply>>();
  #nextId = 1;
  #lost: string | undefined;
  #ending = false;
  /** settles when the thread has ended */
  readonly exited: Promise<void>;

  constructor(worker: Worker, opts: ChannelOptions = {}) {
    this.#worker = worker;
    this.#opts = opts;
    if (opts.keepAlive !== undefined && opts.keepAlive !== 'always') worker.unref();
    this.exited = new Promise((resolve) => worker.once('exit', () => resolve()));
    worker.on('message', (m: Reply) => this.#reply(m));
    worker.on('error', (err) => this.#gone(opts.failed?.(err) ?? err.message, 'failed'));
    worker.on('exit', (code) => this.#gone(opts.exited?.(code) ?? `the worker exited (code ${code})`, 'exited'));
  }

  /** Why the thread is gone, once it failed or ended on its own. */
  get lost(): string | undefined {
    return this.#lost;
  }

  /** How many requests wait for their reply. */
  get waiting(): number {
    return this.#waiting.size;
  }

  /**
   * Posts the request `make(id)`; settles with its reply. Rejects with a ThreadLostError when the
   * thread is gone or goes before it answers, and with postMessage's error when the request
   * cannot be copied to it (nothing is posted then).
   */
  request(make: (id: number) => Req, transfer?: readonly TransferListItem[]): Promise<Reply> {
    if (this.#lost !== undefined || this.#ending)
      return Promise.reject(new ThreadLostError(this.#lost ?? 'the thread was stopped'));
    const id = this.#nextId++;
    return new Promise<Reply>((resolve, reject) => {
      try {
        this.#worker.postMessage(make(id), transfer === undefined ? undefined : [...transfer]);
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
        return;
      }
      this.#waiting.set(id, { resolve, reject });
      if (this.#waiting.size === 1 && this.#opts.keepAlive === 'busy') this.#worker.ref();
    });
  }

  /** Posts a message that has no reply (a stop); ignored once the thread is gone. */
  post(message: unknown): void {
    if (this.#lost === undefined) this.#worker.postMessage(message);
  }

  /**
   * Ends the thread: posts `message` (when given) and lets it end by itself within `graceMs`,
   * then terminates it. Requests still waiting reject; onLost is not told. Settles once it ended.
   */
  async close(message?: unknown, graceMs = 0): Promise<void> {
    this.#end('the thread was stopped');
    if (message !== undefined && this.#lost === undefined) this.#worker.postMessage(message);
    const timer = setTimeout(() => void this.#worker.terminate(), graceMs);
    try {
      await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Terminates the thread at once (as close() with no grace and no message). */
  terminate(): Promise<void> {
    this.#end('the thread was stopped');
    return this.#worker.terminate().then(() => undefined);
  }

  #reply(m: Reply): void {
    const waiting = this.#waiting.get(m.id);
    if (waiting === undefined) return;
    this.#waiting.delete(m.id);
    if (this.#waiting.size === 0 && this.#opts.keepAlive === 'busy') this.#worker.unref();
    waiting.resolve(m);
  }

  #end(message: string): void {
    this.#ending = true;
    this.#rejectAll(message);
  }

  #gone(message: string, how: 'failed' | 'exited'): void {
    if (this.#lost !== undefined) return;
    this.#lost = message;
    const told = this.#ending;
    this.#rejectAll(message);
    if (!told) this.#opts.onLost?.(message, how);
  }

  #rejectAll(message: string): void {
    const waiting = [...this.#waiting.values()];
    this.#waiting.clear();
    for (const w of waiting) w.reject(new ThreadLostError(message));
  }
}
