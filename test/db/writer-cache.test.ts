import { describe, expect, it } from 'vitest';
import { createHistoryWriter, openDatabase } from '../../src/db/index.ts';
import { WRITER_CACHE_KIB } from '../../src/db/write/writer.ts';
import { tempDbPath } from './fixtures.ts';
import { sqliteOf } from '../helpers/sqlite-handle.ts';

describe('the history writer', () => {
  it("gives its connection a smaller page cache than a reader's (the collector's resident memory)", () => {
    const db = openDatabase(tempDbPath());
    const readerCache = sqliteOf(db).pragma('cache_size', { simple: true });
    createHistoryWriter(db);
    expect(sqliteOf(db).pragma('cache_size', { simple: true })).toBe(-WRITER_CACHE_KIB);
    expect(-WRITER_CACHE_KIB).toBeGreaterThan(readerCache as number);
    db.close();
  });
});
