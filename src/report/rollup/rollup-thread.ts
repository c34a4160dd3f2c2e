/**
 * Runs rollUp in a worker thread (rollup-worker.ts), so that summarising raw history never holds
 * up the collector's event loop: one job at a time, the thread started at the first job and reused,
 * stopped by `close()`. From the bundle the worker is its own entry file; from source the
 * TypeScript file runs through tsx's loader (as the TUI's timeline worker does).
 */
import { Worker } from 'node:worker_threads';
import { workerEntry } from '../../threads/worker-entry.ts';
import type { Thresholds } from '../timeline/thresholds.ts';
import type { RollUpWorkerReply, RollUpWorkerRequest } from './rollup-worker.ts';

/** What a RollUpThread is built from. */
export interface RollUpThreadOptions {
  /** the database the worker opens (its own connection): a file or a PostgreSQL URL */
  readonly database: string;
  /** PostgreSQL: the file holding the password, when the URL has none */
  readonly passwordFile?: string;
  readonly thresholds: Thresholds;
  /** how long `close()` lets a job reach its next bucket before the thread is terminated (default 500 ms) */
  readonly stopGraceMs?: number;
  /** told of the damaged raw history a job left out of the rollups (RollUpOptions.onDamage) */
  readonly onDamage?: (message: string) => void;
}

interface Pending {
  readonly id: number;
  readonly resolve: () => void;
  readonly reject: (err: Error) => void;
}

/** rollUp(cluster, untilNs) in a worker thread; a failure (or a stop) rejects with an Error naming it. */
export class RollUpThread {
  readonly #o: RollUpThreadOptions;
  #worker: Worker | undefined;
  #job: Pending | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #nextId = 1;
  #closed = false;
  #closing: Promise<void> | undefined;

  constructor(opts: RollUpThreadOptions) {
    this.#o = opts;
  }

  /** Summarises `cluster`'s raw history up to `untilNs` in the worker; jobs run one after the other. */
  run(cluster: string, untilNs: bigint): Promise<void> {
    const p = this.#queue.then(() => this.#runNow(cluster, untilNs));
    this.#queue = p.catch(() => undefined);
    return p;
  }

  #runNow(cluster: string, untilNs: bigint): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('rollups stopped (the collector is shutting down)'));
    let worker: Worker;
    try {
      worker = this.#worker ?? this.#start();
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    const id = this.#nextId++;
    const done = new Promise<void>((resolve, reject) => {
      this.#job = { id, resolve, reject };
    });
    const job: RollUpWorkerRequest = {
      type: 'run',
      id,
      database: this.#o.database,
      ...(this.#o.passwordFile === undefined ? {} : { passwordFile: this.#o.passwordFile }),
      cluster,
      untilNs,
      thresholds: this.#o.thresholds,
    };
    // a job keeps the process alive (a virtual-time recording awaits it with nothing else to do)
    worker.ref();
    worker.postMessage(job);
    return done.finally(() => {
      if (this.#job?.id === id) this.#job = undefined;
      if (this.#worker === worker) worker.unref();
    });
  }

  #start(): Worker {
    const where = workerEntry(import.meta.url, ['../rollup-worker.js', './rollup-worker.js'], './rollup-worker.ts');
    if (where === undefined) throw new Error('rollups: the rollup worker (rollup-worker.js) was not found');
    const worker = new Worker(where.code, { eval: where.eval, execArgv: where.execArgv });
    worker.unref();
    worker.on('message', (m: RollUpWorkerReply) => {
      const job = this.#job;
      if (job === undefined || job.id !== m.id) return;
      if (m.ok) {
        for (const message of m.damaged ?? []) this.#o.onDamage?.(message);
        job.resolve();
      } else job.reject(new Error(`rollups: ${m.message}`));
    });
    worker.on('error', (err) => this.#lost(worker, `rollups: the worker failed: ${err.message}`));
    worker.on('exit', (code) => this.#lost(worker, `rollups: the worker exited (code ${code})`));
    this.#worker = worker;
    return worker;
  }

  /** The worker is gone: the job in progress fails, the next one starts a new worker. */
  #lost(worker: Worker, message: string): void {
    if (this.#worker !== worker) return;
    this.#worker = undefined;
    this.#job?.reject(new Error(message));
  }

  /**
   * Stops: a job in progress rejects at once, the worker closes its connection at its next bucket
   * (transactions are per batch of buckets, and rollup_progress lets the next run resume) and
   * ends; past the grace period it is terminated (a transaction cut short rolls back).
   * Settles when the thread has ended (every call: the first one stops it).
   */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    this.#closed = true;
    const worker = this.#worker;
    this.#worker = undefined;
    this.#job?.reject(new Error('rollups stopped (the collector is shutting down)'));
    if (worker === undefined) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage({ type: 'stop' } satisfies RollUpWorkerRequest);
    const timer = setTimeout(() => void worker.terminate(), this.#o.stopGraceMs ?? 500);
    try {
      await exited;
    } finally {
      clearTimeout(timer);
    }
  }
}
