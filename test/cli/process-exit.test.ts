/**
 * The process entry point (`run()`, what bin/flightrec.js calls) in a real child process whose
 * stdout is a pipe: a large output arrives whole before the process exits, and a reader that
 * stops early (`| head`) ends it quietly.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordScenario, runFlightrec, tempDir } from '../fixtures/timeline/run-cli.ts';

const MAIN = pathToFileURL(resolve(import.meta.dirname, '../../src/cli/main.ts')).href;

/** Runs `run(argv)` from the sources in a child process; stdout through a pipe, read until `limit` bytes. */
function runChild(
  argv: readonly string[],
  limit = Infinity,
): Promise<{ code: number | null; out: Buffer; err: string }> {
  const code = `const { run } = await import(${JSON.stringify(MAIN)}); await run(JSON.parse(process.env.FLIGHTREC_TEST_ARGV));`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    env: { ...process.env, FLIGHTREC_TEST_ARGV: JSON.stringify(argv), NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out: Buffer[] = [];
  let size = 0;
  let err = '';
  child.stdout.on('data', (b: Buffer) => {
    out.push(b);
    size += b.length;
    if (size >= limit) child.stdout.destroy(); // the reader goes away, like `| head -c LIMIT`
  });
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  return new Promise((done) => child.on('close', (c) => done({ code: c, out: Buffer.concat(out), err })));
}

const tmp = tempDir();
const db = tmp.path('history.db');
beforeAll(async () => {
  await recordScenario(db, 'connection-storm', '6m');
}, 120_000);
afterAll(() => tmp.remove());

describe('the flightrec process', () => {
  it('writes a large output through a pipe whole before it exits', async () => {
    const argv = [
      '--db',
      db,
      '-o',
      'ndjson',
      'query',
      'connections',
      '--since',
      '2026-01-01T00:00:00Z',
      '--until',
      '2026-01-01T00:06:00Z',
    ];
    const expected = (await runFlightrec(argv)).out;
    expect(Buffer.byteLength(expected)).toBeGreaterThan(1 << 20); // far beyond a pipe's buffer
    const child = await runChild(argv);
    expect(child.err).toBe('');
    expect(child.code).toBe(0);
    expect(child.out.length).toBe(Buffer.byteLength(expected));
    expect(child.out.toString()).toBe(expected);
  }, 120_000);

  it('ends quietly when the reader stops early', async () => {
    const argv = [
      '--db',
      db,
      '-o',
      'ndjson',
      'query',
      'connections',
      '--since',
      '2026-01-01T00:00:00Z',
      '--until',
      '2026-01-01T00:06:00Z',
    ];
    const child = await runChild(argv, 4096);
    expect(child.err).toBe('');
    expect(child.code).toBe(0);
  }, 120_000);
});
