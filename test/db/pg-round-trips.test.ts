// The round trips of a write transaction through the PostgreSQL bridge, as its `waits` count
// them: the BEGIN (which takes the write lock) goes with the transaction's first request, the
// writes are queued and go together (with the COMMIT at the end, or before the first read that
// follows them), and a failed write is the error reported. Runs on the server named by FLIGHTREC_TEST_PG, else on PGlite.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHistoryWriter, openDatabase, type FlightrecDb } from '../../src/db/index.ts';
import type { PgSyncDatabase } from '../../src/db/engines/pg/sync-database.ts';
import { describeWithServer, freshPgTarget, type PgTarget } from '../helpers/pg.ts';
import { startTurnProxy, type TurnProxy } from '../helpers/turn-proxy.ts';
import { okRecord } from './fixtures.ts';
import { upgradeAnswer } from './small-answers.ts';

let target: PgTarget;
let db: FlightrecDb;
let handle: PgSyncDatabase;

beforeAll(async () => {
  target = await freshPgTarget({ migrated: true });
  db = openDatabase(target.target);
  handle = db.sqlite as unknown as PgSyncDatabase;
  db.sqlite.exec('CREATE TABLE trips_t (id bigint PRIMARY KEY, s text)');
  db.sqlite.exec('CREATE TABLE trips_child (id bigint PRIMARY KEY, parent bigint NOT NULL REFERENCES trips_t (id))');
}, 120_000);

afterAll(async () => {
  db.close();
  await target.drop();
});

// each test starts from empty tables, also after one that failed before its own DELETE (one
// failure would otherwise make every later test of the file fail on the rows it left)
afterEach(() => {
  if (db.sqlite.inTransaction) return;
  db.sqlite.exec('DELETE FROM trips_child');
  db.sqlite.exec('DELETE FROM trips_t');
});

/** The round trips `fn` made. */
function tripsOf(fn: () => void): number {
  const before = handle.waits.count;
  fn();
  return handle.waits.count - before;
}

const count = (): number => db.sqlite.prepare('SELECT count(*) FROM trips_t').pluck().get() as number;

