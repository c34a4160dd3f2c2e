/**
 * A report command reads the history with a small page cache (src/cli/commands/history.ts): each
 * page is read about once, and every page SQLite keeps is fresh memory the process must fault in.
 */
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/index.ts';
import { openHistoryReadOnly, REPORT_CACHE_KIB } from '../../src/cli/commands/history.ts';
import { tempDbPath } from '../db/fixtures.ts';
import { sqliteOf } from '../helpers/sqlite-handle.ts';

describe("a report command's connection", () => {
  it('is read-only, with a page cache of REPORT_CACHE_KIB, smaller than the store default', () => {
    const path = tempDbPath();
    const store = openDatabase(path);
    const storeCache = sqliteOf(store).pragma('cache_size', { simple: true }) as number;
    store.close();
    const db = openHistoryReadOnly(path);
    try {
      expect(db.readonly).toBe(true);
      expect(sqliteOf(db).pragma('cache_size', { simple: true })).toBe(-REPORT_CACHE_KIB);
      expect(-REPORT_CACHE_KIB).toBeGreaterThan(storeCache);
    } finally {
      db.close();
    }
  });
});
