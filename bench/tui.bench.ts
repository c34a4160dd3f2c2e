// The interactive browser: launch to first frame (the built CLI under a pseudo-terminal) and
// key press to next frame on 10,000 connections (in-process, ink in production mode).
// Run: node scripts/bench.mjs bench/tui.bench.ts   (needs `npm run build` and util-linux `script`)
//
// Data: the simulator recorded by the collector, as `flightrec collect --simulate` does: the
// `incident` scenario over 20 simulated minutes (the demo database, ~210 connections) for the
// first frame, and the `quiet` scenario with 10,000 connections over 2 minutes for the keys.
// FLIGHTREC_BIN overrides the CLI entry (default bin/flightrec.js).
import { spawn, spawnSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { runCollect } from '../src/cli/commands/collect.ts';
import type { CliIo } from '../src/cli/context.ts';
import { createHistoryReader, openDatabase } from '../src/db/index.ts';
import { HistorySource } from '../src/tui/data/history-source.ts';
import { pickTheme } from '../src/tui/theme.ts';
import { reportFigure, round, spreadOf } from './lib/figures.ts';

// The built CLI bundles React's production build; load the same one here (before React is imported),
// and draw in colour as on a terminal (chalk decides its level when ink loads it).
process.env['NODE_ENV'] = 'production';
process.env['FORCE_COLOR'] = '1';
const React = (await import('react')).default;
const { render } = await import('ink');
const { App } = await import('../src/tui/components/App.tsx');

const ROOT = resolve(import.meta.dirname, '..');
const BIN = resolve(ROOT, process.env['FLIGHTREC_BIN'] ?? 'bin/flightrec.js');
const RUNS = 9;
const KEYS = 60;
const dir = mkdtempSync(join(tmpdir(), 'flightrec-bench-tui-'));
const log = (s: string): void => void process.stderr.write(`${s}\n`);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

function p90(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(0.9 * s.length) - 1)] as number;
}

/** Records a scenario with the collector against the in-process simulator. */
async function record(path: string, scenario: string, forDuration: string, connections?: number): Promise<void> {
  let err = '';
  const io: CliIo = {
    stdout: { write: () => true },
    stderr: { write: (s: string) => (err += s) },
    env: {},
    cwd: ROOT,
    now: Date.now,
    signal: new AbortController().signal,
  };
  const extra = connections === undefined ? {} : { connections: String(connections) };
  const code = await runCollect(
    { link: [], schedule: [], simulate: scenario, for: forDuration, ...extra },
    { db: path },
    io,
  );
  if (code !== 0) throw new Error(`recording ${scenario} failed (${code}): ${err.slice(-1000)}`);
}

/** One launch: ms from spawning the CLI under a pseudo-terminal until the first frame's text is out. */
function firstFrame(db: string): Promise<number> {
  return new Promise((done, fail) => {
    const start = performance.now();
    const command = `stty rows 40 cols 120; exec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} browse --db ${JSON.stringify(db)}`;
    const child = spawn('script', ['-qfc', command, '/dev/null'], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, TERM: 'xterm-256color' },
    });
    let out = '';
    let at: number | undefined;
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      out += d;
      if (at === undefined && out.includes('Latest events') && out.includes('ListKafkaConnections')) {
        at = performance.now() - start;
        child.stdin.write('q');
      }
    });
    child.on('exit', () => {
      clearTimeout(timer);
      if (at === undefined) fail(new Error(`no first frame; output: ${out.slice(-500)}`));
      else done(at);
    });
  });
}

/** A terminal-sized TTY stream that reports each write. */
class Terminal extends EventEmitter {
  readonly isTTY = true;
  readonly columns = 120;
  readonly rows = 40;
  onWrite: (() => void) | undefined;
  write(_chunk: string): boolean {
    this.onWrite?.();
    return true;
  }
}

/** A keyboard stream ink reads keys from. */
class Keyboard extends EventEmitter {
  readonly isTTY = true;
  #data: string | null = null;
  press(data: string): void {
    this.#data = data;
    this.emit('readable');
  }
  read(): string | null {
    const d = this.#data;
    this.#data = null;
    return d;
  }
  setEncoding(): void {}
  setRawMode(): void {}
  resume(): void {}
  pause(): void {}
  ref(): void {}
  unref(): void {}
}