describe('round trips of a write transaction on PostgreSQL', () => {
  it('writes only: one round trip (BEGIN with the lock, the 50 writes and COMMIT together)', () => {
    const put = db.sqlite.prepare('INSERT INTO trips_t (id, s) VALUES (?, ?)');
    const write = db.sqlite.transaction(() => {
      for (let i = 1; i <= 50; i++) put.run(i, `s${i}`);
    });
    expect(tripsOf(() => write())).toBe(1);
    expect(count()).toBe(50);
    db.sqlite.exec('DELETE FROM trips_t');
  });

  it('a read after writes sends them first: three round trips, the read sees the writes', () => {
    const put = db.sqlite.prepare('INSERT INTO trips_t (id, s) VALUES (?, ?)');
    let seen = -1;
    const write = db.sqlite.transaction(() => {
      put.run(1, 'a');
      seen = count();
      put.run(2, 'b');
    });
    expect(tripsOf(() => write())).toBe(3); // BEGIN and the write; the read; the write and COMMIT
    expect(seen).toBe(1);
    expect(count()).toBe(2);
    db.sqlite.exec('DELETE FROM trips_t');
  });

  it('once the transaction has begun, the writes and the read after them go in one round trip', () => {
    const put = db.sqlite.prepare('INSERT INTO trips_t (id, s) VALUES (?, ?)');
    let seen = -1;
    let first: { changes: number } | undefined;
    const write = db.sqlite.transaction(() => {
      count(); // begins the transaction (BEGIN goes with this read)
      first = put.run(1, 'a');
      put.run(2, 'b');
      seen = count();
      put.run(3, 'c');
    });
    try {
      // the read; the two writes with the read after them; the last write with COMMIT
      expect(tripsOf(() => write())).toBe(3);
      expect([first?.changes, seen, count()]).toEqual([1, 2, 3]);
    } finally {
      db.sqlite.exec('DELETE FROM trips_t');
    }
  });

  it('a write that fails in the round trip of the read after it is the error reported; the read does not run', () => {
    const put = db.sqlite.prepare('INSERT INTO trips_t (id, s) VALUES (?, ?)');
    put.run(1, 'there');
    const write = db.sqlite.transaction(() => {
      count();
      put.run(2, 'new');
      put.run(1, 'duplicate');
      return db.sqlite.prepare('INSERT INTO trips_t (id, s) VALUES (?, ?) RETURNING id').pluck().get(9, 'after');
    });
    try {
      expect(() => write()).toThrow(/duplicate key/);
      expect(db.sqlite.inTransaction).toBe(false);
      expect(db.sqlite.prepare('SELECT s FROM trips_t ORDER BY id').pluck().all()).toEqual(['there']);
    } finally {
      db.sqlite.exec('DELETE FROM trips_t');
    }
  });

  it('holds the write lock from its start', () => {
    let locks = -1;
    db.sqlite.transaction(() => {
      locks = db.sqlite
        .prepare("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()")
        .pluck()
        .get() as number;
    })();
    expect(locks).toBe(1);
  });

  it('an empty transaction sends nothing; one that fails drops its queued writes unsent', () => {
    expect(tripsOf(() => db.sqlite.transaction(() => undefined)())).toBe(0);
    const failing = db.sqlite.transaction(() => {
      db.sqlite.prepare('INSERT INTO trips_t (id, s) VALUES (?, ?)').run(7, 'never');
      throw new Error('changed its mind');
    });
    expect(tripsOf(() => expect(() => failing()).toThrow(/changed its mind/))).toBe(0); // nothing began
    expect(db.sqlite.inTransaction).toBe(false);
    expect(count()).toBe(0);
  });

  it('a failed write is the error a later read in the transaction reports, and nothing is kept', () => {
    db.sqlite.prepare('INSERT INTO trips_t (id, s) VALUES (?, ?)').run(1, 'there');
    const write = db.sqlite.transaction(() => {
      db.sqlite.prepare('INSERT INTO trips_t (id, s) VALUES (?, ?)').run(2, 'new');
      db.sqlite.prepare('INSERT INTO trips_t (id, s) VALUES (?, ?)').run(1, 'duplicate');
      return count();
    });
    expect(() => write()).toThrow(/duplicate key/);
    expect(db.sqlite.inTransaction).toBe(false);
    expect(db.sqlite.prepare('SELECT s FROM trips_t ORDER BY id').pluck().all()).toEqual(['there']);
    db.sqlite.exec('DELETE FROM trips_t');
  });

  it('rolling back to a savepoint keeps the writes before it', () => {
    const put = db.sqlite.prepare('INSERT INTO trips_t (id, s) VALUES (?, ?)');
    const inner = db.sqlite.transaction(() => {
      put.run(2, 'inner');
      throw new Error('inner fails');
    });
    db.sqlite.transaction(() => {
      put.run(1, 'outer');
      expect(() => inner()).toThrow(/inner fails/);
      put.run(3, 'after');
    })();
    expect(db.sqlite.prepare('SELECT s FROM trips_t ORDER BY id').pluck().all()).toEqual(['outer', 'after']);
    db.sqlite.exec('DELETE FROM trips_t');
  });

  it('plain INSERTs into several tables go as one statement: foreign keys see the rows beside them, counts are kept', () => {
    const parent = db.sqlite.prepare('INSERT INTO trips_t (id, s) VALUES (?, ?)');
    const child = db.sqlite.prepare('INSERT INTO trips_child (id, parent) VALUES (?, ?)');
    let changes: number[] = [];
    const write = db.sqlite.transaction(() => {
      const results = [parent.run(1, 'p'), child.run(10, 1), child.run(11, 1), parent.run(2, 'q'), child.run(12, 2)];
      return results;
    });
    expect(tripsOf(() => (changes = write().map((r) => r.changes)))).toBe(1);
    expect(changes).toEqual([1, 1, 1, 1, 1]);
    expect(db.sqlite.prepare('SELECT count(*) FROM trips_child').pluck().get()).toBe(3);
    const orphan = db.sqlite.transaction(() => {
      parent.run(3, 'r');
      child.run(13, 99);
    });
    expect(() => orphan()).toThrow(/foreign key/);
    const twice = db.sqlite.transaction(() => {
      child.run(14, 1);
      parent.run(1, 'again');
    });
    expect(() => twice()).toThrow(/duplicate key/);
    expect(db.sqlite.prepare('SELECT id FROM trips_t ORDER BY id').pluck().all()).toEqual([1, 2]);
    expect(db.sqlite.prepare('SELECT id FROM trips_child ORDER BY id').pluck().all()).toEqual([10, 11, 12]);
    db.sqlite.exec('DELETE FROM trips_child');
    db.sqlite.exec('DELETE FROM trips_t');
  });
});

