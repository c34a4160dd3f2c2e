/**
 * The checkpoint thread of the SQLite engine: a PASSIVE checkpoint of a file on a connection of
 * another thread while the store's connection stays open, one at a time, never rejecting.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openDatabase, RetentionPruner } from '../../src/db/index.ts';
import { checkpointInThread } from '../../src/db/engines/sqlite-checkpoint.ts';
import { sqliteOf } from '../helpers/sqlite-handle.ts';
import { tempDbPath } from './fixtures.ts';

/** WAL frames not yet written back, as the store's own connection sees them (a PASSIVE checkpoint that copies nothing new). */
function walState(sqlite: ReturnType<typeof sqliteOf>): { log: number; checkpointed: number } {
  return (sqlite.pragma('wal_checkpoint(PASSIVE)') as { log: number; checkpointed: number }[])[0]!;
}

describe('checkpointInThread', () => {
  it('writes back the WAL of a file the store keeps open, then lets the store write on', async () => {
    const path = tempDbPath();
    const db = openDatabase(path);
    const sqlite = sqliteOf(db);
    sqlite.pragma('wal_autocheckpoint = 0');
    sqlite.exec('CREATE TABLE soak_t (x BLOB)');
    const insert = sqlite.prepare('INSERT INTO soak_t VALUES (randomblob(20000))');
    for (let i = 0; i < 20; i++) insert.run();
    const r = await checkpointInThread(path);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.frames).toBeGreaterThan(20);
    expect(r.checkpointed).toBe(r.frames);
    insert.run();
    expect(sqlite.prepare('SELECT count(*) FROM soak_t').pluck().get()).toBe(21);
    db.close();
    // the thread's connection is closed: the store's close left WAL mode (no -wal file stays)
    expect(existsSync(`${path}-wal`)).toBe(false);
  });

  it('skips a request while one is in flight, and answers a missing file with why, without rejecting', async () => {
    const path = tempDbPath();
    const db = openDatabase(path);
    const first = checkpointInThread(path);
    const second = await checkpointInThread(path);
    expect(second).toEqual({ ok: false, reason: 'skipped: a checkpoint is still running' });
    expect((await first).ok).toBe(true);
    const missing = await checkpointInThread(`${path}.gone`);
    expect(missing.ok).toBe(false);
    db.close();
  });

  it('gives up waiting past its time limit (the work goes on) and skips until it has answered', async () => {
    const path = tempDbPath();
    const db = openDatabase(path);
    // 10 MB of WAL to copy and sync: longer than a timer of 0 ms
    const sqlite = sqliteOf(db);
    sqlite.pragma('wal_autocheckpoint = 0');
    sqlite.exec('CREATE TABLE soak_t (x BLOB)');
    const insert = sqlite.prepare('INSERT INTO soak_t VALUES (randomblob(20000))');
    sqlite.transaction(() => {
      for (let i = 0; i < 500; i++) insert.run();
    })();
    expect(await checkpointInThread(path, 0)).toEqual({ ok: false, reason: 'skipped: no answer within 0 ms' });
    expect(await checkpointInThread(path)).toEqual({ ok: false, reason: 'skipped: a checkpoint is still running' });
    // the one given up answers; a later request is served again
    let r = await checkpointInThread(path);
    for (let i = 0; i < 50 && !r.ok; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      r = await checkpointInThread(path);
    }
    expect(r.ok).toBe(true);
    db.close();
  });
});

describe('RetentionPruner.checkpoint', () => {
  it('hands a file to the checkpoint thread (a promise) and runs in place on an in-memory database', async () => {
    const path = tempDbPath();
    const db = openDatabase(path);
    const pending = new RetentionPruner(db).checkpoint();
    expect(pending).toBeInstanceOf(Promise);
    expect(await pending).toMatchObject({ ok: true });
    expect(walState(sqliteOf(db)).log).toBe(walState(sqliteOf(db)).checkpointed);
    db.close();
    const memory = openDatabase(':memory:');
    expect(new RetentionPruner(memory).checkpoint()).toBeUndefined();
    memory.close();
  });
});
