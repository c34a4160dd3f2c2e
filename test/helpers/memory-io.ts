/** An in-memory CliIo for running commands in tests. */
import type { CliIo } from '../../src/cli/context.ts';
import { testCwd } from './test-cwd.ts';

/**
 * A CliIo that captures stdout and stderr; `out()`/`err()` return what was written. Without `cwd`,
 * the commands run in the test file's own empty directory (test/helpers/test-cwd.ts), never the checkout.
 */
export function memoryIo(
  opts: {
    env?: Record<string, string>;
    cwd?: string;
    now?: () => number;
    signal?: AbortSignal;
    isTTY?: boolean;
    createCronTask?: CliIo['createCronTask'];
  } = {},
): CliIo & {
  out(): string;
  err(): string;
} {
  let out = '';
  let err = '';
  return {
    stdout: { write: (s: string) => (out += s), isTTY: opts.isTTY ?? false },
    stderr: { write: (s: string) => (err += s), isTTY: false },
    env: opts.env ?? {},
    cwd: opts.cwd ?? testCwd(),
    now: opts.now ?? Date.now,
    signal: opts.signal ?? new AbortController().signal,
    ...(opts.createCronTask === undefined ? {} : { createCronTask: opts.createCronTask }),
    out: () => out,
    err: () => err,
  };
}