describeWithServer('round trips on the wire (a server through a counting proxy)', () => {
  let proxy: TurnProxy;
  let wire: FlightrecDb;

  beforeAll(async () => {
    const url = new URL(target.target);
    // 100 ms before the server sees what the client sent: enough for the bridge to finish
    // writing a pipelined transaction on a loaded machine, before any answer can come back (a
    // write of it after an answer would count as a second turn)
    proxy = await startTurnProxy(Number(url.port || 5432), 100);
    url.port = String(proxy.port);
    wire = openDatabase(url.toString());
  }, 60_000);

  afterAll(async () => {
    wire?.close();
    await proxy?.close();
  });

  it('sends a transaction’s BEGIN, statements and COMMIT together: one turn for them all', () => {
    const put = wire.sqlite.prepare('INSERT INTO trips_t (id, s) VALUES (?, ?)');
    const child = wire.sqlite.prepare('INSERT INTO trips_child (id, parent) VALUES (?, ?)');
    const rename = wire.sqlite.prepare('UPDATE trips_t SET s = ? WHERE id = ?');
    const drop = wire.sqlite.prepare('DELETE FROM trips_child WHERE id = ?');
    const write = wire.sqlite.transaction(() => {
      put.run(1, 'a');
      child.run(10, 1);
      rename.run('b', 1);
      put.run(2, 'c');
      drop.run(10);
      rename.run('d', 2);
    });
    const before = proxy.turns();
    write();
    // BEGIN with the lock, the six statements (five after merging) and the COMMIT
    expect(proxy.turns() - before).toBe(1);
    expect(wire.sqlite.prepare('SELECT id, s FROM trips_t ORDER BY id').raw().all()).toEqual([
      [1, 'b'],
      [2, 'd'],
    ]);
    wire.sqlite.exec('DELETE FROM trips_t');
  });

  it('a statement that fails in the middle applies nothing: the ones after it and the COMMIT do not commit', () => {
    wire.sqlite.prepare('INSERT INTO trips_t (id, s) VALUES (?, ?)').run(5, 'kept');
    const put = wire.sqlite.prepare('INSERT INTO trips_t (id, s) VALUES (?, ?)');
    const rename = wire.sqlite.prepare('UPDATE trips_t SET s = ? WHERE id = ?');
    const write = wire.sqlite.transaction(() => {
      put.run(6, 'first');
      rename.run('renamed', 5);
      wire.sqlite.prepare('INSERT INTO trips_child (id, parent) VALUES (?, ?)').run(1, 999); // no parent 999
      put.run(7, 'after');
      rename.run('after', 5);
    });
    expect(() => write()).toThrow(/trips_child/);
    expect(wire.sqlite.inTransaction).toBe(false);
    expect(wire.sqlite.prepare('SELECT id, s FROM trips_t ORDER BY id').raw().all()).toEqual([[5, 'kept']]);
    // the connection goes on: the next transaction commits
    wire.sqlite.transaction(() => put.run(8, 'next'))();
    expect(wire.sqlite.prepare('SELECT count(*) FROM trips_t').pluck().get()).toBe(2);
    wire.sqlite.exec('DELETE FROM trips_t');
  });
});

