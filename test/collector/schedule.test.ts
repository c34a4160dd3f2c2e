import { describe, expect, it } from 'vitest';
import { createScheduler, CronMatcher, runVirtual, type Job } from '../../src/collector/schedule.ts';

function fakeCron() {
  const tasks: {
    expression: string;
    fn: () => Promise<void>;
    options: Record<string, unknown>;
    started: boolean;
    destroyed: boolean;
  }[] = [];
  return {
    tasks,
    createTask: (expression: string, fn: () => Promise<void>, options: Record<string, unknown>) => {
      const t = { expression, fn, options, started: false, destroyed: false };
      tasks.push(t);
      return {
        start: () => void (t.started = true),
        stop: () => void (t.started = false),
        destroy: () => void (t.destroyed = true),
      };
    },
  };
}

const JOB: Job = { cluster: 'c', op: 'ListKafkaConnections', expression: '*/30 * * * * *' };

describe('the scheduler', () => {
  it('creates one task per job (overlap handled by the scheduler itself) and fires rounds after a jitter', async () => {
    const cron = fakeCron();
    const fired: Job[] = [];
    const slept: number[] = [];
    const s = createScheduler([JOB], {
      fire: async (j) => void fired.push(j),
      jitterMs: 2000,
      random: () => 0.25,
      sleep: async (ms) => (slept.push(ms), true),
      stopping: new AbortController().signal,
      createTask: cron.createTask,
    });
    s.start();
    expect(cron.tasks[0]).toMatchObject({ expression: '*/30 * * * * *', started: true, options: { noOverlap: false } });
    await cron.tasks[0]!.fn();
    expect(slept).toEqual([500]);
    expect(fired).toEqual([JOB]);
    await s.stop();
    expect(cron.tasks[0]!.destroyed).toBe(true);
  });

  it('skips a firing while the previous round of the same schedule runs', async () => {
    const cron = fakeCron();
    let release!: () => void;
    let rounds = 0;
    const skipped: Job[] = [];
    const s = createScheduler([JOB], {
      fire: () => {
        rounds++;
        return new Promise<void>((r) => (release = r));
      },
      jitterMs: 0,
      random: () => 0,
      sleep: async () => true,
      stopping: new AbortController().signal,
      onSkip: (j) => skipped.push(j),
      createTask: cron.createTask,
    });
    const first = cron.tasks[0]!.fn();
    await new Promise((r) => setTimeout(r, 1));
    await cron.tasks[0]!.fn();
    expect(rounds).toBe(1);
    expect(skipped).toHaveLength(1);
    expect(s.inFlight).toBe(1);
    release();
    await first;
    await s.drain();
    expect(s.inFlight).toBe(0);
  });

  it("never passes node-cron's own text on: a warning is dropped, an error said in the collector's words", () => {
    const cron = fakeCron();
    const logged: string[] = [];
    createScheduler([JOB], {
      fire: async () => {},
      jitterMs: 0,
      random: () => 0,
      sleep: async () => true,
      stopping: new AbortController().signal,
      log: (l) => logged.push(l),
      createTask: cron.createTask,
    });
    const logger = cron.tasks[0]!.options.logger as { warn(m: string): void; error(m: unknown): void };
    logger.warn('task still running, new execution blocked by overlap prevention!');
    logger.error(new Error('scheduler: task still running...'));
    expect(logged).toEqual(['c ListKafkaConnections: the schedule failed to start a round at this firing']);
    expect(logged.join('\n')).not.toMatch(/scheduler:|task still running/);
  });

  it('starts no round once stopping', async () => {
    const cron = fakeCron();
    const stop = new AbortController();
    let rounds = 0;
    createScheduler([JOB], {
      fire: async () => void rounds++,
      jitterMs: 1000,
      random: () => 0.5,
      sleep: async () => (stop.abort(), false),
      stopping: stop.signal,
      createTask: cron.createTask,
    });
    await cron.tasks[0]!.fn();
    await cron.tasks[0]!.fn();
    expect(rounds).toBe(0);
  });

  it('keeps scheduling when a round throws', async () => {
    const cron = fakeCron();
    const lines: string[] = [];
    createScheduler([JOB], {
      fire: async () => {
        throw new Error('boom');
      },
      jitterMs: 0,
      random: () => 0,
      sleep: async () => true,
      stopping: new AbortController().signal,
      log: (l) => lines.push(l),
      createTask: cron.createTask,
    });
    await cron.tasks[0]!.fn();
    expect(lines[0]).toMatch(/round failed unexpectedly: boom/);
  });
});

describe('cron matching and virtual time', () => {
  it('finds the next firing of six-field expressions', () => {
    const m = new CronMatcher();
    const t0 = Date.parse('2026-01-01T00:00:00Z');
    expect(m.next('*/30 * * * * *', t0)).toBe(t0 + 30_000);
    expect(m.next('*/30 * * * * *', t0 + 29_999)).toBe(t0 + 30_000);
    expect(m.next('0 * * * * *', t0 + 1)).toBe(t0 + 60_000);
    m.dispose();
  });

  it('runs due rounds in order at each instant, upgrade first, until the end', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const start = now;
    const fired: string[] = [];
    const jobs: Job[] = [
      { cluster: 'c', op: 'ListKafkaConnections', expression: '*/30 * * * * *' },
      { cluster: 'c', op: 'GetUpgradeStatus', expression: '0 * * * * *' },
    ];
    const rounds = await runVirtual(jobs, start + 120_000, {
      nowMs: () => now,
      advanceTo: (ms) => void (now = ms),
      fire: async (j) => void fired.push(`${(now - start) / 1000}:${j.op}`),
      stopping: new AbortController().signal,
    });
    expect(fired).toEqual([
      '0:GetUpgradeStatus',
      '0:ListKafkaConnections',
      '30:ListKafkaConnections',
      '60:GetUpgradeStatus',
      '60:ListKafkaConnections',
      '90:ListKafkaConnections',
      '120:GetUpgradeStatus',
      '120:ListKafkaConnections',
    ]);
    expect(rounds).toBe(8);
    expect(now).toBe(start + 120_000);
  });

  it('skips the ticks a long round covered, and paces real time', async () => {
    let now = Date.parse('2026-01-01T00:00:10Z');
    const start = now;
    const fired: number[] = [];
    const paced: number[] = [];
    await runVirtual([{ cluster: 'c', op: 'ListKafkaConnections', expression: '*/10 * * * * *' }], start + 60_000, {
      nowMs: () => now,
      advanceTo: (ms) => void (now = ms),
      fire: async () => {
        fired.push((now - start) / 1000);
        if (fired.length === 2) now += 25_000; // a round with retries that took 25 s of simulated time
      },
      pace: async (ms) => (paced.push(ms), true),
      stopping: new AbortController().signal,
    });
    expect(fired).toEqual([0, 10, 40, 50, 60]);
    expect(paced).toEqual([10_000, 5_000, 10_000, 10_000]);
  });
});

describe('five-field cron (minute first)', () => {
  it('fires at second 0 of the matching minutes, in real and in virtual time', () => {
    const m = new CronMatcher();
    const t0 = Date.parse('2026-01-01T00:01:10Z');
    expect(new Date(m.next('*/5 * * * *', t0)!).toISOString()).toBe('2026-01-01T00:05:00.000Z');
    expect(m.matches('*/5 * * * *', Date.parse('2026-01-01T00:10:00Z'))).toBe(true);
    expect(m.matches('*/5 * * * *', Date.parse('2026-01-01T00:10:01Z'))).toBe(false);
    m.dispose();
  });
});
