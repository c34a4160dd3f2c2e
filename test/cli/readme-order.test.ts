/**
 * The README's first commands, in its order, on a fresh copy of the checkout: `npm install &&
 * npm start` (the demo, without a terminal: it prints the timeline), then `npm test`'s files that
 * run commands in the working directory. `npm start` leaves `flightrec-demo.db` there; the
 * tests must not see it (test/helpers/test-cwd.ts) and the missing-database message must still
 * say how to record one.
 *
 * The copy holds what a clone of this working tree would (the files git tracks and the new ones
 * it does not ignore), with this checkout's node_modules linked in place of `npm install`'s
 * download; `npm run prepare` is the build `npm install` runs.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_PG_ENV } from '../helpers/pg.ts';

const ROOT = resolve(import.meta.dirname, '../..');

/** The test files that run commands in the working directory (the one that failed after npm start first). */
const CWD_TESTS = [
  'test/cli/query.test.ts',
  'test/cli/help-errors.test.ts',
  'test/cli/launcher.test.ts',
  'test/cli/installation.test.ts',
];

interface Ran {
  readonly code: number | null;
  readonly out: string;
  readonly err: string;
}

/** The environment of a shell, without what this vitest run set for its own workers. */
function userEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || /^(VITEST|npm_|FLIGHTREC_)/i.test(k) || k === 'NODE_ENV' || k === 'TEST') continue;
    env[k] = v;
  }
  return { ...env, NO_COLOR: '1', ...extra };
}

/** Runs a command in `cwd` without blocking this event loop; stdin is not a terminal. */
function run(command: string, args: readonly string[], cwd: string, env: Record<string, string>): Promise<Ran> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.once('error', fail);
    child.once('close', (code) => done({ code, out, err }));
  });
}

/** The files of this working tree a clone of it would hold, or undefined when git cannot tell. */
function trackedFiles(): string[] | undefined {
  const r = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (r.status !== 0) return undefined;
  return r.stdout.split('\0').filter((f) => f !== '' && existsSync(join(ROOT, f)));
}

const files = trackedFiles();
const work = mkdtempSync(join(tmpdir(), 'flightrec-readme-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe.skipIf(files === undefined)('the README in its order, on a fresh checkout', () => {
  it('npm install && npm start, then npm test: the tests that use the working directory pass beside the demo recording', async () => {
    const clone = join(work, 'flightrec');
    for (const f of files!) {
      mkdirSync(dirname(join(clone, f)), { recursive: true });
      cpSync(join(ROOT, f), join(clone, f));
    }
    expect(existsSync(join(clone, 'flightrec-demo.db'))).toBe(false);
    symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'), 'dir');
    const env = userEnv({});

    // npm install: the packages (linked above), then its prepare script, the build
    const built = await run('npm', ['run', 'prepare', '--silent'], clone, env);
    expect(built.code, built.err).toBe(0);

    // npm start: the demo; not on a terminal, it prints the timeline and what to try next
    const started = await run('npm', ['start', '--silent'], clone, env);
    expect(started.code, started.err).toBe(0);
    expect(started.out).toContain('What to try next:');
    // in the checkout, run from it: npx finds the checkout's own flightrec
    expect(started.out).toMatch(/^ {2}npx flightrec --db flightrec-demo\.db browse --incident$/m);
    expect(readdirSync(clone)).toContain('flightrec-demo.db');

    // npm test (its files that run commands in the working directory; the rest do not look there)
    const tested = await run(
      process.execPath,
      [join(clone, 'node_modules/vitest/vitest.mjs'), 'run', ...CWD_TESTS],
      clone,
      // PGlite: these files need no PostgreSQL server
      { ...env, [TEST_PG_ENV]: 'pglite' },
    );
    expect(tested.code, `${tested.out}\n${tested.err}`.slice(-4000)).toBe(0);
    expect(tested.out).toMatch(new RegExp(`Test Files +${CWD_TESTS.length} passed`));
    // and they left nothing beside the demo's recording
    expect(readdirSync(clone).filter((f) => f.endsWith('.db'))).toEqual(['flightrec-demo.db']);
  }, 180_000);
});
