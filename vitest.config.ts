import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Three files at a time, also on two cores (vitest's default would be one: cores - 1): many
    // tests wait on loopback HTTP, child processes, PostgreSQL or tmux rather than compute.
    maxWorkers: 3,
    // a token per run naming the PostgreSQL templates the files share, and their removal
    globalSetup: ['test/global-setup.ts'],
    // Golden files are file snapshots (toMatchFileSnapshot): a missing or different one fails,
    // here and in CI; they are written only on request, with `npx vitest run -u`.
    update: 'none',
  },
});
