import { createHash } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { DatabaseOpenError, DatabaseVersionError, migrationsFolder, openDatabase } from '../../src/db/index.ts';
import { tempDbPath } from './fixtures.ts';
import { sqliteOf } from '../helpers/sqlite-handle.ts';

const digest = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

describe('openDatabase', () => {
  it('creates a new file with mode 0600, WAL, synchronous=NORMAL, foreign keys and a busy timeout', () => {
    const path = tempDbPath();
    const db = openDatabase(path);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(sqliteOf(db).pragma('journal_mode', { simple: true })).toBe('wal');
    expect(sqliteOf(db).pragma('synchronous', { simple: true })).toBe(1);
    expect(sqliteOf(db).pragma('foreign_keys', { simple: true })).toBe(1);
    expect(sqliteOf(db).pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(sqliteOf(db).pragma('user_version', { simple: true })).toBe(db.schemaVersion);
    const tables = db.sqlite.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).pluck().all();
    expect(tables).toEqual(expect.arrayContaining(['poll', 'conn_chunk', 'conn_version', 'shadow_topic_sample']));
    const withoutRowid = db.sqlite
      .prepare(`SELECT sql FROM sqlite_master WHERE name = 'conn_chunk'`)
      .pluck()
      .get() as string;
    expect(withoutRowid).toMatch(/WITHOUT ROWID/);
    db.close();
    expect(statSync(`${path}`).mode & 0o777).toBe(0o600);
  });

  it('reopens an existing database without migrating again', () => {
    const path = tempDbPath();
    openDatabase(path).close();
    const db = openDatabase(path);
    expect(db.sqlite.prepare('SELECT count(*) FROM __drizzle_migrations').pluck().get()).toBe(db.schemaVersion);
    db.close();
    const ro = openDatabase(path, { readonly: true });
    expect(ro.readonly).toBe(true);
    expect(() => ro.sqlite.exec('DELETE FROM poll')).toThrow();
    ro.close();
  });

  it('finds the committed migrations from the package root', () => {
    const folder = migrationsFolder();
    expect(readFileSync(join(folder, 'meta', '_journal.json'), 'utf8')).toContain('0001_without_rowid');
  });

  it('refuses, untouched, a database written by a newer flightrec', () => {
    const path = tempDbPath();
    openDatabase(path).close();
    const raw = new Database(path);
    raw.prepare('INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)').run('future', 4_102_444_800_000);
    raw.pragma('user_version = 99');
    raw.pragma('journal_mode = DELETE');
    raw.close();
    const before = digest(path);
    const mtime = statSync(path).mtimeMs;
    for (const readonly of [false, true]) {
      let err: unknown;
      try {
        openDatabase(path, { readonly });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(DatabaseVersionError);
      expect((err as Error).message).toMatch(/newer flightrec.*schema version 99.*upgrade flightrec/);
      expect((err as DatabaseVersionError).found).toBe(99);
    }
    expect(digest(path)).toBe(before);
    expect(statSync(path).mtimeMs).toBe(mtime);
  });

  it('names the path of a file that is not a database', () => {
    const path = tempDbPath('garbage.db');
    writeFileSync(path, Buffer.alloc(8192, 0x5a));
    const before = digest(path);
    expect(() => openDatabase(path)).toThrow(DatabaseOpenError);
    expect(() => openDatabase(path)).toThrow(
      new RegExp(`${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.*not an SQLite database`),
    );
    expect(digest(path)).toBe(before);
  });

  it('leaves a foreign SQLite database alone', () => {
    const path = tempDbPath('other.db');
    const other = new Database(path);
    other.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)');
    other.close();
    const before = digest(path);
    expect(() => openDatabase(path)).toThrow(/not a flightrec history/);
    expect(digest(path)).toBe(before);
  });

  it('fails read-only on a missing file, and names it', () => {
    const path = tempDbPath('missing.db');
    expect(() => openDatabase(path, { readonly: true })).toThrow(DatabaseOpenError);
    expect(() => openDatabase(path, { readonly: true })).toThrow(/missing\.db: no such file/);
  });

  it('fails on a directory that does not exist, naming the path', () => {
    const path = join(tempDbPath(), 'nope', 'history.db');
    expect(() => openDatabase(path)).toThrow(DatabaseOpenError);
  });
});
