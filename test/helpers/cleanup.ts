/**
 * Cleanups that helper modules register once, run after every test or every test file by the
 * setup file (test/setup-file.ts). A hook a helper registered at its top level would run for the
 * first file that imports it only: without isolation (vitest.config.ts) a worker evaluates a
 * helper module once and runs many files with it, while setup files run again for each file.
 */

type Cleanup = () => unknown;

const afterTest = new Set<Cleanup>();
const afterFile = new Set<Cleanup>();

/** Runs `fn` after each test of every file that runs after this call (as an `afterEach` would). */
export function onTestEnd(fn: Cleanup): void {
  afterTest.add(fn);
}

/** Runs `fn` after the tests of every file that runs after this call (as an `afterAll` would). */
export function onFileEnd(fn: Cleanup): void {
  afterFile.add(fn);
}

/** Runs the cleanups of one kind, every one even when some fail; then throws what failed. */
export async function runCleanups(kind: 'test' | 'file'): Promise<void> {
  const failures: unknown[] = [];
  for (const fn of kind === 'test' ? afterTest : afterFile) {
    try {
      await fn();
    } catch (err) {
      failures.push(err);
    }
  }
  if (failures.length === 1) throw failures[0];
  if (failures.length > 1) throw new AggregateError(failures, `${failures.length} cleanups after the ${kind} failed`);
}
