/** Where the PostgreSQL bridge's worker is (bundled: dist/pg-worker.js; from source: bridge-worker.ts), and how it starts. */
import { workerEntry, type WorkerEntry } from '../worker-entry.ts';

/** How to start the bridge worker. */
export function bridgeWorkerSource(): WorkerEntry {
  const entry = workerEntry(import.meta.url, ['../pg-worker.js', './pg-worker.js'], './bridge-worker.ts');
  if (entry === undefined) {
    throw new Error('flightrec: the PostgreSQL worker (dist/pg-worker.js) is missing from the installation');
  }
  return { ...entry, code: bridgeBootstrap(entry), eval: true };
}

/**
 * The code a bridge worker starts with: it loads the worker's module and, when that fails (a
 * damaged or incomplete installation), answers every request with the failure. The calling
 * thread sleeps in Atomics.wait until a reply comes and cannot see the worker's `error` event;
 * without an answer it would wait its whole timeout (two minutes) before saying anything.
 */
function bridgeBootstrap(entry: WorkerEntry): string {
  // eval code (the tsx loader, from source) is already the promise of the module; a bundle is a file
  const load = entry.eval ? String(entry.code) : `import(${JSON.stringify(String(entry.code))})`;
  return `${load}.catch((err) => import('node:worker_threads').then(({ workerData }) => {
  const flag = new Int32Array(workerData.flag);
  const message = 'the PostgreSQL worker did not start: ' + (err instanceof Error ? err.message : String(err));
  workerData.port.on('message', () => {
    workerData.port.postMessage({ ok: false, error: { message, connection: true } });
    Atomics.store(flag, 0, 1);
    Atomics.notify(flag, 0);
  });
}));`;
}
