/**
 * Runs before each test file (vitest.config.ts `setupFiles`), also in a worker that runs many
 * files without isolation: the cleanups the helpers registered (test/helpers/cleanup.ts), after
 * each test and after the file's tests. Registered first, they run after the file's own hooks.
 */
import { afterAll, afterEach } from 'vitest';
import { runCleanups } from './helpers/cleanup.ts';

afterEach(() => runCleanups('test'));
afterAll(() => runCleanups('file'));
