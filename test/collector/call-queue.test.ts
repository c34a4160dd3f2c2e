import { describe, expect, it } from 'vitest';
import { createCallQueue, QueueAbortedError } from '../../src/collector/call-queue.ts';

const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 1));

describe('call queue', () => {
  it('runs one task at a time, in order', async () => {
    const q = createCallQueue();
    let active = 0;
    let maxActive = 0;
    const order: number[] = [];
    const task = (i: number) => async () => {
      active++;
      maxActive = Math.max(maxActive, active);
      await tick();
      order.push(i);
      active--;
      return i;
    };
    const results = await Promise.all([1, 2, 3, 4].map((i) => q.run(task(i))));
    expect(results).toEqual([1, 2, 3, 4]);
    expect(order).toEqual([1, 2, 3, 4]);
    expect(maxActive).toBe(1);
    expect(q.busy).toBe(false);
  });

  it('goes on after a task fails', async () => {
    const q = createCallQueue();
    const a = q.run(async () => {
      throw new Error('boom');
    });
    const b = q.run(async () => 'ok');
    await expect(a).rejects.toThrow('boom');
    expect(await b).toBe('ok');
  });

  it('drops a waiting task whose signal aborts', async () => {
    const q = createCallQueue();
    let release!: () => void;
    const first = q.run(() => new Promise<void>((r) => (release = r)));
    const ctl = new AbortController();
    let ran = false;
    const second = q.run(async () => {
      ran = true;
    }, ctl.signal);
    expect(q.waiting).toBe(1);
    ctl.abort();
    await expect(second).rejects.toBeInstanceOf(QueueAbortedError);
    release();
    await first;
    expect(ran).toBe(false);
    expect(await q.run(async () => 3)).toBe(3);
  });
});
