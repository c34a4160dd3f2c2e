/**
 * The real-time path an operator takes first, as docs/operations.md tells it ("Trying it on the
 * simulated cluster, in real time"): `flightrec sim` in one process, `flightrec collect` with a
 * config file in another, both on the wall clock, for a minute; then the timeline of that
 * recording holds no false alarm (nothing at warn or above: the plain world has no incident) and
 * no event before its first poll. The one test that takes a minute of wall time.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { parseTimestamp } from '../../src/api/codec/timestamp.ts';
import { createHistoryReader, openDatabase } from '../../src/db/index.ts';
import { runFlightrec, tempDir } from '../fixtures/timeline/run-cli.ts';
import { childArgs } from '../reliability/support/child-script.ts';

const WALL_MS = 62_000;

/**
 * Starts `flightrec ARGV` from the sources in a child process: run() of src/cli/main.ts (what
 * bin/flightrec.js runs), bundled (test/reliability/support/child-script.ts), which starts in
 * seconds less than through tsx on a loaded machine; paths in ARGV are absolute.
 */
async function flightrec(argv: readonly string[]): Promise<{
  child: ChildProcess;
  out: () => string;
  err: () => string;
  exit: Promise<number | null>;
}> {
  const child = spawn(process.execPath, [...(await childArgs('run-child.ts')), ...argv], {
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (err += b.toString()));
  const exit = new Promise<number | null>((done) => child.on('close', (c) => done(c)));
  return { child, out: () => out, err: () => err, exit };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const tmp = tempDir();
const running: ChildProcess[] = [];
afterAll(() => {
  for (const c of running) if (c.exitCode === null) c.kill('SIGKILL');
  tmp.remove();
});

describe('a real-time recording of the simulated cluster', () => {
  it('records a minute without a false alarm and without an event before its first poll', async () => {
    // 1. the simulated cluster, on the wall clock (speed 1, the default)
    const sim = await flightrec(['sim', '--port', '0']);
    running.push(sim.child);
    for (let i = 0; i < 300 && !sim.err().includes('serving until interrupted'); i++) await sleep(50);
    const lines = sim.out().trim().split('\n');
    const baseUrl = lines[0]!;
    expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(lines).toContain('link dr-primary');
    expect(lines).toContain('topic dr-primary/payments');

    // 2. the config file of the docs, pointed at it
    const config = tmp.path('lab.yaml');
    writeFileSync(
      config,
      [
        'schedules:',
        '  connections: "*/10 * * * * *"',
        '  shadow: "*/10 * * * * *"',
        '  iceberg: "*/10 * * * * *"',
        '  upgrade: "*/10 * * * * *"',
        'clusters:',
        '  - name: lab',
        `    baseUrl: ${baseUrl}`,
        '    shadowLinks:',
        '      - name: dr-primary',
        '        topics: [orders, payments]',
        '      - analytics-mirror',
        '',
      ].join('\n'),
    );

    // 3. record for a minute of wall time, then stop the collector as Ctrl-C would
    const db = tmp.path('lab.db');
    const collect = await flightrec(['collect', '--config', config, '--db', db]);
    running.push(collect.child);
    // a minute of recording from its first round (the process takes a moment to start on a busy machine)
    for (let i = 0; i < 600 && !/ lab \w+ ok /.test(collect.err()); i++) await sleep(50);
    await sleep(WALL_MS);
    collect.child.kill('SIGINT');
    expect(await collect.exit, collect.err().slice(-2000)).toBe(0);
    sim.child.kill('SIGTERM');
    expect(await sim.exit).toBe(0);

    const store = openDatabase(db, { readonly: true });
    const rows = createHistoryReader(store)
      .polls({})
      .map((p) => ({ time: p.startTime, operation: p.operation, outcome: p.outcome }));
    store.close();
    expect(
      rows.filter((p) => p.operation === 'ListKafkaConnections' && p.outcome === 'ok').length,
    ).toBeGreaterThanOrEqual(5);
    expect(rows.filter((p) => p.outcome !== 'ok')).toEqual([]);
    const first = rows.reduce((t, p) => (p.time < t ? p.time : t), rows[0]!.time);
    const last = rows.reduce((t, p) => (p.time > t ? p.time : t), rows[0]!.time);
    expect(Number(last - first) / 1e9).toBeGreaterThanOrEqual(50);

    // the timeline of that recording
    const t = await runFlightrec(['--db', db, '-o', 'json', 'timeline']);
    expect(t.code).toBe(0);
    const timeline = JSON.parse(t.out) as {
      events: { kind: string; severity: string; entity: string; start: string; description: string }[];
    };
    const loud = timeline.events.filter((e) => e.severity !== 'info');
    expect(loud.map((e) => `${e.severity} ${e.kind} ${e.entity} ${e.start}: ${e.description}`)).toEqual([]);
    const early = timeline.events.filter((e) => parseTimestamp(e.start) < first);
    expect(early.map((e) => `${e.kind} ${e.entity} ${e.start}`)).toEqual([]);
  }, 180_000);
});
