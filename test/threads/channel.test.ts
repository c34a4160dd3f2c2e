/**
 * The typed request channel to a worker thread (src/threads/channel.ts): replies settle their
 * own request by id, a thread that ends rejects what waits and is told once, a request that
 * cannot be copied is refused without waiting, close() lets the thread end on its stop message.
 */
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { RequestChannel, ThreadLostError } from '../../src/threads/channel.ts';

interface Req {
  readonly id: number;
  readonly op: 'echo' | 'later' | 'exit';
  readonly value?: number;
}
interface Reply {
  readonly id: number;
  readonly value: number;
}

/** A worker that echoes, answers `later` after the next request, exits on `exit`, ends on `stop`. */
function echoWorker(): Worker {
  const code = `const { parentPort } = require('node:worker_threads');
let held;
parentPort.on('message', (m) => {
  if (m === 'stop') return parentPort.close();
  if (m.op === 'exit') process.exit(3);
  if (m.op === 'later') { held = m; return; }
  parentPort.postMessage({ id: 999, value: -1 });
  parentPort.postMessage({ id: m.id, value: m.value * 2 });
  if (held) { parentPort.postMessage({ id: held.id, value: held.value }); held = undefined; }
});`;
  return new Worker(code, { eval: true });
}

describe('RequestChannel', () => {
  it('settles each request with the reply bearing its id, in whatever order they come', async () => {
    const channel = new RequestChannel<Req, Reply>(echoWorker());
    try {
      const first = channel.request((id) => ({ id, op: 'later', value: 7 }));
      const second = channel.request((id) => ({ id, op: 'echo', value: 5 }));
      expect(await second).toEqual({ id: 2, value: 10 });
      expect(await first).toEqual({ id: 1, value: 7 });
      expect(channel.waiting).toBe(0);
    } finally {
      await channel.terminate();
    }
  });

  it('rejects what waits when the thread ends, and tells it once', async () => {
    const told: string[] = [];
    const channel = new RequestChannel<Req, Reply>(echoWorker(), {
      exited: (code) => `gone with ${code}`,
      onLost: (message, how) => told.push(`${how}: ${message}`),
    });
    const waiting = channel.request((id) => ({ id, op: 'later', value: 1 })).catch((err: unknown) => err);
    const ending = channel.request((id) => ({ id, op: 'exit' })).catch((err: unknown) => err);
    expect(await waiting).toBeInstanceOf(ThreadLostError);
    expect(await ending).toEqual(new ThreadLostError('gone with 3'));
    await channel.exited;
    expect(told).toEqual(['exited: gone with 3']);
    expect(channel.lost).toBe('gone with 3');
    await expect(channel.request((id) => ({ id, op: 'echo', value: 1 }))).rejects.toThrow(ThreadLostError);
  });

  it('refuses a request that cannot be copied to the thread, and nothing waits for it', async () => {
    const channel = new RequestChannel<Req, Reply>(echoWorker());
    try {
      const bad = { id: 0, op: 'echo', value: 1, fn: () => 1 } as unknown as Req;
      await expect(channel.request((id) => ({ ...bad, id }))).rejects.toThrow(/could not be cloned/);
      expect(channel.waiting).toBe(0);
      expect(await channel.request((id) => ({ id, op: 'echo', value: 2 }))).toEqual({ id: 2, value: 4 });
    } finally {
      await channel.terminate();
    }
  });

  it('close() posts the stop message, lets the thread end by itself and tells no loss', async () => {
    const told: string[] = [];
    const channel = new RequestChannel<Req, Reply>(echoWorker(), { onLost: (m) => told.push(m) });
    const waiting = channel.request((id) => ({ id, op: 'later', value: 1 })).catch((err: unknown) => err);
    await channel.close('stop', 60_000);
    expect(await waiting).toBeInstanceOf(ThreadLostError);
    expect(told).toEqual([]);
  });
});