/** Key press to next frame on the connections view of `db`, ink as in production (throttled, not debug). */
async function keyToFrame(db: string): Promise<{ times: number[]; cpu: number[]; rows: string }> {
  const store = openDatabase(db, { readonly: true });
  const source = new HistorySource(createHistoryReader(store), { database: db });
  const stdout = new Terminal();
  const stdin = new Keyboard();
  const app = React.createElement(App, {
    source,
    theme: pickTheme({ noColor: false }),
    now: Date.now,
    start: { kind: 'connections' },
    save: () => '',
  });
  const instance = render(app, {
    stdout: stdout as unknown as NodeJS.WriteStream,
    stdin: stdin as unknown as NodeJS.ReadStream,
    stderr: stdout as unknown as NodeJS.WriteStream,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  // let the first frame and the timeline computed after it settle
  await sleep(3000);
  const press = (key: string): Promise<{ ms: number; cpuMs: number }> =>
    new Promise((done) => {
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      stdout.onWrite = () => {
        stdout.onWrite = undefined;
        const c = process.cpuUsage(c0);
        done({ ms: performance.now() - t0, cpuMs: (c.user + c.system) / 1000 });
      };
      stdin.press(key);
    });
  const times: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < KEYS; i++) {
    const key = i % 10 === 9 ? '\u001b[6~' : i % 2 === 0 ? 'j' : 'k'; // j, k, and a PgDn now and then
    const t = await press(key);
    if (i >= 5) {
      times.push(t.ms);
      cpu.push(t.cpuMs);
    }
    await sleep(60); // beyond ink's 33 ms frame throttle: each key is a fresh frame
  }
  const rows = String(source.stateAt('connections', source.instants().at(-1) ?? 0n).rows.length);
  instance.unmount();
  instance.cleanup();
  store.close();
  return { times, cpu, rows };
}

async function main(): Promise<void> {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run npm run build first`);
  const help = spawnSync(process.execPath, [BIN, '--help'], { encoding: 'utf8' }).stdout ?? '';
  if (!/^\s+browse\b/m.test(help)) throw new Error(`${BIN} has no browse command: register it and run npm run build`);
  if (spawnSync('script', ['--version']).status !== 0)
    throw new Error('util-linux `script` is needed for the pseudo-terminal');
  const demo = join(dir, 'demo.db');
  const big = join(dir, 'big.db');
  log('recording the incident scenario (20 simulated minutes) ...');
  await record(demo, 'incident', '20m');
  log('recording 10,000 connections (2 simulated minutes) ...');
  await record(big, 'quiet', '2m', 10_000);

  const launches: number[] = [];
  await firstFrame(demo); // warm the file cache
  for (let i = 0; i < RUNS; i++) launches.push(await firstFrame(demo));
  log(`first frame: ${launches.map((t) => t.toFixed(0)).join(' ')} ms`);
  reportFigure({
    name: 'tui.first_frame_ms',
    value: round(median(launches), 1),
    unit: 'ms',
    goal: { op: '<=', value: 600 },
    spread: spreadOf(launches),
    note: `median of ${RUNS} launches of \`browse\` on the demo database under script(1), 120x40; p90 ${round(p90(launches), 1)} ms; fastest ${round(Math.min(...launches), 1)} ms; load average ${round(loadavg()[0] ?? 0, 1)} on ${cpus().length} CPUs`,
  });

  const keys = await keyToFrame(big);
  log(`key to frame: median ${median(keys.times).toFixed(1)} ms, p90 ${p90(keys.times).toFixed(1)} ms`);
  reportFigure({
    name: 'tui.key_to_frame_10k_ms',
    value: round(median(keys.times), 2),
    unit: 'ms',
    goal: { op: '<=', value: 50 },
    note: `median over ${keys.times.length} keys (j, k, PgDn) on the connections view with ${keys.rows} rows; p90 ${round(p90(keys.times), 2)} ms; CPU per key ${round(median(keys.cpu), 1)} ms; load average ${round(loadavg()[0] ?? 0, 1)} on ${cpus().length} CPUs`,
  });
}

try {
  await main();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
