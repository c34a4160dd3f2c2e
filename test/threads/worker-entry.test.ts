/**
 * Worker threads started from a file (dist/, or the test run's bundles) do not inherit
 * `--input-type`: a process launched as `node --input-type=module -e ...` carries it, and Node
 * refuses it for such a worker (ERR_INPUT_TYPE_NOT_ALLOWED), so every PostgreSQL open there failed.
 * A process started with V8 flags (`node --max-old-space-size=4096 flightrec collect`), which Node
 * refuses in a worker's execArgv (ERR_WORKER_INVALID_EXEC_ARGV), starts its threads with the
 * module-loading options alone.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterAll, afterEach, expect, it } from 'vitest';
import { launchThread } from '../../src/threads/launch.ts';
import { threadExecArgv, workerEntry } from '../../src/threads/worker-entry.ts';

const dir = mkdtempSync(join(tmpdir(), 'flightrec-worker-entry-'));
const saved = [...process.execArgv];
afterEach(() => {
  process.execArgv.splice(0, process.execArgv.length, ...saved);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts a worker from a file with these options; resolves with its message or rejects with its error. */
function run(file: URL, execArgv: string[]): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const w = new Worker(file, { execArgv });
    w.once('message', (m) => {
      resolve(m);
      void w.terminate();
    });
    w.once('error', reject);
  });
}

it('a bundled worker leaves --input-type out of the options it inherits, and starts', async () => {
  writeFileSync(
    join(dir, 'probe.js'),
    "import { parentPort } from 'node:worker_threads'; parentPort.postMessage('up');",
  );
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
  const caller = pathToFileURL(join(dir, 'caller.js')).href;
  process.execArgv.push('--input-type=module', '--input-type', 'module');
  const entry = workerEntry(caller, ['./probe.js'], './probe.ts');
  expect(entry?.eval).toBe(false);
  expect(entry!.execArgv.some((a) => a.startsWith('--input-type'))).toBe(false);
  expect(entry!.execArgv).not.toContain('module');
  await expect(run(entry!.code as URL, entry!.execArgv)).resolves.toBe('up');
  // what it used to inherit: the worker fails at once
  await expect(run(entry!.code as URL, [...process.execArgv])).rejects.toMatchObject({
    code: 'ERR_INPUT_TYPE_NOT_ALLOWED',
  });
});

it('keeps only the module-loading options for a thread', () => {
  expect(
    threadExecArgv([
      '--max-old-space-size=4096',
      '--import',
      'tsx',
      '--stack-size',
      '--require=./a.cjs',
      '-r',
      './b.cjs',
      '--conditions=dev',
      '--enable-source-maps',
      '--max-semi-space-size=2',
      '--no-warnings',
      '--import',
    ]),
  ).toEqual([
    '--import',
    'tsx',
    '--require=./a.cjs',
    '-r',
    './b.cjs',
    '--conditions=dev',
    '--enable-source-maps',
    '--no-warnings',
  ]);
  expect(threadExecArgv([])).toEqual([]);
});

it('a process started with V8 flags starts its threads (without them), not an error', async () => {
  writeFileSync(
    join(dir, 'probe-v8.js'),
    "import { parentPort } from 'node:worker_threads'; parentPort.postMessage('v8');",
  );
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
  const entry = {
    code: pathToFileURL(join(dir, 'probe-v8.js')),
    eval: false,
    execArgv: ['--max-semi-space-size=2', '--no-warnings'],
  };
  // what Node says to these options in a worker
  expect(() => new Worker(entry.code, { execArgv: entry.execArgv })).toThrow(
    expect.objectContaining({ code: 'ERR_WORKER_INVALID_EXEC_ARGV' }),
  );
  const w = launchThread(entry);
  await expect(
    new Promise((resolve, reject) => {
      w.once('message', resolve);
      w.once('error', reject);
    }),
  ).resolves.toBe('v8');
  await w.terminate();
});