describeWithServer('a write transaction that did not begin or did not commit (a server)', () => {
  const put = () => db.sqlite.prepare<[number, string]>('INSERT INTO trips_t (id, s) VALUES (?, ?)');

  it('a BEGIN whose write lock is not granted fails the transaction: nothing after it is sent or kept', () => {
    db.sqlite.exec("SET lock_timeout = '200ms'");
    const other = openDatabase(target.target);
    const caught: string[] = [];
    try {
      other.sqlite.transaction(() => {
        other.sqlite.prepare('SELECT 1').get(); // the other handle now holds the write lock
        const write = db.sqlite.transaction(() => {
          try {
            count(); // the transaction's first request: it carries the BEGIN, which waits for the lock
          } catch (err) {
            caught.push(String(err));
          }
          put().run(1, 'never'); // swallowing the failure does not let the transaction go on
        });
        expect(() => write()).toThrow(/lock timeout/);
      })();
    } finally {
      other.close();
      db.sqlite.exec('RESET lock_timeout');
    }
    expect(caught).toHaveLength(1);
    expect(caught[0]).toMatch(/lock timeout/);
    expect(db.sqlite.inTransaction).toBe(false);
    expect(count()).toBe(0);
    // the handle goes on
    db.sqlite.transaction(() => put().run(2, 'next'))();
    expect(count()).toBe(1);
    db.sqlite.exec('DELETE FROM trips_t');
  });
});

describe('a COMMIT of an aborted transaction (a server or PGlite)', () => {
  const put = () => db.sqlite.prepare<[number, string]>('INSERT INTO trips_t (id, s) VALUES (?, ?)');

  it('a COMMIT that PostgreSQL turns into a ROLLBACK (a failure swallowed in the transaction) is an error, not a success', () => {
    const write = db.sqlite.transaction(() => {
      put().run(1, 'lost');
      try {
        db.sqlite.prepare('SELECT 1 / 0').get(); // sends the write, then fails: the transaction is aborted
      } catch {
        // swallowed by the caller
      }
    });
    expect(() => write()).toThrow(/rolled back at COMMIT/);
    expect(db.sqlite.inTransaction).toBe(false);
    expect(count()).toBe(0);
  });

  it('the same when the failure and the COMMIT go out together (a batch of writes)', () => {
    const write = db.sqlite.transaction(() => {
      try {
        db.sqlite.prepare('SELECT 1 / 0').get(); // fails: the transaction is aborted
      } catch {
        // swallowed by the caller
      }
      put().run(1, 'lost'); // queued, sent with the COMMIT
    });
    expect(() => write()).toThrow(/aborted|rolled back at COMMIT/);
    expect(db.sqlite.inTransaction).toBe(false);
    expect(count()).toBe(0);
  });
});

describe('round trips of a small poll written by the store on PostgreSQL', () => {
  it('three once its strings are known: BEGIN with the generation read, the cluster scope with the poll row, its samples with COMMIT', () => {
    const written = openDatabase(target.target);
    const pg = written.sqlite as unknown as PgSyncDatabase;
    const writer = createHistoryWriter(written);
    try {
      const at = 1_767_225_600_000_000_000n;
      const write = (i: number): number => {
        const before = pg.waits.count;
        writer.writePoll(
          okRecord('GetUpgradeStatus', upgradeAnswer(1), { at: at + BigInt(i) * 30_000_000_000n, request: {} }),
        );
        return pg.waits.count - before;
      };
      write(0); // the first one stores the cluster and the answer's strings
      // the poll row's id comes back (a read): the cluster scope queued before it goes in its round trip
      expect([write(1), write(2)]).toEqual([3, 3]);
    } finally {
      writer.close();
    }
  });
});
