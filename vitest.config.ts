import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Golden files are file snapshots (toMatchFileSnapshot): a missing or different one fails,
    // here and in CI; they are written only on request, with `npx vitest run -u`.
    update: 'none',
  },
});
