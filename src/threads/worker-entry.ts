/**
 * Where a worker thread's entry is: bundled, the `.js` entry next to dist/cli.js (the caller
 * lives in dist/ or dist/chunks/); from source (the tests), the `.ts` file next to the caller,
 * started through tsx's loader, which Node 20 does not apply to worker threads by itself. Under
 * the test runner the workers are bundled from the sources once per run instead
 * (test/global-setup.ts, which names the folder in FLIGHTREC_TEST_WORKERS): a worker started
 * through tsx compiles its modules on a loader thread of its own, about 0.2 s more per start, and
 * every PostgreSQL open starts one.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The variable naming the folder of the workers bundled for a test run (only read when running from source). */
export const TEST_WORKERS_ENV = 'FLIGHTREC_TEST_WORKERS';

/** How to start a worker: `new Worker(code, { eval, execArgv })`; eval code is one expression, the promise of the module. */
export interface WorkerEntry {
  readonly code: string | URL;
  readonly eval: boolean;
  /** the process's Node options less `--input-type`, which Node refuses for a worker started from a file */
  readonly execArgv: string[];
}

/** process.execArgv without `--input-type` (a process started with `-e` may carry it; a file worker inheriting it fails at once). */
function fileWorkerExecArgv(): string[] {
  const out: string[] = [];
  const argv = process.execArgv;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--input-type') i++;
    else if (!argv[i]!.startsWith('--input-type=')) out.push(argv[i]!);
  }
  return out;
}

/** Options that take a value in the next argument when not written `--name=value`. */
const LOADING_WITH_VALUE: ReadonlySet<string> = new Set([
  '--import',
  '--require',
  '-r',
  '--loader',
  '--experimental-loader',
  '--conditions',
  '-C',
]);
/** Options without a value that change how a thread loads or reports, never the heap. */
const LOADING_FLAGS: ReadonlySet<string> = new Set(['--enable-source-maps', '--no-warnings', '--no-deprecation']);

/**
 * The module-loading options of `argv` alone (`--import`, `--require`, loaders, conditions, source
 * maps, warnings): what a thread needs from its process when Node refuses the rest of it.
 */
export function threadExecArgv(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const name = arg.startsWith('--') && arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg;
    if (LOADING_WITH_VALUE.has(name)) {
      if (name === arg && i + 1 < argv.length) out.push(arg, argv[++i]!);
      else if (name !== arg) out.push(arg);
    } else if (LOADING_FLAGS.has(arg)) out.push(arg);
  }
  return out;
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
    const prebuilt = testRunBundle(bundled);
    if (prebuilt !== undefined) return { code: prebuilt, eval: false, execArgv: fileWorkerExecArgv() };
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
    const code = `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(file.href)}); })`;
    return { code, eval: true, execArgv: process.execArgv };
  }
  for (const rel of bundled) {
    const file = new URL(rel, callerUrl);
    if (existsSync(fileURLToPath(file))) return { code: file, eval: false, execArgv: fileWorkerExecArgv() };
  }
  return undefined;
}

/** From source under the test runner: this worker as bundled for the run, when the run made it. */
function testRunBundle(bundled: readonly string[]): URL | undefined {
  const dir = process.env[TEST_WORKERS_ENV];
  const name = bundled[0] === undefined ? undefined : basename(bundled[0]);
  if (dir === undefined || dir === '' || name === undefined) return undefined;
  const file = join(dir, name);
  return existsSync(file) ? pathToFileURL(file) : undefined;
}
