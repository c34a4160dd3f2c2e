/**
 * Where a worker thread's entry is: bundled, the `.js` entry next to dist/cli.js (the caller
 * lives in dist/ or dist/chunks/); from source (the tests), the `.ts` file next to the caller,
 * started through tsx's loader, which Node 20 does not apply to worker threads by itself.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** How to start a worker: `new Worker(code, { eval })`. */
export interface WorkerEntry {
  readonly code: string | URL;
  readonly eval: boolean;
}

/**
 * The entry of a worker for a caller at `callerUrl` (its import.meta.url): `sourceFile` is the
 * TypeScript entry, `bundled` the places of the bundled one (e.g. `../rollup-worker.js`, from
 * dist/chunks/, then `./rollup-worker.js`), all relative to the caller. Undefined when none is there.
 */
export function workerEntry(
  callerUrl: string,
  bundled: readonly string[],
  sourceFile: string,
): WorkerEntry | undefined {
  if (callerUrl.endsWith('.ts')) {
    const file = new URL(sourceFile, callerUrl);
    if (!existsSync(fileURLToPath(file))) return undefined;
    let api: string;
    try {
      // the package's ESM entry sits next to the CommonJS one that require.resolve finds
      api = pathToFileURL(
        createRequire(callerUrl)
          .resolve('tsx/esm/api')
          .replace(/\.cjs$/, '.mjs'),
      ).href;
    } catch {
      return undefined;
    }
    const code = `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(file.href)}); });`;
    return { code, eval: true };
  }
  for (const rel of bundled) {
    const file = new URL(rel, callerUrl);
    if (existsSync(fileURLToPath(file))) return { code: file, eval: false };
  }
  return undefined;
}
