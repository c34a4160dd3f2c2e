/**
 * A receiver's long-lived signals (its queue's stop, a caller's deadline) keep no listener per
 * request or per wait: before, each POST left one on the queue's stop signal until its own
 * timeout fired, so a burst of more than ten deliveries printed Node's MaxListenersExceededWarning
 * on the collector's standard error.
 */
import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { DeliveryQueue } from '../../src/alerts/delivery-queue.ts';
import { JsonPoster } from '../../src/alerts/http-post.ts';
import { answer, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.ts';

const servers: LoopbackServer[] = [];
const posters: JsonPoster[] = [];
afterEach(async () => {
  for (const p of posters.splice(0)) await p.close();
  for (const s of servers.splice(0)) await s.close();
});

/** Node's warnings emitted while `run` runs. */
async function warningsDuring(run: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const onWarning = (w: Error): void => void seen.push(w.name);
  process.on('warning', onWarning);
  try {
    await run();
    // warnings are emitted on the next tick
    await new Promise((r) => setImmediate(r));
  } finally {
    process.off('warning', onWarning);
  }
  return seen;
}

/** A queue whose every delivery waits for `gate`, then succeeds. */
function queueWaitingFor(gate: Promise<void>): DeliveryQueue<string> {
  return new DeliveryQueue<string>({
    capacity: 10,
    batch: 1,
    retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
    send: async () => {
      await gate;
      return { ok: true, status: 200 };
    },
    line: () => {},
    name: 'test',
  });
}

describe('signal listeners of the alert receivers', () => {
  it('a poster leaves no listener on the caller’s signal after each request, answered or failed', async () => {
    const server = await startLoopbackServer((r, res) => answer(res, r.path === '/fail' ? 503 : 200, '{}'));
    servers.push(server);
    const ok = new JsonPoster({ url: `${server.url}/ok`, timeoutMs: 10_000 });
    const failing = new JsonPoster({ url: `${server.url}/fail`, timeoutMs: 10_000 });
    posters.push(ok, failing);
    const stop = new AbortController();
    const warnings = await warningsDuring(async () => {
      for (let i = 0; i < 15; i++) {
        expect(await ok.post('{}', {}, stop.signal)).toEqual({ ok: true, status: 200 });
        expect((await failing.post('{}', {}, stop.signal)).ok).toBe(false);
      }
    });
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });

  it('the caller’s signal still cancels a request in flight', async () => {
    const server = await startLoopbackServer(() => {}); // never answers
    servers.push(server);
    const poster = new JsonPoster({ url: server.url, timeoutMs: 10_000 });
    posters.push(poster);
    const stop = new AbortController();
    const pending = poster.post('{}', {}, stop.signal);
    setTimeout(() => stop.abort(), 50);
    expect(await pending).toEqual({ ok: false, retry: false, message: 'stopped' });
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
  });

  it('waiting for a queue to be idle leaves no listener on the signal it was given', async () => {
    let release = (): void => {};
    const gate = new Promise<void>((r) => (release = r));
    const queue = queueWaitingFor(gate);
    const deadline = new AbortController();
    queue.push('a', 'a');
    queue.push('b', 'b');
    const idle = queue.idle(deadline.signal);
    expect(getEventListeners(deadline.signal, 'abort')).toHaveLength(1);
    release();
    await idle;
    expect(queue.queued).toBe(0);
    expect(getEventListeners(deadline.signal, 'abort')).toHaveLength(0);
    // an aborted wait ends at once, its listener gone too
    const stuck = new Promise<void>(() => {});
    const blocked = queueWaitingFor(stuck);
    blocked.push('c', 'c');
    const cut = new AbortController();
    const waiting = blocked.idle(cut.signal);
    cut.abort();
    await waiting;
    expect(getEventListeners(cut.signal, 'abort')).toHaveLength(0);
    expect(blocked.queued).toBe(1);
  });
});
