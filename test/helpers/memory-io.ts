/** An in-memory CliIo for running commands in tests. */
import type { CliIo } from '../../src/cli/context.ts';
import { testCwd } from './test-cwd.ts';

/** What a sink was given, as text (a command may write UTF-8 bytes in chunks of whole characters). */
export function textOf(chunk: string | Uint8Array): string {
  return typeof chunk === 'string'
    ? chunk
    : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('utf8');
}

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
    stdout: { write: (s: string | Uint8Array) => (out += textOf(s)), isTTY: opts.isTTY ?? false },
    stderr: { write: (s: string | Uint8Array) => (err += textOf(s)), isTTY: false },
    env: opts.env ?? {},
    cwd: opts.cwd ?? testCwd(),
    now: opts.now ?? Date.now,
    signal: opts.signal ?? new AbortController().signal,
    ...(opts.createCronTask === undefined ? {} : { createCronTask: opts.createCronTask }),
    out: () => out,
    err: () => err,
  };
}
