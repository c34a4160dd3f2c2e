/** `db stats`: growth per day over the last day and week, and the steady-state size under a retention. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_NS, growthOf, projectSteadyState, type WindowGrowth } from '../../src/db/maintain/growth.ts';
import { openRecordingStore } from '../../src/db/index.ts';
import { createWorld, isSimError } from '../../src/sim/index.ts';
import { LIST_REQUEST, okRecord } from '../db/fixtures.ts';
import { memoryIo } from '../helpers/memory-io.ts';
import { runCli } from '../collector/helpers/run-cli.ts';

const T0 = 1_767_225_600_000_000_000n;
const HOUR_NS = DAY_NS / 24n;

describe('growth arithmetic', () => {
  it('bytes per day over each window, over what a young database covers', () => {
    const g = growthOf({
      oldest: T0,
      newest: T0 + 3n * DAY_NS,
      windows: [
        { days: 1, bytes: 1_000, polls: 10 },
        { days: 7, bytes: 2_400, polls: 30 },
      ],
    });
    expect(g.lastDay).toEqual({ days: 1, bytes: 1_000, polls: 10, coveredSeconds: 86_400, bytesPerDay: 1_000 });
    expect(g.lastWeek).toEqual({ days: 7, bytes: 2_400, polls: 30, coveredSeconds: 3 * 86_400, bytesPerDay: 800 });
    const young = growthOf({ oldest: T0, newest: T0 + 12n * HOUR_NS, windows: [{ days: 1, bytes: 500, polls: 5 }] });
    expect(young.lastDay.bytesPerDay).toBe(1_000);
    expect(growthOf({ windows: [] }).lastDay).toEqual({ days: 1, bytes: 0, polls: 0, coveredSeconds: 0 });
  });

  it('steady state: rate times the days kept, rollups counted when measured, capped by maxSize', () => {
    const g = growthOf({
      oldest: T0,
      newest: T0 + 7n * DAY_NS,
      windows: [
        { days: 1, bytes: 900, polls: 1 },
        { days: 7, bytes: 7_000, polls: 7 },
      ],
    });
    expect(projectSteadyState(g, { rawDays: 14, rollupsDays: 400, maxSizeBytes: null })).toEqual({
      rawBytes: 14_000,
      bytes: 14_000,
      capped: false,
      notes: ['rollup growth not measured: this database holds no rollups yet (not counted)'],
    });
    expect(projectSteadyState(g, { rawDays: 14, rollupsDays: 400, maxSizeBytes: 20_000 }, 10)).toEqual({
      rawBytes: 14_000,
      rollupBytes: 4_000,
      bytes: 18_000,
      capped: false,
      notes: [],
    });
    expect(projectSteadyState(g, { rawDays: 14, rollupsDays: 400, maxSizeBytes: 15_000 }, 10)).toMatchObject({
      bytes: 15_000,
      capped: true,
    });
    expect(projectSteadyState(g, { rawDays: null, rollupsDays: 400, maxSizeBytes: null })).toBeUndefined();
  });
});

describe('flightrec db stats on two simulated days of answers', () => {
  let dir: string;
  let db: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'flightrec-dbstats-'));
    db = join(dir, 'two-days.db');
    // the simulated world's answers every 20 minutes for two days, stored in a real file
    // (straight through the store: the loopback server is not what this test is about)
    const world = createWorld({ seed: 3, connections: 40 });
    const store = openRecordingStore(db);
    const start = world.now();
    try {
      for (let i = 0; i < 144; i++) {
        world.advanceTo(start + BigInt(i) * 20n * 60n * 1_000_000_000n);
        const conns = world.listKafkaConnections(LIST_REQUEST);
        const upgrade = world.getUpgradeStatus();
        if (isSimError(conns) || isSimError(upgrade)) throw new Error('the simulated world failed');
        store.storePoll(
          okRecord('ListKafkaConnections', conns, { at: world.now(), request: LIST_REQUEST, cluster: 'sim' }),
        );
        store.storePoll(okRecord('GetUpgradeStatus', upgrade, { at: world.now(), request: {}, cluster: 'sim' }));
      }
    } finally {
      store.close();
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('-o json: existing fields unchanged, growth over the last day about half of the week window, no projection without retention', async () => {
    const io = memoryIo({ cwd: dir });
    expect(await runCli(['--db', db, '-o', 'json', 'db', 'stats'], io)).toBe(0);
    const out = JSON.parse(io.out()) as Record<string, unknown> & {
      growth: { until: string; lastDay: WindowGrowth; lastWeek: WindowGrowth };
    };
    expect(Object.keys(out)).toEqual([
      'database',
      'polls',
      'failedPolls',
      'entities',
      'samples',
      'fileBytes',
      'resources',
      'pollLog',
      'strings',
      'rollups',
      'overheadBytes',
      'engine',
      'resolutions',
      'growth',
    ]);
    const { lastDay, lastWeek } = out.growth;
    expect(out.growth.until).toBe('2026-01-02T23:40:00Z');
    expect(lastDay.coveredSeconds).toBe(86_400);
    expect(lastWeek.coveredSeconds).toBe(2 * 86_400 - 1_200);
    // a steady recording: the last day holds about half of what the two days hold, and both rates agree
    expect(lastDay.bytes / lastWeek.bytes).toBeGreaterThan(0.4);
    expect(lastDay.bytes / lastWeek.bytes).toBeLessThan(0.6);
    expect(lastDay.bytesPerDay! / lastWeek.bytesPerDay!).toBeGreaterThan(0.8);
    expect(lastDay.bytesPerDay! / lastWeek.bytesPerDay!).toBeLessThan(1.2);
    // the estimate shares out the pages the data take: at most the file
    expect(lastWeek.bytes).toBeLessThanOrEqual(Number(out.fileBytes));
    expect(lastWeek.bytes).toBeGreaterThan(Number(out.fileBytes) * 0.5);
    expect(lastWeek.polls).toBe(out.polls);
    expect(out).not.toHaveProperty('projection');
  });

  it('the projection from --retention-raw over the config file, text and json', async () => {
    const cfg = join(dir, 'retention.yaml');
    writeFileSync(cfg, 'retention:\n  raw: 14d\n  rollups: 400d\n  maxSize: 1GiB\n');
    const io = memoryIo({ cwd: dir });
    expect(await runCli(['--db', db, '--config', cfg, '-o', 'json', 'db', 'stats', '--retention-raw', '3d'], io)).toBe(
      0,
    );
    const out = JSON.parse(io.out()) as {
      growth: { lastWeek: { bytesPerDay: number } };
      projection: Record<string, unknown>;
    };
    expect(out.projection).toEqual({
      retention: { rawDays: 3, rollupsDays: 400, maxSizeBytes: 1024 ** 3 },
      rawBytes: out.growth.lastWeek.bytesPerDay * 3,
      bytes: out.growth.lastWeek.bytesPerDay * 3,
      capped: false,
      notes: ['rollup growth not measured: this database holds no rollups yet (not counted)'],
    });
    const text = memoryIo({ cwd: dir });
    expect(await runCli(['--db', db, '--config', cfg, 'db', 'stats'], text)).toBe(0);
    expect(text.out()).toMatch(
      /\ngrowth \(windows ending at the newest poll, 2026-01-02T23:40:00Z\)\n {2}last day +\S+ \S+\/day \(\S+ \S+ in \d+ polls\)\n/,
    );
    expect(text.out()).toMatch(
      /\n {2}last week +\S+ \S+\/day \(\S+ \S+ in \d+ polls, over the 2\.0 days the database covers\)\n/,
    );
    expect(text.out()).toMatch(/\nsteady state \(raw 14d, rollups 400d, maxSize 1\.0 GiB\): \S+ \S+ \(raw \S+ \S+\)\n/);
    expect(text.out()).toContain('note: rollup growth not measured');
  });

  it('bad retention values are usage errors naming the flag or key', async () => {
    const io = memoryIo({ cwd: dir });
    expect(await runCli(['--db', db, 'db', 'stats', '--retention-raw', 'soon'], io)).toBe(2);
    expect(io.err()).toMatch(/^flightrec: --retention-raw: /);
    const cfg = join(dir, 'bad.yaml');
    writeFileSync(cfg, 'retention: { rollups: 5x }\n');
    const io2 = memoryIo({ cwd: dir });
    expect(await runCli(['--db', db, '--config', cfg, 'db', 'stats'], io2)).toBe(2);
    expect(io2.err()).toContain('bad.yaml: retention.rollups: ');
  });
});
