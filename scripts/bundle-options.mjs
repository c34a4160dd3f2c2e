// The esbuild options of flightrec's bundles, shared by scripts/build.mjs (dist/) and the test
// runner's global setup (test/global-setup.ts bundles the worker threads once per run).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** The worker threads' entries, by the name of their bundle (`<name>.js`). */
export const WORKER_ENTRIES = {
  // the TUI's timeline (off its UI thread), the collector's rollups (off its event loop), the
  // PostgreSQL bridge (it owns the connection the store's synchronous calls wait on), the
  // collector's writes to a PostgreSQL server
  'timeline-worker': 'src/tui/data/timeline-worker.ts',
  'rollup-worker': 'src/report/rollup/rollup-worker.ts',
  'pg-worker': 'src/db/engines/pg/bridge-worker.ts',
  'store-worker': 'src/cli/store-worker.ts',
  // the live alerts' timeline (off the collector's event loop)
  'alert-worker': 'src/alerts/alert-worker.ts',
};

/**
 * esbuild options bundling `entryPoints` into `outdir`: runtime dependencies external, except
 * ink and react (the TUI's chunk bundles them; `react-devtools-core`, which ink imports only when
 * DEV is set, is aliased to a stub), and drizzle-orm and commander: plain JavaScript that every
 * command loads, about 120 files from node_modules that Node's module loader would resolve, read
 * and compile one by one (50 ms of CPU of a `query` that reads nothing: issue 36).
 */
export function bundleOptions({ root, entryPoints, outdir, sourcemap }) {
  const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
  const bundled = new Set(['ink', 'react', 'drizzle-orm', 'commander']);
  const external = Object.keys(pkg.dependencies).filter((name) => !bundled.has(name));
  return {
    absWorkingDir: new URL('.', root).pathname,
    entryPoints,
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // PGlite (tests only, a devDependency) is loaded by the PostgreSQL worker only for pglite:// targets
    external: [...external, ...external.map((name) => `${name}/*`), '@electric-sql/pglite'],
    alias: { 'react-devtools-core': './src/tui/devtools-stub.ts' },
    // react's production build; bundled CommonJS modules may require Node built-ins
    define: { 'process.env.NODE_ENV': '"production"' },
    banner: {
      js: "import { createRequire as __flightrecRequire } from 'node:module'; const require = __flightrecRequire(import.meta.url);",
    },
    chunkNames: 'chunks/[name]-[hash]',
    sourcemap,
    jsx: 'automatic',
    logLevel: 'warning',
  };
}

/**
 * The built-ins the CommonJS bundle loads only when one of their exports is first used: modules
 * every command initialises import them at their top (commander `child_process`, for executable
 * subcommands flightrec has none of; drizzle's migrator `crypto`, to hash migration files a read
 * never migrates; the PostgreSQL engine `worker_threads`), and a read that never uses them paid
 * about 3 to 5 ms of CPU each to load them.
 */
export const LAZY_BUILTINS = ['crypto', 'child_process', 'worker_threads'];

/** esbuild's namespace of the stand-ins for LAZY_BUILTINS. */
const LAZY_NAMESPACE = 'flightrec-lazy-builtin';

/**
 * The stand-in for the built-in `name`: an object with a getter for each of its exports (as this
 * Node lists them at build time) that loads the module on first use. An export is read when used,
 * as esbuild's CommonJS output reads `import_x.name` at each use, so nothing is loaded before.
 */
export function lazyBuiltinSource(name) {
  const keys = Object.keys(createRequire(import.meta.url)(`node:${name}`));
  return [
    `let loaded;`,
    `const load = () => (loaded ??= require(${JSON.stringify(`node:${name}`)}));`,
    `const lazy = {};`,
    `for (const key of ${JSON.stringify(keys)}) Object.defineProperty(lazy, key, { get: () => load()[key], enumerable: true });`,
    `module.exports = lazy;`,
    '',
  ].join('\n');
}

/** The esbuild plugin putting the stand-ins of lazyBuiltinSource in place of LAZY_BUILTINS. */
const lazyBuiltins = {
  name: 'flightrec-lazy-builtins',
  setup(b) {
    const filter = new RegExp(`^(node:)?(${LAZY_BUILTINS.join('|')})$`);
    b.onResolve({ filter }, (args) =>
      args.namespace === LAZY_NAMESPACE
        ? { path: args.path, external: true }
        : { path: args.path.replace(/^node:/, ''), namespace: LAZY_NAMESPACE },
    );
    b.onLoad({ filter: /.*/, namespace: LAZY_NAMESPACE }, (args) => ({
      contents: lazyBuiltinSource(args.path),
      loader: 'js',
    }));
  },
};

/** esbuild's namespace of the modules the CommonJS bundle leaves to the ES module build. */
const ESM_ONLY_NAMESPACE = 'flightrec-esm-only';

/**
 * esbuild options bundling the command line into one CommonJS file `outfile` (dist/cli.cjs),
 * the form V8 can be given a code cache for (src/cli/code-cache.ts): the same externals as
 * bundleOptions; strict mode, as the ES modules it comes from; `import.meta.url` the file's URL.
 * The terminal browser is left out (ink and yoga use top-level await): its import fails with a
 * clear error, and src/cli/start.ts runs every command line that may reach it from dist/cli.js.
 */
export function cjsBundleOptions({ root, entryPoint, outfile, sourcemap }) {
  const esm = bundleOptions({ root, entryPoints: [entryPoint], outdir: 'unused', sourcemap });
  delete esm.outdir;
  delete esm.chunkNames;
  return {
    ...esm,
    entryPoints: [entryPoint],
    outfile,
    splitting: false,
    format: 'cjs',
    banner: {
      js: "'use strict';\nconst __flightrecImportMetaUrl = require('node:url').pathToFileURL(__filename).href;",
    },
    define: { ...esm.define, 'import.meta.url': '__flightrecImportMetaUrl' },
    // better-sqlite3's JavaScript bundled too (a dozen files Node's loader would resolve, read and
    // compile without the cache); its addon is found in the installed package by `bindings`
    external: esm.external.filter((name) => name !== 'better-sqlite3'),
    alias: { ...esm.alias, bindings: './scripts/sqlite-addon.cjs' },
    plugins: [
      lazyBuiltins,
      {
        name: 'flightrec-esm-only',
        setup(b) {
          b.onResolve({ filter: /[/\\]tui[/\\]index\.ts$/ }, (args) => ({
            path: args.path,
            namespace: ESM_ONLY_NAMESPACE,
          }));
          b.onLoad({ filter: /.*/, namespace: ESM_ONLY_NAMESPACE }, () => ({
            contents:
              "throw new Error('the terminal browser is not in dist/cli.cjs: bin/flightrec.js runs browse and demo from dist/cli.js');",
            loader: 'js',
          }));
        },
      },
    ],
  };
}
