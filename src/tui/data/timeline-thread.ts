/** Starts the timeline worker: from the bundle its own entry file, from source the TypeScript file through tsx's loader. */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Timeline } from '../../report/timeline/timeline.ts';

/** How to start the worker: the bundled entry next to dist/cli.js, or (from source) the .ts file through tsx. */
function workerSource(): { code: string | URL; eval: boolean } | undefined {
  const here = import.meta.url;
  if (here.endsWith('.ts')) {
    const file = new URL('./timeline-worker.ts', here);
    if (!existsSync(fileURLToPath(file))) return undefined;
    // Node 20 does not apply `--import tsx` to worker threads: register tsx's loader inside the worker
    let api: string;
    try {
      // the package's ESM entry sits next to the CommonJS one that require.resolve finds
      api = pathToFileURL(
        createRequire(here)
          .resolve('tsx/esm/api')
          .replace(/\.cjs$/, '.mjs'),
      ).href;
    } catch {
      return undefined;
    }
    const code = `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(file.href)}); });`;
    return { code, eval: true };
  }
  // bundled: this code lives in dist/chunks/, the worker entry in dist/
  for (const rel of ['../timeline-worker.js', './timeline-worker.js']) {
    const file = new URL(rel, here);
    if (existsSync(fileURLToPath(file))) return { code: file, eval: false };
  }
  return undefined;
}

/** A running timeline computation: its result, and a way to stop it. */
export interface TimelineTask {
  readonly result: Promise<Timeline>;
  /** terminates the worker; the result then rejects */
  stop(): void;
}

/** Computes the timeline of `database` in a worker thread; the result rejects when no worker can run it. */
export function timelineInWorker(database: string, cluster: string | undefined): TimelineTask {
  const where = workerSource();
  if (where === undefined) return { result: Promise.reject(new Error('timeline worker not found')), stop: () => {} };
  const worker = new Worker(where.code, { workerData: { database, cluster }, eval: where.eval });
  worker.unref();
  const result = new Promise<Timeline>((resolve, reject) => {
    worker.once('message', (m: { ok: true; timeline: Timeline } | { ok: false; message: string }) => {
      if (m.ok) resolve(m.timeline);
      else reject(new Error(m.message));
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`timeline worker exited with ${code}`)));
  });
  return { result, stop: () => void worker.terminate() };
}
