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

/**
 * drizzle-orm's entry points that the sources import. In the CommonJS bundle each is a stand-in
 * (lazyDrizzleSource) for the one in DRIZZLE_BUNDLE, a file of its own beside dist/cli.cjs that
 * is loaded on first use: only a writer uses drizzle (the migrator, the schema's tables), and
 * its code in dist/cli.cjs (about 200 KB, its modules' bodies run at every start, 150 KB of the
 * code cache) cost every read about 10 ms of CPU and 470 page faults to start.
 */
export const DRIZZLE_ENTRIES = [
  'drizzle-orm',
  'drizzle-orm/sqlite-core',
  'drizzle-orm/better-sqlite3',
  'drizzle-orm/better-sqlite3/migrator',
  'drizzle-orm/pg-core',
  'drizzle-orm/node-postgres',
  'drizzle-orm/node-postgres/migrator',
  'drizzle-orm/pglite',
  'drizzle-orm/pglite/migrator',
];

/** The file beside dist/cli.cjs holding drizzle-orm for it (built from drizzleBundleEntry). */
export const DRIZZLE_BUNDLE = 'drizzle.cjs';

/**
 * The source of DRIZZLE_BUNDLE's entry: a getter per entry point that initialises its modules
 * when first read (PGlite, an optional peer, is required only for a pglite:// target).
 */
export function drizzleBundleEntry() {
  return [
    "'use strict';",
    ...DRIZZLE_ENTRIES.map(
      (name) =>
        `Object.defineProperty(exports, ${JSON.stringify(name)}, { get: () => require(${JSON.stringify(name)}), enumerable: true });`,
    ),
    '',
  ].join('\n');
}

/** The stand-in for the drizzle-orm entry point `name` in dist/cli.cjs: a getter per export that loads DRIZZLE_BUNDLE. */
export function lazyDrizzleSource(name) {
  const keys = Object.keys(createRequire(import.meta.url)(name));
  return [
    `let loaded;`,
    `const load = () => (loaded ??= require(${JSON.stringify(`./${DRIZZLE_BUNDLE}`)})[${JSON.stringify(name)}]);`,
    `const lazy = {};`,
    `for (const key of ${JSON.stringify(keys)}) Object.defineProperty(lazy, key, { get: () => load()[key], enumerable: true });`,
    `module.exports = lazy;`,
    '',
  ].join('\n');
}

/** esbuild's namespace of the stand-ins for DRIZZLE_ENTRIES. */
const DRIZZLE_NAMESPACE = 'flightrec-lazy-drizzle';

/** The esbuild plugin putting the stand-ins of lazyDrizzleSource in place of DRIZZLE_ENTRIES. */
const lazyDrizzle = {
  name: 'flightrec-lazy-drizzle',
  setup(b) {
    const entries = new Set(DRIZZLE_ENTRIES);
    b.onResolve({ filter: /^drizzle-orm(\/|$)/ }, (args) => {
      if (!entries.has(args.path))
        throw new Error(`${args.path}: add it to DRIZZLE_ENTRIES (scripts/bundle-options.mjs)`);
      return { path: args.path, namespace: DRIZZLE_NAMESPACE };
    });
    b.onResolve({ filter: new RegExp(`^\\./${DRIZZLE_BUNDLE.replace('.', '\\.')}$`) }, (args) =>
      args.namespace === DRIZZLE_NAMESPACE ? { path: args.path, external: true } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: DRIZZLE_NAMESPACE }, (args) => ({
      contents: lazyDrizzleSource(args.path),
      loader: 'js',
    }));
  },
};

/**
 * esbuild options bundling DRIZZLE_BUNDLE (`outfile`) for dist/cli.cjs: drizzle-orm and what it
 * imports, the same externals as cjsBundleOptions (better-sqlite3's JavaScript bundled too).
 */
export function drizzleBundleOptions({ root, outfile, sourcemap }) {
  const cjs = cjsBundleOptions({ root, entryPoint: 'src/cli/main.ts', outfile, sourcemap });
  delete cjs.entryPoints;
  return {
    ...cjs,
    stdin: { contents: drizzleBundleEntry(), resolveDir: new URL('.', root).pathname, loader: 'js' },
    banner: { js: "'use strict';" },
    define: { 'process.env.NODE_ENV': '"production"' },
    // drizzle's ES modules (each entry's modules initialised when first required, as lazy modules)
    conditions: ['import'],
    mainFields: ['module', 'main'],
    plugins: [],
  };
}

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
      lazyDrizzle,
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
