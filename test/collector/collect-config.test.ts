/**
 * `collect` start-up: every section of the config is checked before anything is created (a
 * failed check leaves no database file behind), in the user's terms; the connections filter is
 * checked against the server dialect; the start-up lines say what will be polled, how often and
 * into which database; and a second `--once` on a database whose cluster another collector holds
 * refuses with a clear message.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCollectorConfig, type CollectFlags } from '../../src/collector/config-load.ts';
import { openDatabase, sqliteLeases } from '../../src/db/index.ts';
import { startSimServer, type SimServer } from '../../src/sim/index.ts';
import { memoryIo } from '../helpers/memory-io.ts';
import { runCli } from './helpers/run-cli.ts';

let dir: string;
let sim: SimServer;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'flightrec-collect-config-'));
  sim = await startSimServer({ seed: 3, clock: 'manual', connections: 20 });
});
afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

let n = 0;
const dbPath = (): string => join(dir, `c${++n}.db`);

function configFile(text: string): string {
  const path = join(dir, `config-${++n}.yaml`);
  writeFileSync(path, text);
  return path;
}

async function collect(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; err: string; db: string }> {
  const db = dbPath();
  const io = memoryIo({ cwd: dir, env });
  const code = await runCli(['--db', db, ...args], io);
  return { code, err: io.err(), db };
}

const load = (file: string, flags: CollectFlags = {}) =>
  loadCollectorConfig({ file: { text: file, path: 'f.yaml' }, env: {}, flags });

describe('collect refuses a bad configuration before it creates anything', () => {
  const cases: [string, string[], Record<string, string>, RegExp][] = [
    [
      'a missing password',
      ['collect', '--base-url', 'http://127.0.0.1:1', '--username', 'u', '--once'],
      {},
      /no password for cluster default: set FLIGHTREC_PASSWORD, or passwordEnv\/passwordFile in the config/,
    ],
    [
      'a password variable named but unset',
      ['collect', '--base-url', 'http://127.0.0.1:1', '--username', 'u', '--password-env', 'NOPE', '--once'],
      {},
      /the variable NOPE \(named by --password-env or FLIGHTREC_PASSWORD_ENV\) is not set/,
    ],
    [
      'an unreadable CA file',
      ['collect', '--base-url', 'https://127.0.0.1:1', '--ca-file', '/nonexistent/ca.pem', '--once'],
      {},
      /cannot read tls\.caFile \/nonexistent\/ca\.pem/,
    ],
    [
      'a link name with a slash',
      ['collect', '--base-url', 'http://127.0.0.1:1', '--link', 'a/b:x', '--once'],
      {},
      /--link: "a\/b" cannot be a shadow link name/,
    ],
    [
      'a topic the API cannot have',
      ['collect', '--base-url', 'http://127.0.0.1:1', '--link', 'a:../x', '--once'],
      {},
      /--link: "\.\.\/x" cannot be a topic name/,
    ],
    [
      'a timeout no timer can wait',
      ['collect', '--base-url', 'http://127.0.0.1:1', '--timeout', '99999999999h', '--once'],
      {},
      /^flightrec: --timeout: 99999999999h is too long: at most 24d20h31m23\.647s\n$/,
    ],
  ];
  for (const [name, args, env, message] of cases) {
    it(`${name}: exit 2, the user's words, no database file`, async () => {
      const r = await collect(args, env);
      expect(r.err).toMatch(message);
      expect(r.err).not.toMatch(/timeoutMs|\.auth\.passwordEnv|--base-url\.auth/);
      expect(r.code).toBe(2);
      expect(existsSync(r.db)).toBe(false);
    });
  }

  it('a typo in thresholds fails collect at start, naming the key', async () => {
    const file = configFile(
      `clusters:\n  - baseUrl: ${sim.baseUrl}\nthresholds:\n  connections:\n    stormMinOpen: 30\n`,
    );
    const r = await collect(['--config', file, 'collect', '--once']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(
      /thresholds\.connections\.stormMinOpen: unknown key \(expected one of: stormWindow, stormMinOpens/,
    );
    expect(existsSync(r.db)).toBe(false);
  });

  it('a connections filter the server dialect refuses: exit 2 with the caret display', async () => {
    const file = configFile(
      `clusters:\n  - baseUrl: ${sim.baseUrl}\n    connections:\n      filter: 'node_id = 1 OR node_id = 2'\n`,
    );
    const r = await collect(['--config', file, 'collect', '--once']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('cluster default: connections.filter is not accepted by the cluster (server dialect):');
    expect(r.err).toMatch(/\n {2}node_id = 1 OR node_id = 2\n {2}\s*\^/);
    expect(existsSync(r.db)).toBe(false);
  });
});

describe('config values the docs promise', () => {
  it('jitter: 0 switches the jitter off', () => {
    expect(load('jitter: 0\nclusters: [{ baseUrl: "http://127.0.0.1:1" }]\n').jitterMs).toBe(0);
    expect(load('jitter: "0"\nclusters: [{ baseUrl: "http://127.0.0.1:1" }]\n').jitterMs).toBe(0);
  });

  it('accepts five-field cron (minute first, at second 0) as well as six-field', () => {
    const c = load(
      'schedules:\n  connections: "*/5 * * * *"\n  upgrade: "0 */5 * * * *"\nclusters: [{ baseUrl: "http://127.0.0.1:1" }]\n',
    );
    expect(c.clusters[0]!.schedules.ListKafkaConnections).toBe('*/5 * * * *');
    expect(() => load('schedules:\n  connections: "* * * *"\nclusters: [{ baseUrl: "http://127.0.0.1:1" }]\n')).toThrow(
      /must have six fields \(second minute hour day month weekday\) or five \(minute hour day month weekday\), got 4/,
    );
  });

  it('sizes for the answer limit, the decode budget and held polls', () => {
    const c = load(
      'maxHeldMemory: 64MiB\nmaxAnswerSize: 10MB\nclusters: [{ baseUrl: "http://127.0.0.1:1", maxDecodeMemory: 1GiB }]\n',
    );
    expect(c.maxHeldBytes).toBe(64 * 1024 * 1024);
    expect(c.clusters[0]).toMatchObject({ maxAnswerBytes: 10_000_000, maxParseBytes: 1024 ** 3 });
    expect(() => load('maxAnswerSize: lots\n')).toThrow(/maxAnswerSize: must be a size such as 128MiB/);
  });
});

