/**
 * The live timeline in a worker thread (alert-worker.ts), so that the collector's event loop
 * never runs a detector: one request at a time; steps asked meanwhile wait, one per cluster
 * (the latest horizon), so what waits never grows. The thread starts at the first step (the
 * database exists by then) and ends after `finish`. From the bundle the worker is its own entry
 * file; from source the TypeScript file runs through tsx's loader (as the rollup worker does).
 */
import { Worker } from 'node:worker_threads';
import { workerEntry } from '../threads/worker-entry.ts';
import type { AlertWorkerData, AlertWorkerReply, AlertWorkerRequest } from './alert-worker.ts';
import type { EngineHooks, LiveEngine } from './live-engine.ts';

/** The live timeline in a worker thread; see the module comment. */
export class AlertThread implements LiveEngine {
  readonly #data: AlertWorkerData;
  readonly #hooks: EngineHooks;
  readonly #pending = new Map<string, bigint>();
  /** every cluster a step was asked for */
  readonly #clusters = new Set<string>();
  #worker: Worker | undefined;
  #busy = false;
  #failed = false;
  #finished: Promise<void> | undefined;
  #onIdle: (() => void) | undefined;

  constructor(data: AlertWorkerData, hooks: EngineHooks) {
    this.#data = data;
    this.#hooks = hooks;
  }

  step(cluster: string, horizon: bigint): void {
    if (this.#failed || this.#finished !== undefined) return;
    this.#clusters.add(cluster);
    const before = this.#pending.get(cluster);
    if (before === undefined || horizon > before) this.#pending.set(cluster, horizon);
    this.#pump();
  }

  finish(timeoutMs: number): Promise<void> {
    this.#finished ??= this.#finish(timeoutMs);
    return this.#finished;
  }

  async #finish(timeoutMs: number): Promise<void> {
    const worker = this.#worker;
    if (worker === undefined) return;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    });
    const done = (async () => {
      // the steps asked before the end first: they are the last look's anyway
      this.#pending.clear();
      if (this.#busy) await new Promise<void>((resolve) => (this.#onIdle = resolve));
      if (this.#failed) return;
      worker.ref();
      await new Promise<void>((resolve) => {
        this.#onIdle = resolve;
        worker.postMessage({ type: 'finish', clusters: [...this.#clusters] } satisfies AlertWorkerRequest);
      });
    })();
    try {
      const finished = await Promise.race([done.then(() => true), deadline.then(() => false)]);
      if (!finished)
        this.#hooks.onError(
          `the last look at the recording did not end within ${timeoutMs} ms (the shutdown deadline): what it would have found is not sent`,
        );
    } finally {
      clearTimeout(timer);
      this.#worker = undefined;
      await worker.terminate();
    }
  }

  #pump(): void {
    if (this.#busy || this.#pending.size === 0) return;
    const [cluster, horizon] = this.#pending.entries().next().value as [string, bigint];
    this.#pending.delete(cluster);
    let worker: Worker;
    try {
      worker = this.#worker ?? this.#start();
    } catch (err) {
      this.#failed = true;
      this.#hooks.onError(err instanceof Error ? err.message : String(err));
      return;
    }
    this.#busy = true;
    // a step in progress keeps the process alive (a virtual-time recording may have nothing else to do)
    worker.ref();
    worker.postMessage({ type: 'step', cluster, horizon } satisfies AlertWorkerRequest);
  }

  #start(): Worker {
    const where = workerEntry(import.meta.url, ['../alert-worker.js', './alert-worker.js'], './alert-worker.ts');
    if (where === undefined) throw new Error('live alerts: the alert worker (alert-worker.js) was not found');
    const worker = new Worker(where.code, { eval: where.eval, execArgv: where.execArgv, workerData: this.#data });
    worker.unref();
    worker.on('message', (m: AlertWorkerReply) => {
      if (m.transitions.length > 0) this.#hooks.onTransitions(m.transitions);
      if (m.error !== undefined) this.#hooks.onError(m.error);
      this.#idle(worker);
    });
    worker.on('error', (err) => this.#lost(worker, `live alerts: the worker failed: ${err.message}`));
    worker.on('exit', (code) => {
      if (this.#finished === undefined) this.#lost(worker, `live alerts: the worker exited (code ${code})`);
    });
    this.#worker = worker;
    return worker;
  }

  #idle(worker: Worker): void {
    this.#busy = false;
    worker.unref();
    const waiting = this.#onIdle;
    this.#onIdle = undefined;
    if (waiting !== undefined) waiting();
    else this.#pump();
  }

  /** The worker is gone: no more steps (the recording goes on without live alerts). */
  #lost(worker: Worker, message: string): void {
    if (this.#worker !== worker) return;
    this.#worker = undefined;
    this.#failed = true;
    this.#hooks.onError(message);
    this.#idle(worker);
  }
}
