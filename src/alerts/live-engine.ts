/**
 * Where the live timeline runs: the LiveEngine the alerts are fed by. A step is asked for each
 * stored round and never waited for (steps of one cluster asked while one runs are merged into
 * the latest); transitions come back through `onTransitions`. The engine of a collector is the
 * worker thread (alert-thread.ts); the one here runs on the caller's thread, for tests and for
 * sources held in memory.
 */
import type { LiveTransition } from './event-tracker.ts';
import { LiveTimeline, type LiveSource, type LiveTimelineOptions } from './live-timeline.ts';

/** What the live alerts are fed by. */
export interface LiveEngine {
  /** Reads the cluster's polls stored before `horizon` (ns) soon; never waits. */
  step(cluster: string, horizon: bigint): void;
  /** Reads every poll stored, takes the last look; settles when done or after `timeoutMs`. */
  finish(timeoutMs: number): Promise<void>;
}

/** What an engine reports to. */
export interface EngineHooks {
  readonly onTransitions: (transitions: readonly LiveTransition[]) => void;
  /** a step failed (damaged history, a lost connection): said, and the next step goes on */
  readonly onError: (message: string) => void;
}

/** The live timelines on this thread, one step at a time after the current task. */
export class InProcessEngine implements LiveEngine {
  readonly #source: LiveSource;
  readonly #opts: Omit<LiveTimelineOptions, 'cluster'>;
  readonly #hooks: EngineHooks;
  readonly #timelines = new Map<string, LiveTimeline>();
  #chain: Promise<void> = Promise.resolve();

  constructor(source: LiveSource, opts: Omit<LiveTimelineOptions, 'cluster'>, hooks: EngineHooks) {
    this.#source = source;
    this.#opts = opts;
    this.#hooks = hooks;
  }

  step(cluster: string, horizon: bigint): void {
    this.#then(() => this.#timeline(cluster).step(horizon));
  }

  async finish(): Promise<void> {
    for (const t of this.#timelines.values()) this.#then(() => t.finish());
    await this.#chain;
  }

  #then(fn: () => readonly LiveTransition[]): void {
    this.#chain = this.#chain.then(() => {
      try {
        const got = fn();
        if (got.length > 0) this.#hooks.onTransitions(got);
      } catch (err) {
        this.#hooks.onError(err instanceof Error ? err.message : String(err));
      }
    });
  }

  #timeline(cluster: string): LiveTimeline {
    let t = this.#timelines.get(cluster);
    if (t === undefined) {
      t = new LiveTimeline(this.#source, { ...this.#opts, cluster });
      this.#timelines.set(cluster, t);
    }
    return t;
  }
}
