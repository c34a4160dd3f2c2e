/**
 * Thin scheduling around `runRound`: node-cron tasks (six-field expressions, seconds first)
 * with a small random jitter and no overlap of a schedule with itself, plus a virtual-time
 * driver for recording the simulated cluster in accelerated time.
 */
import { createTask as cronCreateTask, type Logger, type ScheduledTask, type TaskOptions } from 'node-cron';
import type { OperationName } from '../api/schema/operations.ts';
import type { Sleep } from './retry.ts';

/** One schedule: an operation of a cluster and its cron expression. */
export interface Job {
  readonly cluster: string;
  readonly op: OperationName;
  readonly expression: string;
}

/** The order in which rounds due at the same instant run (upgrade first: it names the brokers the fan-out needs). */
export const OPERATION_ORDER: readonly OperationName[] = [
  'GetUpgradeStatus',
  'ListKafkaConnections',
  'GetShadowLink',
  'ListShadowTopics',
  'GetShadowTopic',
  'GetIcebergStatus',
];

/** What the scheduler needs around the rounds. */
export interface SchedulerDeps {
  /** runs one round; its promise settles when the round is over */
  readonly fire: (job: Job) => Promise<unknown>;
  /** most random delay before a round, in ms */
  readonly jitterMs: number;
  readonly random: () => number;
  readonly sleep: Sleep;
  /** aborted when the collector stops: pending jitter waits end and no round starts */
  readonly stopping: AbortSignal;
  /** a firing skipped because the previous round of the same schedule still runs */
  readonly onSkip?: (job: Job) => void;
  /** scheduling problems, in the collector's own words (node-cron's text is never passed on) */
  readonly log?: (line: string) => void;
  /** the task factory (node-cron's createTask; tests inject a fake) */
  readonly createTask?: (
    expression: string,
    fn: () => Promise<void>,
    options: TaskOptions,
  ) => Pick<ScheduledTask, 'start' | 'stop' | 'destroy'>;
}

/** Running cron schedules. */
export interface Scheduler {
  /** Starts every task. */
  start(): void;
  /** Stops every task (no new firing); rounds in flight go on. */
  stop(): Promise<void>;
  /** Resolves when no round started by this scheduler is in flight. */
  drain(): Promise<void>;
  /** Rounds in flight. */
  readonly inFlight: number;
}

/** Creates one cron task per job; a firing while the job's previous round runs is skipped. */
export function createScheduler(jobs: readonly Job[], deps: SchedulerDeps): Scheduler {
  const inflight = new Set<Promise<void>>();
  const create = deps.createTask ?? cronCreateTask;
  const tasks = jobs.map((job) => {
    // node-cron's own messages ("task still running, new execution blocked ...") never reach the
    // user: overlaps are skipped and reported by onSkip below; anything else is said our way
    const logger: Logger = {
      info: () => {},
      debug: () => {},
      warn: () => {},
      error: () => deps.log?.(`${job.cluster} ${job.op}: the schedule failed to start a round at this firing`),
    };
    let busy = false;
    const fn = (): Promise<void> => {
      if (deps.stopping.aborted) return Promise.resolve();
      if (busy) {
        deps.onSkip?.(job);
        return Promise.resolve();
      }
      busy = true;
      const p = (async () => {
        try {
          const delay = deps.jitterMs > 0 ? Math.floor(deps.random() * deps.jitterMs) : 0;
          if (delay > 0 && !(await deps.sleep(delay, deps.stopping))) return;
          if (deps.stopping.aborted) return;
          await deps.fire(job);
        } catch (err) {
          deps.log?.(
            `${job.cluster} ${job.op}: round failed unexpectedly: ${err instanceof Error ? err.message : String(err)}`,
          );
        } finally {
          busy = false;
        }
      })();
      inflight.add(p);
      void p.finally(() => inflight.delete(p));
      return p;
    };
    return create(job.expression, fn, {
      name: `${job.cluster}:${job.op}`,
      // overlap is handled by `busy` above (with our own message), not by node-cron
      noOverlap: false,
      logger,
      suppressMissedWarning: true,
    });
  });
  return {
    start() {
      for (const t of tasks) void t.start();
    },
    async stop() {
      for (const t of tasks) await t.stop();
      for (const t of tasks) await t.destroy();
    },
    async drain() {
      while (inflight.size > 0) await Promise.allSettled([...inflight]);
    },
    get inFlight() {
      return inflight.size;
    },
  };
}

