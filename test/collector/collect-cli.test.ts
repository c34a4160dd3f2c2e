import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/index.ts';
import { memoryIo } from '../helpers/memory-io.ts';
import { closedLoopbackPort } from '../helpers/loopback-server.ts';
import { fakeCron } from '../helpers/fake-cron.ts';
import { runCli } from './helpers/run-cli.ts';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'flightrec-collect-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
const dbPath = (): string => join(dir, `t${++n}.db`);

interface PollRow {
  operation: string;
  target: string;
  ok: number;
  outcome: string;
  kind: string | null;
  http_status: number | null;
  message: string | null;
}

function polls(path: string): PollRow[] {
  const db = new Database(path, { readonly: true });
  try {
    return db
      .prepare('SELECT operation, target, ok, outcome, kind, http_status, message FROM poll ORDER BY id')
      .all() as PollRow[];
  } finally {
    db.close();
  }
}

describe('flightrec collect', () => {
  let sim: SimServer | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  it('--once polls every operation once and exits 0; nothing on stdout', async () => {
    sim = await startSimServer({ seed: 3, clock: 'manual', connections: 50 });
    const [link] = sim.describe().links;
    const db = dbPath();
    const io = memoryIo({ cwd: dir });
    const code = await runCli(
      ['--db', db, 'collect', '--base-url', sim.baseUrl, '--once', '--link', `${link}:orders`],
      io,
    );
    expect(io.err()).not.toContain('flightrec:');
    expect(code).toBe(0);
    expect(io.out()).toBe('');
    const rows = polls(db);
    expect(rows.map((r) => `${r.operation}:${r.target}`)).toEqual([
      'GetUpgradeStatus:',
      'ListKafkaConnections:',
      `GetShadowLink:${link}`,
      `ListShadowTopics:${link}`,
      `GetShadowTopic:${link}/orders`,
      'GetIcebergStatus:',
    ]);
    expect(
      io
        .err()
        .split('\n')
        .filter((l) => / ok /.test(l)),
    ).toHaveLength(6);
  });

  it('--once exits 3 when a poll failed, with the failures recorded', async () => {
    const port = await closedLoopbackPort();
    const db = dbPath();
    const cfg = join(dir, 'fast-retry.yaml');
    writeFileSync(cfg, 'retry: { maxAttempts: 2, baseDelay: 5ms }\n');
    const io = memoryIo({ cwd: dir });
    const code = await runCli(
      ['--db', db, '--config', cfg, 'collect', '--base-url', `http://127.0.0.1:${port}`, '--once'],
      io,
    );
    expect(code).toBe(3);
    const rows = polls(db);
    expect(rows).toHaveLength(6); // 3 operations (no shadow link named), 2 attempts each
    for (const r of rows) {
      expect(r).toMatchObject({ ok: 0, outcome: 'unavailable', kind: 'transport' });
      expect(r.message).toMatch(/connection refused/);
    }
    expect(io.err()).toMatch(/GetUpgradeStatus FAILED 1\/1 calls=2 .*unavailable \(transport\): connection refused/);
  });

  it('never writes a password given through the environment to the database or the output', async () => {
    const password = 'pw-Kx81-never-stored-QZ';
    sim = await startSimServer({
      seed: 5,
      clock: 'manual',
      connections: 30,
      auth: { kind: 'basic', username: 'flightrec', password },
    });
    const db = dbPath();
    const io = memoryIo({ cwd: dir, env: { ADMIN_PW: password } });
    const code = await runCli(
      [
        '--db',
        db,
        'collect',
        '--base-url',
        sim.baseUrl,
        '--username',
        'flightrec',
        '--password-env',
        'ADMIN_PW',
        '--once',
      ],
      io,
    );
    expect(code).toBe(0);
    expect(polls(db).every((r) => r.ok === 1)).toBe(true);
    // a wrong password too: the server's rejection must not carry it either
    const io2 = memoryIo({ cwd: dir, env: { FLIGHTREC_PASSWORD: `${password}-wrong` } });
    expect(
      await runCli(['--db', db, 'collect', '--base-url', sim.baseUrl, '--username', 'flightrec', '--once'], io2),
    ).toBe(3);
    expect(polls(db).some((r) => r.outcome === 'unauthenticated')).toBe(true);
    const needles = [
      password,
      Buffer.from(`flightrec:${password}`).toString('base64'),
      Buffer.from(`flightrec:${password}-wrong`).toString('base64'),
    ];
    for (const file of [db, `${db}-wal`, `${db}-shm`]) {
      if (!existsSync(file)) continue;
      const bytes = readFileSync(file);
      for (const needle of needles) expect(bytes.includes(Buffer.from(needle)), `${needle} in ${file}`).toBe(false);
    }
    for (const text of [io.out(), io.err(), io2.out(), io2.err()])
      for (const needle of needles) expect(text).not.toContain(needle);
  });

  it('--simulate --for records the simulated cluster in accelerated time and stops', async () => {
    const db = dbPath();
    const io = memoryIo({ cwd: dir });
    const started = Date.now();
    const code = await runCli(
      ['--db', db, 'collect', '--simulate', 'quiet', '--for', '3m', '--seed', '2', '--connections', '40'],
      io,
    );
    expect(code).toBe(0);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(io.out()).toBe('');
    const rows = polls(db);
    const count = (op: string): number => rows.filter((r) => r.operation === op).length;
    expect(count('ListKafkaConnections')).toBe(7); // t = 0, 30 s, ..., 180 s
    expect(count('GetUpgradeStatus')).toBe(4); // t = 0, 60 s, 120 s, 180 s
    expect(count('GetShadowLink')).toBeGreaterThan(0);
    expect(count('GetShadowTopic')).toBeGreaterThan(0);
    expect(rows.every((r) => r.ok === 1)).toBe(true);
    expect(io.err()).toMatch(
      /simulated cluster at http:\/\/127\.0\.0\.1:\d+ playing quiet; for 3m of simulated time, as fast as possible/,
    );
    expect(io.err()).toMatch(/2026-01-01T00:03:00Z sim ListKafkaConnections ok/);
  });

  it('--simulate without a scenario plays the plain world', async () => {
    const db = dbPath();
    const io = memoryIo({ cwd: dir });
    expect(await runCli(['--db', db, 'collect', '--simulate', '--for', '30s', '--connections', '10'], io)).toBe(0);
    expect(io.err()).toMatch(/simulated cluster at http:\/\/127\.0\.0\.1:\d+; for 30s of simulated time/);
    expect(polls(db).filter((r) => r.operation === 'ListKafkaConnections')).toHaveLength(2);
  });

  it('refuses bad usage with exit 2 and a message naming the flag', async () => {
    const io = memoryIo({ cwd: dir });
    expect(await runCli(['--db', dbPath(), 'collect', '--base-url', 'http://127.0.0.1:1', '--speed', '10'], io)).toBe(
      2,
    );
    expect(io.err()).toContain('--speed needs --simulate');
    const io2 = memoryIo({ cwd: dir });
    expect(
      await runCli(['--db', dbPath(), 'collect', '--base-url', 'http://127.0.0.1:1', '--timeout', 'soon'], io2),
    ).toBe(2);
    expect(io2.err()).toMatch(/--timeout: invalid duration "soon"/);
    const io3 = memoryIo({ cwd: dir });
    expect(
      await runCli(['--db', dbPath(), 'collect', '--base-url', 'http://127.0.0.1:1', '--username', 'u', '--once'], io3),
    ).toBe(2);
    expect(io3.err()).toContain(
      'no password for cluster default: set FLIGHTREC_PASSWORD, or passwordEnv/passwordFile in the config',
    );
    const io4 = memoryIo({ cwd: dir });
    expect(await runCli(['--db', dbPath(), 'collect', '--simulate', 'no-such-scenario', '--for', '1m'], io4)).toBe(2);
    expect(io4.err()).toMatch(/no built-in scenario "no-such-scenario"/);
  });

  it('runs until the signal aborts, then shuts down cleanly with exit 0', async () => {
    sim = await startSimServer({ seed: 4, clock: 'manual', connections: 20 });
    const db = dbPath();
    const ctl = new AbortController();
    const cron = fakeCron();
    const io = memoryIo({ cwd: dir, signal: ctl.signal, createCronTask: cron.createTask });
    const run = runCli(
      ['--db', db, 'collect', '--base-url', sim.baseUrl, '--schedule', 'upgrade=* * * * * *', '--jitter', '0'],
      io,
    );
    await cron.started(1);
    expect(cron.tasks.find((t) => t.started)?.expression).toBe('* * * * * *');
    // three seconds of the schedule, driven by the fake clock: one upgrade round each
    expect(await cron.advance(3000)).toBeGreaterThanOrEqual(3);
    ctl.abort();
    expect(await run).toBe(0);
    expect(polls(db).filter((r) => r.operation === 'GetUpgradeStatus')).toHaveLength(3);
    expect(cron.tasks.every((t) => t.destroyed)).toBe(true);
    cron.dispose();
  });
});
