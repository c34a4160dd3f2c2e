/**
 * `flightrec` as a real child process (`node bin/flightrec.js ARGV`, the built CLI in dist/):
 * its stderr lines with the wall time each arrived, a wait for a line, and its exit. Every
 * process started here is SIGKILLed after the file's tests if it is still running.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { onFileEnd } from './cleanup.ts';
import { testCwd } from './test-cwd.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = resolve(ROOT, 'bin/flightrec.js');

/** A stderr line and when (Date.now()) it arrived. */
export interface TimedLine {
  readonly at: number;
  readonly text: string;
}

/** A running flightrec process. */
export interface FlightrecProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** stderr lines so far, each with its arrival time */
  readonly lines: TimedLine[];
  /** stderr so far, as one text */
  err(): string;
  /** stdout so far */
  out(): string;
  /** the first line (from line `from` on) matching `pattern`, waiting up to `timeoutMs` */
  waitFor(pattern: RegExp, timeoutMs: number, from?: number): Promise<TimedLine>;
  /** exit code (null when killed by a signal) and signal */
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const running = new Set<ChildProcess>();
onFileEnd(() => {
  for (const c of running) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  running.clear();
});

/** Starts `node bin/flightrec.js ARGV` (needs `npm run build`) in the file's empty directory (test-cwd.ts); paths in ARGV should be absolute. */
export function startFlightrec(argv: readonly string[], env: Readonly<Record<string, string>> = {}): FlightrecProcess {
  if (!existsSync(resolve(ROOT, 'dist/cli.js'))) throw new Error('dist/cli.js is missing: run npm run build first');
  const child = spawn(process.execPath, [BIN, ...argv], {
    cwd: testCwd(),
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  const lines: TimedLine[] = [];
  let partial = '';
  let out = '';
  const waiters = new Set<() => void>();
  let exited = false;
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => {
    const at = Date.now();
    const parts = (partial + b.toString()).split('\n');
    partial = parts.pop() ?? '';
    for (const text of parts) lines.push({ at, text });
    for (const w of waiters) w();
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.on('close', (code, signal) => {
      running.delete(child);
      exited = true;
      if (partial !== '') lines.push({ at: Date.now(), text: partial });
      partial = '';
      for (const w of waiters) w();
      done({ code, signal });
    }),
  );
  const err = (): string => lines.map((l) => `${l.text}\n`).join('') + partial;
  const waitFor = (pattern: RegExp, timeoutMs: number, from = 0): Promise<TimedLine> =>
    new Promise((done, fail) => {
      const check = (): boolean => {
        const hit = lines.slice(from).find((l) => pattern.test(l.text));
        if (hit === undefined) {
          if (!exited) return false;
          fail(
            new Error(`flightrec (pid ${child.pid}) exited before a line matched ${pattern}:\n${err().slice(-3000)}`),
          );
          return true;
        }
        done(hit);
        return true;
      };
      if (check()) return;
      const timer = setTimeout(() => {
        waiters.delete(w);
        fail(new Error(`no line matched ${pattern} within ${timeoutMs} ms (pid ${child.pid}):\n${err().slice(-3000)}`));
      }, timeoutMs);
      const w = (): void => {
        if (!check()) return;
        clearTimeout(timer);
        waiters.delete(w);
      };
      waiters.add(w);
    });
  return { child, pid: child.pid!, lines, err, out: () => out, waitFor, exit };
}