describe('collect says what it will do', () => {
  it('one start-up line per cluster, and why the shadow operations are skipped with --once', async () => {
    const r = await collect(['collect', '--base-url', sim.baseUrl, '--once']);
    expect(r.code).toBe(0);
    const lines = r.err.split('\n');
    expect(lines[0]).toBe(
      `default: polling ${sim.baseUrl} into ${r.db}: GetUpgradeStatus, ListKafkaConnections, GetIcebergStatus once`,
    );
    expect(lines[1]).toBe(
      'default: skipped GetShadowLink, ListShadowTopics, GetShadowTopic: no shadow link is configured (the API has no operation that lists them): name them with --link LINK[:TOPIC,...] or shadowLinks in the config',
    );
  });

  it('--once on a database whose cluster another collector records: exit 1, and nothing polled', async () => {
    const db = dbPath();
    const holder = openDatabase(db);
    await sqliteLeases(holder.sqlite).acquire('default', 'host-a pid 42', Date.now(), 30_000);
    holder.close();
    const served = sim.served();
    const io = memoryIo({ cwd: dir });
    const code = await runCli(['--db', db, 'collect', '--base-url', sim.baseUrl, '--once'], io);
    expect(code).toBe(1);
    expect(io.err()).toContain(
      'default: another collector (host-a pid 42) is recording this cluster into this database',
    );
    expect(io.err()).toContain(
      `flightrec: another collector is recording default into ${db}; --once does not wait for it`,
    );
    expect(sim.served()).toBe(served);
  });
});
