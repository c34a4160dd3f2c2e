import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { afterAll, describe, expect, it } from 'vitest';
import { migrationsFolder } from '../../src/db/index.ts';
import { applyMigrations } from '../../src/db/sqlite-migrate.ts';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

interface Journal {
  entries: { tag: string }[];
}

/** A copy of the migrations folder whose journal keeps its first `n` entries. */
function folderWithFirst(n: number, extraSql?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'flightrec-migrations-'));
  dirs.push(dir);
  cpSync(migrationsFolder(), dir, { recursive: true });
  const path = join(dir, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(path, 'utf8')) as Journal;
  journal.entries = journal.entries.slice(0, n);
  if (extraSql !== undefined) {
    const last = journal.entries.at(-1)!;
    writeFileSync(join(dir, `${last.tag}.sql`), readFileSync(join(dir, `${last.tag}.sql`), 'utf8') + extraSql);
  }
  writeFileSync(path, JSON.stringify(journal));
  return dir;
}

/** What a migration leaves: the schema's text and the migrations table's rows. */
function state(db: Database.Database): unknown {
  return {
    schema: db.prepare('SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name').all(),
    applied: db.prepare('SELECT rowid, id, hash, created_at FROM __drizzle_migrations ORDER BY rowid').all(),
  };
}

const ENTRIES = (JSON.parse(readFileSync(join(migrationsFolder(), 'meta', '_journal.json'), 'utf8')) as Journal).entries
  .length;

describe('applyMigrations (SQLite)', () => {
  it('leaves the schema and the migrations table as drizzle-orm migrator does, from each earlier version', () => {
    expect(ENTRIES).toBeGreaterThan(1);
    for (let first = 0; first < ENTRIES; first++) {
      const [theirs, mine] = [new Database(':memory:'), new Database(':memory:')];
      if (first > 0) {
        const older = folderWithFirst(first);
        migrate(drizzle(theirs), { migrationsFolder: older });
        migrate(drizzle(mine), { migrationsFolder: older });
      }
      migrate(drizzle(theirs), { migrationsFolder: migrationsFolder() });
      applyMigrations(mine, migrationsFolder());
      expect(state(mine)).toEqual(state(theirs));
      expect((state(mine) as { applied: unknown[] }).applied).toHaveLength(ENTRIES);
      // applied again: nothing changes
      applyMigrations(mine, migrationsFolder());
      expect(state(mine)).toEqual(state(theirs));
    }
  });

  it('applies none of a failing run (one transaction), as drizzle-orm migrator does', () => {
    const broken = folderWithFirst(ENTRIES, '\n--> statement-breakpoint\nCREATE TABLE poll (x);');
    const [theirs, mine] = [new Database(':memory:'), new Database(':memory:')];
    // drizzle wraps the error ("Failed to run the query …"); ours is SQLite's own, its code kept
    expect(() => migrate(drizzle(theirs), { migrationsFolder: broken })).toThrow();
    expect(() => applyMigrations(mine, broken)).toThrow(/already exists/);
    expect(state(mine)).toEqual(state(theirs));
    expect((state(mine) as { applied: unknown[] }).applied).toHaveLength(0);
  });
});
