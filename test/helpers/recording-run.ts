/**
 * Where the recordings shared by the test files of one `vitest` run live
 * (test/fixtures/shared-recording.ts), removed by the run's global teardown.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The directory of the shared recordings of the run `token`. */
export function sharedRecordingsDirOf(token: string): string {
  return join(tmpdir(), `flightrec-recordings-${token}`);
}
