/**
 * How a test starts a TypeScript child script: bundled once with esbuild into the repository's
 * ignored `tmp/` (starting plain JavaScript takes a fraction of a second, where `--import tsx`
 * takes about one under load, which matters for 20 kills in a row), or through tsx when
 * bundling is not possible. The bundle lives inside the repository so the store still finds
 * its `drizzle/` migrations from it.
 *
 * Bundled as `npm run build` bundles dist/ (scripts/bundle-options.mjs): commander, drizzle-orm,
 * ink and react inside the bundle rather than a hundred files Node's loader resolves, reads and
 * compiles one by one at every start, the terminal browser in a chunk of its own loaded only by
 * `browse`, and the worker threads beside it where the store looks for them (as in dist/). A
 * reader started by corruption.test.ts took about 40 % less time to start so (`--help`, the
 * two bundles alternated, 3 runs each, load 9-11).
 */
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const built = new Map<string, Promise<string[]>>();

async function bundle(script: string): Promise<string[]> {
  try {
    const { build } = await import('esbuild');
    // @ts-expect-error: a plain ES module of the build, without type declarations
    const { WORKER_ENTRIES, bundleOptions } = (await import('../../../scripts/bundle-options.mjs')) as {
      WORKER_ENTRIES: Record<string, string>;
      bundleOptions: (o: {
        root: URL;
        entryPoints: Record<string, string>;
        outdir: string;
        sourcemap: boolean;
      }) => object;
    };
    const name = basename(script, '.ts');
    const base = join(ROOT, 'tmp', 'reliability');
    const staging = join(base, 'staging');
    const result = await build({
      ...bundleOptions({
        root: pathToFileURL(ROOT),
        entryPoints: { [name]: script, ...WORKER_ENTRIES },
        outdir: staging,
        sourcemap: false,
      }),
      write: false,
      logLevel: 'silent',
    });
    // named by content: reused while the sources do not change, put in place atomically
    const hash = createHash('sha256');
    const files = result.outputFiles.map((f) => ({ rel: relative(staging, f.path), contents: f.contents }));
    for (const f of files.sort((a, b) => (a.rel < b.rel ? -1 : 1))) hash.update(f.rel).update(f.contents);
    const dir = join(base, `${name}-${hash.digest('hex').slice(0, 12)}`);
    if (!existsSync(dir)) {
      mkdirSync(base, { recursive: true });
      const temp = mkdtempSync(join(base, `.${name}-`));
      try {
        for (const f of files) {
          mkdirSync(dirname(join(temp, f.rel)), { recursive: true });
          writeFileSync(join(temp, f.rel), f.contents);
        }
        // readable by the other users some tests run the child as (mkdtemp makes it 0700)
        chmodSync(temp, 0o755);
        try {
          renameSync(temp, dir);
        } catch (err) {
          // another worker put the same bundle in place first
          if (!existsSync(dir)) throw err;
        }
      } finally {
        rmSync(temp, { recursive: true, force: true });
      }
    }
    return [join(dir, `${name}.js`)];
  } catch {
    return ['--import', new URL('../../../node_modules/tsx/dist/loader.mjs', import.meta.url).href, script];
  }
}

/** The node arguments that run a script of test/reliability/support (bundled on first use). */
export function childArgs(name: string): Promise<string[]> {
  const script = fileURLToPath(new URL(`./${name}`, import.meta.url));
  let args = built.get(script);
  if (args === undefined) {
    args = bundle(script);
    built.set(script, args);
  }
  return args;
}
