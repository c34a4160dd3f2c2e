/**
 * Where the PostgreSQL bridge's worker is: the bundled entry next to dist/cli.js, or (running
 * from source, as the tests do) the TypeScript file through tsx's loader, which Node 20 does not
 * apply to worker threads by itself.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** How to start the bridge worker. */
export function bridgeWorkerSource(): { code: string | URL; eval: boolean } {
  const here = import.meta.url;
  if (here.endsWith('.ts')) {
    const file = new URL('./bridge-worker.ts', here);
    const api = pathToFileURL(
      createRequire(here)
        .resolve('tsx/esm/api')
        .replace(/\.cjs$/, '.mjs'),
    ).href;
    const code = `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(file.href)}); });`;
    return { code, eval: true };
  }
  for (const rel of ['../pg-worker.js', './pg-worker.js']) {
    const file = new URL(rel, here);
    if (existsSync(fileURLToPath(file))) return { code: file, eval: false };
  }
  throw new Error('flightrec: the PostgreSQL worker (dist/pg-worker.js) is missing from the installation');
}
