/** Where the PostgreSQL bridge's worker is (bundled: dist/pg-worker.js; from source: bridge-worker.ts), and how it starts. */
import { findThread } from '../../../threads/launch.ts';
import type { WorkerEntry } from '../../../threads/worker-entry.ts';
import { WORKER_STOPPED } from './bridge-protocol.ts';

/** How to start the bridge worker. */
export function bridgeWorkerSource(): WorkerEntry {
  const entry = findThread({
    callerUrl: import.meta.url,
    bundled: ['../pg-worker.js', './pg-worker.js'],
    sourceFile: './bridge-worker.ts',
    missing: 'flightrec: the PostgreSQL worker (dist/pg-worker.js) is missing from the installation',
  });
  return { ...entry, code: bridgeBootstrap(entry), eval: true };
}

/**
 * The code a bridge worker starts with. The calling thread sleeps in Atomics.wait until a reply
 * comes and cannot see the worker's `error` or `exit` events; so the worker says itself what
 * becomes of it, in the shared flag (bridge-protocol.ts):
 * - it raises its sign of life every `beatMs`: a worker that stops raising it (out of memory: no
 *   code of its own runs then) is given up after a silence (sync-database.ts);
 * - as it exits (an exception, a rejection, an exit) it posts its last word, why, and marks itself
 *   stopped: the caller fails at once instead of waiting its timeout;
 * - when its module fails to load (a damaged or incomplete installation) it answers every request
 *   with that failure.
 */
function bridgeBootstrap(entry: WorkerEntry): string {
  // eval code (the tsx loader, from source) is already the promise of the module; a bundle is a file
  const load = entry.eval ? String(entry.code) : `import(${JSON.stringify(String(entry.code))})`;
  // eval code may run as a script or as a module (--input-type): import(), not require
  return `import('node:worker_threads').then(({ workerData }) => {
  const flag = new Int32Array(workerData.flag);
  let reason;
  process.on('uncaughtExceptionMonitor', (err) => {
    reason ??= err instanceof Error ? err.message : String(err);
  });
  process.on('exit', (code) => {
    const message = 'the PostgreSQL worker stopped: ' + (reason ?? 'it exited with code ' + code);
    try {
      workerData.port.postMessage({ ok: false, stopped: true, error: { message, connection: true } });
    } catch {}
    Atomics.store(flag, 1, ${WORKER_STOPPED});
    Atomics.store(flag, 0, 1);
    Atomics.notify(flag, 0);
  });
  if (workerData.beatMs > 0)
    setInterval(() => Atomics.store(flag, 1, (Atomics.load(flag, 1) % 1e9) + 1), workerData.beatMs).unref();
  return ${load};
}).catch((err) => import('node:worker_threads').then(({ workerData }) => {
  const flag = new Int32Array(workerData.flag);
  const message = 'the PostgreSQL worker did not start: ' + (err instanceof Error ? err.message : String(err));
  workerData.port.on('message', () => {
    workerData.port.postMessage({ ok: false, error: { message, connection: true } });
    Atomics.store(flag, 0, 1);
    Atomics.notify(flag, 0);
  });
}));`;
}
