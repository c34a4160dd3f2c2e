// `npm run test:package`: the slow install test of the packed flightrec (test/package), kept out
// of `npm test` (whose vitest.config.ts includes only *.test.ts files).
import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: resolve(import.meta.dirname, '../..'),
  test: {
    include: ['test/package/**/*.package.ts'],
    testTimeout: 120_000,
    hookTimeout: 900_000,
    pool: 'forks',
  },
});
