import { defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './test/slow-first-sequencer.ts';

/**
 * The files that need the module graph of their own, which a worker running files without
 * isolation shares from file to file: those that mock a module (vi.mock; a module another file
 * loaded first would keep its real dependencies), and the browser's terminal test, which checks
 * what ink decides on its first import (in CI, where `CI` is set, a file that loaded ink before
 * would have it hold every frame back until exit; see src/tui/live-rendering.ts).
 */
const NEEDS_ISOLATION = [
  'test/collector/rollup-worker.test.ts',
  'test/reliability/export-atomic.test.ts',
  'test/reliability/export-enospc.test.ts',
  'test/tui/terminal.test.ts',
];

/** Every test file; each project below takes its part (an include set here would add to theirs). */
const TEST_FILES = ['test/**/*.test.ts', 'test/**/*.test.tsx'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Four files at a time, also on two cores (vitest's default would be one: cores - 1): many
    // tests wait on loopback HTTP, child processes, PostgreSQL or tmux rather than compute. A full
    // run on 2 cores beside other work (load 10-23) took 1,133 s with 3 (the tests got 50 % of a
    // core) and 777 s with 4 (load 16 on average; 71 %; 3.9 files running over the first 70 % of
    // the run, 3.3 over the rest): not the same load, so only a sign; a lightly loaded run is to do.
    maxWorkers: 4,
    // the slowest files first (test/slow-files.ts), also without vitest's cache of durations (CI):
    // the run then ends on short files, not on one long file while the other cores idle
    sequence: { sequencer: SlowFirstSequencer },
    // a token per run naming the PostgreSQL templates the files share, and their removal
    // (one setup per project below, sharing one run)
    globalSetup: ['test/global-setup.ts'],
    // the helpers' cleanups after each test and file, also in a worker that runs many files
    setupFiles: ['test/setup-file.ts'],
    // a stubbed environment variable never outlives its test, nor leaks into the next file
    unstubEnvs: true,
    // Golden files are file snapshots (toMatchFileSnapshot): a missing or different one fails,
    // here and in CI; they are written only on request, with `npx vitest run -u`.
    update: 'none',
    projects: [
      {
        // Without isolation a worker loads the sources once for all the files it runs, instead
        // of once per file (docs/architecture.md, "Tests and benchmarks"). Files leave no state
        // behind them (environment variables, listeners, processes, files, databases: see
        // test/helpers/cleanup.ts).
        extends: true,
        test: { name: 'shared', isolate: false, include: TEST_FILES, exclude: NEEDS_ISOLATION },
      },
      { extends: true, test: { name: 'isolated', include: NEEDS_ISOLATION } },
    ],
  },
});
