/**
 * The simulated cluster's world start: `flightrec sim` starts at the wall-clock time (or
 * `--start`), so that the values it reports agree with a collector's poll times; `collect
 * --simulate` keeps the fixed start when accelerated and takes `--start`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerSim } from '../../src/cli/commands/sim.ts';
import { parseTimestamp } from '../../src/api/codec/timestamp.ts';
import { runCli } from '../collector/helpers/run-cli.ts';
import { memoryIo } from '../helpers/memory-io.ts';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'flightrec-start-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const WALL = Date.UTC(2031, 4, 6, 7, 8, 9); // the injected wall clock

/** Runs `sim` with args until its topics are listed; returns the base URL and a stop function. */
async function serve(args: string[]): Promise<{ url: string; err: () => string; stop: () => Promise<void> }> {
  const abort = new AbortController();
  const io = memoryIo({ signal: abort.signal, now: () => WALL });
  const program = new Command('flightrec').exitOverride();
  registerSim(program, io, () => undefined);
  const running = program.parseAsync(['sim', '--connections', '5', ...args], { from: 'user' });
  for (let i = 0; i < 300 && !io.err().includes('serving'); i++) await new Promise((r) => setTimeout(r, 10));
  return {
    url: io.out().split('\n')[0]!,
    err: io.err,
    stop: async () => {
      abort.abort();
      await running;
    },
  };
}

async function refreshTimes(url: string): Promise<bigint[]> {
  const res = await fetch(`${url}/platform.core.admin.v2.ShadowLinkService/ListShadowTopics`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'connect-protocol-version': '1' },
    body: JSON.stringify({ shadowLinkName: 'dr-primary' }),
  });
  const body = (await res.json()) as {
    shadowTopics: { status: { partitionInformation: { sourceLastUpdatedTimestamp: string }[] } }[];
  };
  return body.shadowTopics.flatMap((t) =>
    t.status.partitionInformation.map((p) => parseTimestamp(p.sourceLastUpdatedTimestamp)),
  );
}

describe('the simulated world start', () => {
  it('flightrec sim starts at the wall-clock time: the times it reports are around now, not 2026-01-01', async () => {
    const s = await serve([]);
    try {
      expect(s.err()).toContain('world start 2031-05-06T07:08:09Z');
      const wall = BigInt(WALL) * 1_000_000n;
      const times = await refreshTimes(s.url);
      expect(times.length).toBeGreaterThan(0);
      // refreshed within the last minute of the wall clock, never months before it
      for (const t of times) expect(Number(wall - t) / 1e9).toBeLessThan(60);
    } finally {
      await s.stop();
    }
  });

  it('flightrec sim --start chooses another start', async () => {
    const s = await serve(['--start', '2026-01-01T00:00:00Z']);
    try {
      expect(s.err()).toContain('world start 2026-01-01T00:00:00Z');
      for (const t of await refreshTimes(s.url)) expect(t).toBeLessThan(parseTimestamp('2026-01-01T00:01:00Z'));
    } finally {
      await s.stop();
    }
  });

  it('refuses a bad --start with a usage error naming the flag', async () => {
    for (const bad of ['soon', '1960-01-01T00:00:00Z']) {
      const program = new Command('flightrec').exitOverride();
      registerSim(program, memoryIo(), () => undefined);
      await expect(program.parseAsync(['sim', '--start', bad], { from: 'user' })).rejects.toThrow(/--start/);
    }
  });

  it('collect --simulate keeps 2026-01-01 when accelerated, and takes --start (for a demo that ends now)', async () => {
    const first = (db: string): bigint => {
      const sqlite = new Database(db, { readonly: true });
      try {
        return sqlite.prepare('SELECT min(started_at) FROM poll').safeIntegers().pluck().get() as bigint;
      } finally {
        sqlite.close();
      }
    };
    const fixed = join(dir, 'fixed.db');
    expect(
      await runCli(
        ['--db', fixed, 'collect', '--simulate', 'quiet', '--for', '30s', '--connections', '5'],
        memoryIo({ cwd: dir, now: () => WALL }),
      ),
    ).toBe(0);
    expect(first(fixed)).toBe(parseTimestamp('2026-01-01T00:00:00Z'));
    const chosen = join(dir, 'chosen.db');
    const io = memoryIo({ cwd: dir, now: () => WALL });
    expect(
      await runCli(
        ['--db', chosen, 'collect', '--simulate', 'quiet', '--for', '30s', '--connections', '5', '--start', '-30s'],
        io,
      ),
    ).toBe(0);
    // the first poll is the first cron firing at or after the start (every 30 s by default)
    const start = BigInt(WALL - 30_000) * 1_000_000n;
    expect(first(chosen) >= start && first(chosen) < start + 30_000_000_000n).toBe(true);
    const bad = memoryIo({ cwd: dir });
    expect(
      await runCli(['--db', join(dir, 'x.db'), 'collect', '--base-url', 'http://127.0.0.1:1', '--start', 'now'], bad),
    ).toBe(2);
    expect(bad.err()).toContain('--start needs --simulate');
  });
});
