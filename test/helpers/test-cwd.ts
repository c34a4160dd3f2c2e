/**
 * The working directory of the commands a test runs without naming one: an empty directory of
 * the test file's own, never the checkout the tests run from. What a user leaves there (the
 * demo's flightrec-demo.db after `npm start`, a flightrec.db) must not change what a test sees,
 * and a test must not leave files there. Made on first use, removed after the file's tests.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onFileEnd } from './cleanup.ts';

let dir: string | undefined;
onFileEnd(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** The current test file's empty working directory. */
export function testCwd(): string {
  if (dir === undefined || !existsSync(dir)) dir = mkdtempSync(join(tmpdir(), 'flightrec-cwd-'));
  return dir;
}
