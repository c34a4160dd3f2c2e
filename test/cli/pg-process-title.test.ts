/**
 * A password in a `--db` URL on the command line is visible to every user of the host through
 * `ps` (/proc/PID/cmdline). The process entry point replaces its title with the command line
 * without it, as soon as it starts; this runs the real entry point in a child process and reads
 * what `ps` would show.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { processTitleWithoutPasswords } from '../../src/cli/db-target.ts';

const MAIN = pathToFileURL(resolve(import.meta.dirname, '../../src/cli/main.ts')).href;
const SECRET = 's3cretpw';

describe('the process title', () => {
  it('is the command line without database passwords, only when one is there', () => {
    expect(processTitleWithoutPasswords(['--db', `postgres://u:${SECRET}@h/db`, 'summary'])).toBe(
      'flightrec --db postgres://u@h/db summary',
    );
    expect(processTitleWithoutPasswords([`--db=postgresql://u:${SECRET}@h/db`, 'info'])).toBe(
      'flightrec --db=postgresql://u@h/db info',
    );
    expect(processTitleWithoutPasswords(['--db', 'postgres://u@h/db', 'summary'])).toBeUndefined();
    expect(processTitleWithoutPasswords(['--db', 'x.db', 'query', 'connections', 'user:pw@x'])).toBeUndefined();
  });

  it.skipIf(process.platform !== 'linux')(
    'hides the password from /proc/PID/cmdline of a running flightrec',
    async () => {
      // sim serves until stopped: time enough to look at the process from outside
      const code = `const { run } = await import(${JSON.stringify(MAIN)}); await run(process.argv.slice(1));`;
      const argv = ['--db', `postgres://u:${SECRET}@127.0.0.1:1/x`, 'sim', '--port', '0'];
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code, '--', ...argv], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const closed = new Promise<void>((done) => child.on('close', () => done()));
      try {
        await new Promise<void>((started, failed) => {
          child.stderr.on('data', (b: Buffer) => {
            if (b.toString().includes('serving until interrupted')) started();
          });
          child.on('close', (c) => failed(new Error(`sim ended early (${c})`)));
        });
        const cmdline = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').replace(/\0+/g, ' ').trim();
        expect(cmdline).toBe('flightrec --db postgres://u@127.0.0.1:1/x sim --port 0');
        expect(cmdline).not.toContain(SECRET);
      } finally {
        child.kill('SIGTERM');
        await closed;
      }
    },
    30_000,
  );
});
