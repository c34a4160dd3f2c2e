/**
 * Where the live timeline runs: the LiveEngine the alerts are fed by. A step is asked for each
 * stored round and never waited for (steps of one cluster asked while one runs are merged into
 * the latest); transitions come back through the hooks. A collector's engine is the worker
 * thread of alert-thread.ts.
 */
import type { LiveTransition } from './event-tracker.ts';

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
