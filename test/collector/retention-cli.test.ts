/**
 * Retention end to end: `collect --simulate --retention-raw` prunes while recording, `db log`
 * shows what went, `db stats` the range held; the keys from file, environment and flags.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCollectorConfig } from '../../src/collector/config-load.ts';
import { memoryIo } from '../helpers/memory-io.ts';
import { runCli } from './helpers/run-cli.ts';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'flightrec-retention-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const START_MS = Date.parse('2026-01-01T00:00:00Z');
const NS = (ms: number): bigint => BigInt(ms) * 1_000_000n;

describe('retention while recording', () => {
  it('collect --simulate --retention-raw prunes between polls; db log and db stats show it', async () => {
    const db = join(dir, 'r.db');
    const io = memoryIo({ cwd: dir });
    const code = await runCli(
      ['--db', db, 'collect', '--simulate', '--for', '12m', '--connections', '10', '--retention-raw', '4m'],
      io,
    );
    expect(io.err()).not.toContain('flightrec:');
    expect(code).toBe(0);
    const sqlite = new Database(db, { readonly: true });
    sqlite.defaultSafeIntegers(true);
    // nothing older than the last pass's cut-off but what shares a connection batch with newer polls (8 frames of 30 s)
    const oldest = sqlite
      .prepare("SELECT min(started_at) FROM poll WHERE operation != 'ListKafkaConnections'")
      .pluck()
      .get() as bigint;
    const oldestConn = sqlite
      .prepare("SELECT min(started_at) FROM poll WHERE operation = 'ListKafkaConnections'")
      .pluck()
      .get() as bigint;
    sqlite.close();
    expect(oldest).toBeGreaterThanOrEqual(NS(START_MS + 7 * 60_000));
    expect(oldestConn).toBeGreaterThanOrEqual(NS(START_MS + 4 * 60_000));

    const log = memoryIo({ cwd: dir });
    expect(await runCli(['--db', db, '-o', 'json', 'db', 'log'], log)).toBe(0);
    const entries = (
      JSON.parse(log.out()) as { entries: { action: string; cluster: string; polls: number; cutoff: string }[] }
    ).entries;
    expect(entries.length).toBeGreaterThan(3);
    expect(entries.every((e) => e.action === 'retention-raw' && e.cluster === 'sim' && e.polls > 0)).toBe(true);
    expect(entries.at(-1)!.cutoff).toBe('2026-01-01T00:08:00Z');
    const text = memoryIo({ cwd: dir });
    expect(await runCli(['--db', db, 'db', 'log', '--limit', '2'], text)).toBe(0);
    expect(text.out().trim().split('\n')).toHaveLength(3);
    expect(text.out()).toMatch(/^2026-01-01T00:12:00Z +sim +retention-raw +2026-01-01T00:08:00Z/m);

    const stats = memoryIo({ cwd: dir });
    expect(await runCli(['--db', db, 'db', 'stats'], stats)).toBe(0);
    expect(stats.out()).toMatch(
      /held at each resolution\nraw +2026-01-01T00:0[4-8]:\d\dZ \.\. 2026-01-01T00:12:00Z \([4-8]m\)\n5m +-\n1h +-\n$/,
    );
  });

  it('db prune by hand is recorded in the log too', async () => {
    const db = join(dir, 'p.db');
    expect(
      await runCli(['--db', db, 'collect', '--simulate', '--for', '5m', '--connections', '5'], memoryIo({ cwd: dir })),
    ).toBe(0);
    const prune = memoryIo({ cwd: dir, now: () => START_MS + 10 * 60_000 });
    expect(await runCli(['--db', db, 'db', 'prune', '--older-than', '2026-01-01T00:03:00Z'], prune)).toBe(0);
    const log = memoryIo({ cwd: dir });
    expect(await runCli(['--db', db, '-o', 'json', 'db', 'log'], log)).toBe(0);
    const [entry] = (JSON.parse(log.out()) as { entries: Record<string, unknown>[] }).entries;
    expect(entry).toMatchObject({
      at: '2026-01-01T00:10:00Z',
      cluster: null,
      action: 'prune',
      cutoff: '2026-01-01T00:03:00Z',
    });
    expect(entry!.polls).toBeGreaterThan(0);
  });

  it('refuses a bad value naming the flag or variable', async () => {
    const db = join(dir, 'bad.db');
    const env = memoryIo({ cwd: dir, env: { FLIGHTREC_RETENTION_RAW: 'fortnight' } });
    expect(await runCli(['--db', db, 'collect', '--simulate', '--for', '1m'], env)).toBe(2);
    expect(env.err()).toContain('FLIGHTREC_RETENTION_RAW');
    const flag = memoryIo({ cwd: dir });
    expect(
      await runCli(['--db', db, 'collect', '--simulate', '--for', '1m', '--retention-max-size', '12XB'], flag),
    ).toBe(2);
    expect(flag.err()).toContain('--retention-max-size');
  });

  it('reads the keys from the file, the environment and the flags (flags > env > file); forever is null', () => {
    const file = { path: 'f.yaml', text: 'retention:\n  raw: 14d\n  rollups: 400d\n  maxSize: 20GiB\n' };
    const flags = { baseUrl: 'http://127.0.0.1:1' };
    expect(loadCollectorConfig({ file, env: {}, flags }).retention).toEqual({
      rawMs: 14 * 86_400_000,
      rollupsMs: 400 * 86_400_000,
      maxSizeBytes: 20 * 1024 ** 3,
    });
    const env = { FLIGHTREC_RETENTION_RAW: '7d', FLIGHTREC_RETENTION_MAX_SIZE: 'forever' };
    expect(
      loadCollectorConfig({ file, env, flags: { ...flags, retentionRaw: '2d', retentionRollups: '52w' } }).retention,
    ).toEqual({
      rawMs: 2 * 86_400_000,
      rollupsMs: 364 * 86_400_000,
      maxSizeBytes: null,
    });
    expect(loadCollectorConfig({ env: {}, flags }).retention).toEqual({
      rawMs: null,
      rollupsMs: null,
      maxSizeBytes: null,
    });
    expect(() =>
      loadCollectorConfig({ file: { path: 'f.yaml', text: 'retention:\n  raws: 1d\n' }, env: {}, flags }),
    ).toThrow(/retention\.raws: unknown key \(expected one of: raw, rollups, maxSize\)/);
  });
});
