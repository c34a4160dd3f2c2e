// Bundles the command line (and, lazily loaded, the TUI) into dist/ with esbuild.
// Runtime dependencies stay external, except drizzle-orm and commander (scripts/bundle-options.mjs)
// and ink and react: the TUI's chunk bundles them (and
// their dependencies) so `browse` starts faster; `react-devtools-core`, which ink imports only
// when DEV is set, is aliased to a stub. Other commands never load the TUI's chunk. The timeline
// worker is a second entry so the browser can compute the timeline off its UI thread, the rollup
// worker a third so the collector summarises history off its event loop, and the PostgreSQL
// bridge's worker a fourth (it owns the connection the store's synchronous calls wait on).
//
// `npm pack` and `npm publish` run prepack and then prepare: the package is built once, by
// prepack, without source maps (they would triple dist/ and serve no user; the package's
// `files` leaves them out too), and prepare then has nothing to do.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { asciiOnlyFile, asciiOnlyTree } from './ascii-only.mjs';
import {
  DRIZZLE_BUNDLE,
  WORKER_ENTRIES,
  bundleOptions,
  cjsBundleOptions,
  drizzleBundleOptions,
} from './bundle-options.mjs';
import { makeCodeCache } from './code-cache.mjs';

/** Node's module wrapper (`Module.wrapper`), as src/cli/code-cache.ts recognises it. */
const MODULE_WRAPPER_HEAD = '(function (exports, require, module, __filename, __dirname) { ';
const MODULE_WRAPPER_TAIL = '\n});';

const packing = ['pack', 'publish'].includes(process.env.npm_command ?? '');
if (packing && process.env.npm_lifecycle_event === 'prepare') process.exit(0);

const root = new URL('../', import.meta.url);
rmSync(new URL('dist', root), { recursive: true, force: true });
// the workers are entries of their own, started as worker threads (scripts/bundle-options.mjs)
await build(
  bundleOptions({
    root,
    entryPoints: { cli: 'src/cli/main.ts', ...WORKER_ENTRIES },
    outdir: 'dist',
    sourcemap: packing ? false : 'linked',
  }),
);
// ASCII only, so that Node reads each file as a one-byte string (scripts/ascii-only.mjs)
asciiOnlyTree(new URL('dist', root).pathname);
// the one module `flightrec --version` loads, CommonJS as the bin that requires it (bin/flightrec.js)
await build({
  absWorkingDir: new URL('.', root).pathname,
  entryPoints: ['src/cli/version.ts'],
  outfile: 'dist/version.cjs',
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
});
// the command line again as one CommonJS file, the form V8 takes a code cache for, its last line
// its build id (what the cache names: src/cli/code-cache.ts), and the CommonJS entry that loads
// it (src/cli/start.ts); then the cache itself, made by running read commands (scripts/code-cache.mjs)
const cjsFile = new URL('dist/cli.cjs', root);
await build(
  cjsBundleOptions({
    root,
    entryPoint: 'src/cli/main.ts',
    outfile: 'dist/cli.cjs',
    sourcemap: packing ? false : 'linked',
  }),
);
asciiOnlyFile(cjsFile.pathname);
// written inside Node's module wrapper (src/cli/code-cache.ts MODULE_WRAPPER_HEAD), its head on
// the first line, so that V8 compiles the file's text as it is instead of a copy of it joined to
// the wrapper (and the source map's lines stay where they were)
const cjsSource = `${MODULE_WRAPPER_HEAD}${readFileSync(cjsFile, 'utf8')}${MODULE_WRAPPER_TAIL}\n`;
const buildId = createHash('sha256').update(cjsSource).digest('hex');
writeFileSync(cjsFile, `${cjsSource}//# flightrec-build-id=${buildId}\n`);
// drizzle-orm for the bundle, loaded by a writer on first use (scripts/bundle-options.mjs DRIZZLE_ENTRIES)
const drizzleFile = new URL(`dist/${DRIZZLE_BUNDLE}`, root);
await build(drizzleBundleOptions({ root, outfile: drizzleFile.pathname, sourcemap: packing ? false : 'linked' }));
asciiOnlyFile(drizzleFile.pathname);
await build({
  absWorkingDir: new URL('.', root).pathname,
  entryPoints: ['src/cli/start.ts'],
  outfile: 'dist/start.cjs',
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
});
makeCodeCache(new URL('dist', root).pathname);