/** Matches instants against cron expressions with node-cron's own parser. */
export class CronMatcher {
  readonly #tasks = new Map<string, Pick<ScheduledTask, 'match' | 'destroy'>>();

  /** True when the expression fires at this instant (whole second). */
  matches(expression: string, ms: number): boolean {
    let task = this.#tasks.get(expression);
    if (task === undefined) {
      task = cronCreateTask(expression, () => {});
      this.#tasks.set(expression, task);
    }
    return task.match(new Date(ms));
  }

  /** The first whole second strictly after `afterMs` at which the expression fires (within `horizonS` seconds). */
  next(expression: string, afterMs: number, horizonS = 366 * 86_400): number | undefined {
    const start = Math.floor(afterMs / 1000) * 1000 + 1000;
    for (let i = 0; i < horizonS; i++) {
      const t = start + i * 1000;
      if (this.matches(expression, t)) return t;
    }
    return undefined;
  }

  /** Releases the parsed tasks. */
  dispose(): void {
    for (const t of this.#tasks.values()) void t.destroy();
    this.#tasks.clear();
  }
}

/** Hooks of a virtual-time run. */
export interface VirtualRunDeps {
  /** the simulated time in ms since the epoch */
  readonly nowMs: () => number;
  /** moves the simulated time forward to `ms` (never backwards) */
  readonly advanceTo: (ms: number) => Promise<void> | void;
  /** runs one round at the current simulated instant */
  readonly fire: (job: Job) => Promise<unknown>;
  /** waits in real time before moving the clock by `simMs` (pacing for --speed); false = stop */
  readonly pace?: (simMs: number) => Promise<boolean>;
  readonly stopping: AbortSignal;
}

/**
 * Runs the schedules in virtual time from the current instant until `untilMs`: at each due
 * instant the clock is moved there and the due rounds run one after the other (upgrade first).
 * A round that makes time pass (retry back-off) makes the schedules skip the ticks it covered.
 * Returns the number of rounds run.
 */
export async function runVirtual(jobs: readonly Job[], untilMs: number, deps: VirtualRunDeps): Promise<number> {
  const matcher = new CronMatcher();
  const rank = (j: Job): number => OPERATION_ORDER.indexOf(j.op);
  const ordered = [...jobs].sort((a, b) => rank(a) - rank(b));
  const due = new Map<Job, number | undefined>();
  const start = deps.nowMs();
  for (const j of ordered)
    due.set(
      j,
      matcher.matches(j.expression, Math.ceil(start / 1000) * 1000)
        ? Math.ceil(start / 1000) * 1000
        : matcher.next(j.expression, start),
    );
  let rounds = 0;
  try {
    while (!deps.stopping.aborted) {
      let t = Infinity;
      for (const d of due.values()) if (d !== undefined && d < t) t = d;
      if (!Number.isFinite(t) || t > untilMs) break;
      const now = deps.nowMs();
      if (t > now) {
        if (deps.pace !== undefined && !(await deps.pace(t - now))) break;
        await deps.advanceTo(t);
      }
      for (const j of ordered) {
        if (due.get(j) !== t || deps.stopping.aborted) continue;
        await deps.fire(j);
        rounds++;
      }
      const after = Math.max(t, deps.nowMs());
      for (const j of ordered) {
        const d = due.get(j);
        if (d !== undefined && d <= after) due.set(j, matcher.next(j.expression, Math.max(d, after)));
      }
    }
    if (!deps.stopping.aborted && deps.nowMs() < untilMs) {
      if (deps.pace === undefined || (await deps.pace(untilMs - deps.nowMs()))) await deps.advanceTo(untilMs);
    }
  } finally {
    matcher.dispose();
  }
  return rounds;
}
