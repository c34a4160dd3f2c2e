// The soak bench on the built code: bench/soak.bench.ts and the rollup worker bundled with the
// options of `npm run build` (scripts/bundle-options.mjs: what dist/ holds), into a folder under the
// project's tmp/ (inside the project, so that its packages and the drizzle/ migrations are found),
// and run by plain node: no tsx in the collector's process nor in its threads, as in production.
// The simulator (bench/lib/soak-sim.ts, another process) still runs from source through tsx.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
// @ts-expect-error: a plain ES module of the build, without type declarations
import { WORKER_ENTRIES, bundleOptions } from '../../scripts/bundle-options.mjs';

/** What the bundled bench is told: where the simulator's source is (the bundle is elsewhere). */
export const SOAK_SIM_FILE_ENV = 'SOAK_SIM_FILE';

/** Bundles `benchFile` (relative to `root`) with the rollup worker, runs it with `args`, and resolves with its exit code. */
export async function runBuilt(root: string, benchFile: string, args: readonly string[] = []): Promise<number> {
  mkdirSync(join(root, 'tmp'), { recursive: true });
  const outdir = mkdtempSync(join(root, 'tmp', 'soak-built-'));
  try {
    const entries = WORKER_ENTRIES as Record<string, string>;
    const options = bundleOptions({
      root: pathToFileURL(`${root}/`),
      entryPoints: { 'soak-bench': benchFile, 'rollup-worker': entries['rollup-worker'] },
      outdir,
      sourcemap: false,
    }) as Parameters<typeof build>[0];
    await build(options);
    const child = spawn(process.execPath, [join(outdir, 'soak-bench.js'), ...args], {
      stdio: 'inherit',
      env: { ...process.env, [SOAK_SIM_FILE_ENV]: join(root, 'bench/lib/soak-sim.ts') },
    });
    return await new Promise<number>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (code, signal) => resolve(code ?? (signal === null ? 1 : 128)));
    });
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}
