/**
 * A loopback TCP proxy that counts a client's turns: the times it starts sending again after
 * the server answered (its first bytes are one turn). A client that waits for each answer
 * before its next request takes a turn per request; one that sends requests together takes one
 * for all of them. Client bytes are forwarded `delayMs` late, so no answer can arrive while the
 * client is still writing what it sent together. It runs in a worker thread: the store's
 * PostgreSQL handle blocks the thread that calls it while it waits for the server.
 */
import { Worker } from 'node:worker_threads';

/** A running proxy. */
export interface TurnProxy {
  readonly port: number;
  /** turns taken by all clients so far */
  turns(): number;
  close(): Promise<void>;
}

// plain JavaScript: the worker runs without the test runner's TypeScript loader
const PROXY = `
const { connect, createServer } = require('node:net');
const { parentPort, workerData } = require('node:worker_threads');
const { targetPort, delayMs, counter } = workerData;
const turns = new Int32Array(counter);
const server = createServer((client) => {
  const upstream = connect({ host: '127.0.0.1', port: targetPort });
  for (const s of [client, upstream]) {
    s.setNoDelay(true);
    s.on('error', () => s.destroy());
  }
  let answered = true;
  client.on('data', (chunk) => {
    if (answered) Atomics.add(turns, 0, 1);
    answered = false;
    setTimeout(() => { if (!upstream.destroyed) upstream.write(chunk); }, delayMs);
  });
  upstream.on('data', (chunk) => {
    answered = true;
    if (!client.destroyed) client.write(chunk);
  });
  client.on('close', () => upstream.destroy());
  upstream.on('close', () => client.destroy());
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
`;

/** Starts a proxy on 127.0.0.1 (a free port) to 127.0.0.1:`targetPort`. */
export async function startTurnProxy(targetPort: number, delayMs = 20): Promise<TurnProxy> {
  const counter = new SharedArrayBuffer(4);
  const turns = new Int32Array(counter);
  const worker = new Worker(PROXY, { eval: true, workerData: { targetPort, delayMs, counter } });
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('message', (p: number) => resolve(p));
    worker.once('error', reject);
  });
  return {
    port,
    turns: () => Atomics.load(turns, 0),
    close: async () => {
      await worker.terminate();
    },
  };
}
