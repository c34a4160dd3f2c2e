/** Where the PostgreSQL bridge's worker is (bundled: dist/pg-worker.js; from source: bridge-worker.ts). */
import { workerEntry, type WorkerEntry } from '../worker-entry.ts';

/** How to start the bridge worker. */
export function bridgeWorkerSource(): WorkerEntry {
  const entry = workerEntry(import.meta.url, ['../pg-worker.js', './pg-worker.js'], './bridge-worker.ts');
  if (entry === undefined) {
    throw new Error('flightrec: the PostgreSQL worker (dist/pg-worker.js) is missing from the installation');
  }
  return entry;
}
