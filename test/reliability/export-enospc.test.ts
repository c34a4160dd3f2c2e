/**
 * `export` onto a full disk: the write fails with ENOSPC (made here by a file system whose
 * writes to the export file fail, as on a full disk: mounting a small file system needs
 * privileges the test machines may not have). The user gets a message naming the file and the
 * cause, exit 1, no stack trace, and no half-written file.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { createHistoryWriter, openDatabase } from '../../src/db/index.ts';
import { upgradeAnswer } from '../db/small-answers.ts';
import { okRecord, tempDbPath } from '../db/fixtures.ts';
import { runCli } from './support/cli.ts';

const full = { on: false };

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const writeSync = ((fd: number, ...rest: unknown[]) => {
    if (full.on && fd > 2)
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), {
        code: 'ENOSPC',
        errno: -28,
        syscall: 'write',
      });
    return (fs.writeSync as (...a: unknown[]) => number)(fd, ...rest);
  }) as typeof fs.writeSync;
  return { ...fs, default: { ...fs, writeSync }, writeSync };
});

describe('export onto a full disk', () => {
  it('is a message naming the file and ENOSPC, exit 1, and the partial file is removed', async () => {
    const db = tempDbPath();
    const writer = createHistoryWriter(openDatabase(db));
    writer.writePoll(okRecord('GetUpgradeStatus', upgradeAnswer(1), { at: 1_767_225_600_000_000_000n, request: {} }));
    writer.close();
    const out = `${db}.json`;
    full.on = true;
    try {
      const r = await runCli(['--db', db, 'export', '--out', out]);
      expect(r.unexpected).toBe(false);
      expect(r.code).toBe(1);
      expect(r.err).toBe(
        `flightrec: cannot write ${out}: no space left on the device (ENOSPC); the partial export was removed\n`,
      );
      expect(existsSync(out)).toBe(false);
    } finally {
      full.on = false;
    }
  });
});
