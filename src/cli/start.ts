/**
 * How bin/flightrec.js starts a command (built as dist/start.cjs): from the CommonJS bundle of
 * the command line with its V8 code cache (dist/cli.cjs, ./code-cache.ts), about a quarter less
 * CPU for a read's start; the commands that may open the terminal browser run from the ES module
 * build (dist/cli.js), because ink and yoga use top-level await, which a CommonJS bundle cannot
 * hold.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compileBundle } from './code-cache.ts';

export { cacheFileBytes, compileBundle } from './code-cache.ts';

/** The words that lead to the terminal browser: `browse`, and `demo`, which ends in it. */
const BROWSER_WORDS: ReadonlySet<string> = new Set(['browse', 'demo']);

/** Which build runs `argv`: any argument that is a browser word (wherever it stands) takes the ES module build. */
export function buildFor(argv: readonly string[]): 'esm' | 'cjs' {
  return argv.some((arg) => BROWSER_WORDS.has(arg)) ? 'esm' : 'cjs';
}

/** The command line's entry point, `run(argv)`. */
type Run = (argv: readonly string[]) => Promise<void>;

/** Runs the command `argv` with the build it needs; `dist` is the folder of the builds. */
export async function start(argv: readonly string[], dist: string): Promise<void> {
  const bundle = join(dist, 'cli.cjs');
  if (buildFor(argv) === 'cjs' && existsSync(bundle)) {
    const exports = compileBundle(bundle, `${bundle}.cache`).run();
    await (exports.run as Run)(argv);
    return;
  }
  const esm = (await import(pathToFileURL(join(dist, 'cli.js')).href)) as { run: Run };
  await esm.run(argv);
}
