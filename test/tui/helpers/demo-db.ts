/**
 * The recorded demo database the TUI tests browse: the simulator's `incident` scenario recorded
 * by the collector (`collect --simulate incident --for 20m`; or 25m, the recording of the docs'
 * pictures), made once per test run and shared by the test files (a lock directory keeps
 * parallel workers from recording it twice).
 */
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCollect } from '../../../src/cli/commands/collect.ts';
import { memoryIo } from '../../helpers/memory-io.ts';

const DIR = join(tmpdir(), 'flightrec-tui-tests');
/** one database per `vitest` run: the workers share their parent's pid */
const RUN = process.env['VITEST_POOL_ID'] !== undefined ? String(process.ppid) : String(process.pid);

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Removes databases of earlier runs (older than an hour), never `keep`. */
function sweep(keep: string): void {
  for (const name of readdirSync(DIR)) {
    const path = join(DIR, name);
    if (path === keep) continue;
    try {
      if (Date.now() - statSync(path).mtimeMs > 3_600_000) rmSync(path, { recursive: true, force: true });
    } catch {
      // another run is cleaning up too
    }
  }
}

/** Records a simulator scenario into `path` through the collector; returns the exit code. */
export async function recordScenario(
  path: string,
  scenario: string,
  forDuration: string,
  extra: Record<string, string> = {},
): Promise<number> {
  const io = memoryIo();
  const code = await runCollect(
    { link: [], schedule: [], simulate: scenario, for: forDuration, ...extra },
    { db: path },
    io,
  );
  if (code !== 0) throw new Error(`recording ${scenario} failed (${code}): ${io.err().slice(-2000)}`);
  return code;
}

/** The path of the demo database (`forDuration` simulated minutes), recording it first when this run has none yet. */
export async function demoDatabase(forDuration: '20m' | '25m' = '20m'): Promise<string> {
  mkdirSync(DIR, { recursive: true });
  const dir = join(DIR, forDuration === '20m' ? `run-${RUN}` : `run-${RUN}-${forDuration}`);
  const path = join(dir, 'demo.db');
  const ready = `${path}.ready`;
  const deadline = Date.now() + 110_000;
  for (;;) {
    if (existsSync(ready)) return path;
    try {
      mkdirSync(dir);
    } catch {
      // another worker is recording it
      if (Date.now() > deadline) throw new Error(`gave up waiting for ${path} to be recorded by another test worker`);
      await sleep(200);
      continue;
    }
    sweep(dir);
    try {
      await recordScenario(path, 'incident', forDuration);
    } catch (err) {
      rmSync(dir, { recursive: true, force: true }); // let the next worker try again
      throw err;
    }
    writeFileSync(ready, '');
    return path;
  }
}
