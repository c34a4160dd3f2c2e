/**
 * A fake cron clock for tests: stands in for node-cron's task factory, and fires the started
 * tasks whose expression matches each whole second as the test moves its virtual clock, so
 * schedules are driven without real waiting.
 */
import { CronMatcher, type SchedulerDeps } from '../../src/collector/schedule.ts';

type CreateTask = NonNullable<SchedulerDeps['createTask']>;

/** One task the code under test created. */
export interface FakeCronTask {
  readonly expression: string;
  readonly name: string;
  started: boolean;
  destroyed: boolean;
  readonly fire: () => Promise<void>;
}

/** The fake clock: `createTask` for the code under test, `advance` and `tasks` for the test. */
export interface FakeCron {
  readonly createTask: CreateTask;
  readonly tasks: FakeCronTask[];
  /** the virtual time, ms since the epoch */
  now(): number;
  /** Moves the clock by `ms`, second by second, firing (and awaiting) every started task that matches. */
  advance(ms: number): Promise<number>;
  /** Resolves once `n` tasks have been started (the collector starts them after opening its store). */
  started(n?: number, timeoutMs?: number): Promise<void>;
  dispose(): void;
}

/** A fake cron clock starting at `startMs` (a whole second). */
export function fakeCron(startMs = Date.UTC(2026, 0, 1)): FakeCron {
  const matcher = new CronMatcher();
  const tasks: FakeCronTask[] = [];
  let now = Math.floor(startMs / 1000) * 1000;
  const createTask: CreateTask = (expression, fn, options) => {
    const task: FakeCronTask = {
      expression,
      name: String(options.name ?? ''),
      started: false,
      destroyed: false,
      fire: fn,
    };
    tasks.push(task);
    return {
      start: () => void (task.started = true),
      stop: () => void (task.started = false),
      destroy: () => void (task.destroyed = true),
    };
  };
  return {
    createTask,
    tasks,
    now: () => now,
    async advance(ms) {
      let fired = 0;
      const until = now + ms;
      while (now + 1000 <= until) {
        now += 1000;
        const due = tasks.filter((t) => t.started && !t.destroyed && matcher.matches(t.expression, now));
        await Promise.all(due.map((t) => t.fire()));
        fired += due.length;
      }
      now = until;
      return fired;
    },
    async started(n = 1, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (tasks.filter((t) => t.started).length < n) {
        if (Date.now() > deadline) throw new Error(`fake cron: ${n} started task(s) expected, ${tasks.length} created`);
        await new Promise((r) => setImmediate(r));
      }
    },
    dispose: () => matcher.dispose(),
  };
}
