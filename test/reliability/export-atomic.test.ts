/**
 * `export --out FILE` is put in place only when complete: while the bundle is being written,
 * FILE does not exist (a kill half-way leaves a `.FILE.<pid>.partial` next to it, never a
 * truncated bundle under the real name), and a finished export leaves no temporary file.
 */
import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createHistoryWriter, openDatabase } from '../../src/db/index.ts';
import { upgradeAnswer } from '../db/small-answers.ts';
import { okRecord, tempDbPath } from '../db/fixtures.ts';
import { runCli } from './support/cli.ts';

const watch: { out?: string; seen: boolean[] } = { seen: [] };

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const writeSync = ((fd: number, ...rest: unknown[]) => {
    if (watch.out !== undefined && fd > 2) watch.seen.push(fs.existsSync(watch.out));
    return (fs.writeSync as (...a: unknown[]) => number)(fd, ...rest);
  }) as typeof fs.writeSync;
  return { ...fs, default: { ...fs, writeSync }, writeSync };
});

describe('export --out', () => {
  it('writes under a temporary name and puts the finished bundle in place', async () => {
    const db = tempDbPath();
    const writer = createHistoryWriter(openDatabase(db));
    for (let i = 0; i < 3; i++) {
      writer.writePoll(
        okRecord('GetUpgradeStatus', upgradeAnswer(i + 1), {
          at: 1_767_225_600_000_000_000n + BigInt(i) * 30_000_000_000n,
          request: {},
        }),
      );
    }
    writer.close();
    const out = `${db}.json`;
    watch.out = out;
    try {
      const r = await runCli(['--db', db, 'export', '--out', out]);
      expect(r.err).toContain(`exported 3 polls (0 failed) to ${out}`);
      expect(r.code).toBe(0);
    } finally {
      watch.out = undefined;
    }
    expect(watch.seen.length).toBeGreaterThan(0);
    expect(watch.seen.every((existed) => !existed)).toBe(true);
    expect(existsSync(out)).toBe(true);
    expect(readdirSync(dirname(out)).filter((f) => f.includes('.partial'))).toEqual([]);
    const again = await runCli(['--db', db, 'export', '--out', out]);
    expect(again.code).toBe(1);
    expect(again.err).toContain(`${out} already exists`);
    expect(readdirSync(dirname(out)).filter((f) => f.startsWith(`.${basename(out)}`))).toEqual([]);
  });
});
