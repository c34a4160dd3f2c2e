/**
 * The live timeline in a worker thread (alert-worker.ts), so that the collector's event loop
 * never runs a detector: one request at a time; steps asked meanwhile wait, one per cluster
 * (the latest horizon), so what waits never grows. The thread starts at the first step (the
 * database exists by then) and ends after `finish`. From the bundle the worker is its own entry
 * file; from source the TypeScript file runs through tsx's loader (as the rollup worker does).
 */
import { RequestChannel } from '../threads/channel.ts';
import { launchThread } from '../threads/launch.ts';
import type { AlertWorkerData, AlertWorkerReply, AlertWorkerRequest } from './alert-worker.ts';
import type { EngineHooks, LiveEngine } from './live-engine.ts';

/** The channel to the alert worker. */
type AlertChannel = RequestChannel<AlertWorkerRequest, AlertWorkerReply>;

/** The live timeline in a worker thread; see the module comment. */
export class AlertThread implements LiveEngine {
  readonly #data: AlertWorkerData;
  readonly #hooks: EngineHooks;
  readonly #pending = new Map<string, bigint>();
  /** every cluster a step was asked for */
  readonly #clusters = new Set<string>();
  #channel: AlertChannel | undefined;
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
    const channel = this.#channel;
    if (channel === undefined) return;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    });
    const done = (async () => {
      // the steps asked before the end first: they are the last look's anyway
      this.#pending.clear();
      if (this.#busy) await new Promise<void>((resolve) => (this.#onIdle = resolve));
      if (this.#failed) return;
      // the last look keeps the process alive while it runs (keepAlive 'busy')
      const m = await channel.request((id) => ({ type: 'finish', id, clusters: [...this.#clusters] }));
      this.#told(m);
    })().catch(() => undefined);
    try {
      const finished = await Promise.race([done.then(() => true), deadline.then(() => false)]);
      if (!finished)
        this.#hooks.onError(
          `the last look at the recording did not end within ${timeoutMs} ms (the shutdown deadline): what it would have found is not sent`,
        );
    } finally {
      clearTimeout(timer);
      this.#channel = undefined;
      await channel.terminate();
    }
  }

  #pump(): void {
    if (this.#busy || this.#pending.size === 0) return;
    const [cluster, horizon] = this.#pending.entries().next().value as [string, bigint];
    this.#pending.delete(cluster);
    let channel: AlertChannel;
    try {
      channel = this.#channel ?? this.#start();
    } catch (err) {
      this.#failed = true;
      this.#hooks.onError(err instanceof Error ? err.message : String(err));
      return;
    }
    this.#busy = true;
    // a step in progress keeps the process alive (a virtual-time recording may have nothing else to do)
    channel
      .request((id) => ({ type: 'step', id, cluster, horizon }))
      .then(
        (m) => {
          this.#told(m);
          this.#idle();
        },
        // the thread is gone (onLost said so) or the step could not be posted
        () => this.#idle(),
      );
  }

  #start(): AlertChannel {
    const worker = launchThread(
      {
        callerUrl: import.meta.url,
        bundled: ['../alert-worker.js', './alert-worker.js'],
        sourceFile: './alert-worker.ts',
        missing: 'live alerts: the alert worker (alert-worker.js) was not found',
      },
      { workerData: this.#data },
    );
    const channel: AlertChannel = new RequestChannel(worker, {
      keepAlive: 'busy',
      failed: (err) => `live alerts: the worker failed: ${err.message}`,
      exited: (code) => `live alerts: the worker exited (code ${code})`,
      // the worker is gone: no more steps (the recording goes on without live alerts)
      onLost: (message, how) => {
        if (this.#channel !== channel || (how === 'exited' && this.#finished !== undefined)) return;
        this.#channel = undefined;
        this.#failed = true;
        this.#hooks.onError(message);
      },
    });
    this.#channel = channel;
    return channel;
  }

  #told(m: AlertWorkerReply): void {
    if (m.transitions.length > 0) this.#hooks.onTransitions(m.transitions);
    if (m.error !== undefined) this.#hooks.onError(m.error);
  }

  #idle(): void {
    this.#busy = false;
    const waiting = this.#onIdle;
    this.#onIdle = undefined;
    if (waiting !== undefined) waiting();
    else this.#pump();
  }
}
