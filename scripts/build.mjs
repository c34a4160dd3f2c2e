// Bundles the command line (and, lazily loaded, the TUI) into dist/ with esbuild.
// Runtime dependencies stay external, except ink and react: the TUI's chunk bundles them (and
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
import { readFileSync, rmSync } from 'node:fs';

const packing = ['pack', 'publish'].includes(process.env.npm_command ?? '');
if (packing && process.env.npm_lifecycle_event === 'prepare') process.exit(0);

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const bundled = new Set(['ink', 'react']);
const external = Object.keys(pkg.dependencies).filter((name) => !bundled.has(name));

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  // the workers are entries of their own, started as worker threads: the TUI's timeline
  // (dist/timeline-worker.js), the collector's rollups (dist/rollup-worker.js), the PostgreSQL
  // bridge (dist/pg-worker.js) and the collector's writes to a PostgreSQL server (dist/store-worker.js)
  entryPoints: {
    cli: 'src/cli/main.ts',
    'timeline-worker': 'src/tui/data/timeline-worker.ts',
    'rollup-worker': 'src/report/rollup/rollup-worker.ts',
    'pg-worker': 'src/db/pg/bridge-worker.ts',
    'store-worker': 'src/cli/store-worker.ts',
  },
  outdir: 'dist',
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
  sourcemap: packing ? false : 'linked',
  jsx: 'automatic',
  logLevel: 'warning',
});
