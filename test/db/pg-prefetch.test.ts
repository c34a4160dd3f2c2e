// Reads posted ahead of need on PostgreSQL (PgStatement.prefetch): the next get/all with the same
// arguments in the read transaction takes the reply, values converted as any other; nothing is
// posted outside a read transaction; a read not taken is dropped with its transaction; a failing
// one names its own error. Replies travel as one flat list of values (rows rebuilt by the handle,
// an array value kept whole). And a cold stateAt large enough to load its versions in pieces
// posted together answers exactly as SQLite does. Runs on the server named by FLIGHTREC_TEST_PG,
// else on PGlite.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeAnswer, parseAnswer } from '../../src/api/wire/answers.ts';
import {
  createHistoryReader,
  createHistoryWriter,
  openDatabase,
  type FlightrecDb,
  type SqlStatement,
} from '../../src/db/index.ts';
import { PgError } from '../../src/db/engines/pg/sync-database.ts';
import { generateConnectionPolls } from '../helpers/connection-answers.ts';
import { ENGINES, freshPgTarget, type PgTarget } from '../helpers/pg.ts';
import { LIST_REQUEST, okRecord } from './fixtures.ts';

let target: PgTarget;
let db: FlightrecDb;

beforeAll(async () => {
  target = await freshPgTarget({ migrated: true });
  db = openDatabase(target.target);
  db.sqlite.exec('CREATE TABLE ahead_t (id bigint PRIMARY KEY, b bytea)');
  db.sqlite
    .prepare('INSERT INTO ahead_t (id, b) VALUES (?, ?), (?, ?)')
    .run(1, Buffer.from([1, 2]), 2, Buffer.from([]));
}, 120_000);

afterAll(async () => {
  db.close();
  await target.drop();
});

const read = <T>(fn: () => T): T => db.sqlite.transaction(fn).deferred();
const prefetch = (stmt: SqlStatement<never[]>, ...args: unknown[]): boolean => db.engine.prefetch(stmt, ...args);

describe('reads posted ahead (PostgreSQL)', () => {
  it('gives the next call with the same arguments the reply, shaped as that call asks', () => {
    const q = 'SELECT id, b, 9007199254740993 AS big FROM ahead_t WHERE id >= ? ORDER BY id';
    const stmt = db.sqlite.prepare(q);
    expect(db.engine.prefetches).toBe(true);
    const direct = read(() => stmt.all(1));
    read(() => {
      expect(prefetch(stmt, 1)).toBe(true);
      expect(prefetch(stmt, 2)).toBe(true);
      // another argument: its own round trip, the posted ones stay
      expect(stmt.all(3)).toEqual([]);
      expect(stmt.all(1)).toEqual(direct);
      expect(stmt.raw().all(2)).toEqual([[2, Buffer.from([]), 9007199254740992]]);
      stmt.raw(false);
      // taken once: the same call again is an ordinary read
      expect(stmt.all(1)).toEqual(direct);
      expect(prefetch(stmt, 1)).toBe(true);
      expect(stmt.safeIntegers().all(1)).toEqual([
        { id: 1n, b: Buffer.from([1, 2]), big: 9007199254740993n },
        { id: 2n, b: Buffer.from([]), big: 9007199254740993n },
      ]);
      stmt.safeIntegers(false);
    });
    expect(direct).toEqual([
      { id: 1, b: Buffer.from([1, 2]), big: 9007199254740992 },
      { id: 2, b: Buffer.from([]), big: 9007199254740992 },
    ]);
  });

  it('posts nothing outside a read transaction, nor a write', () => {
    const count = db.sqlite.prepare('SELECT count(*) FROM ahead_t').pluck();
    expect(prefetch(count)).toBe(false);
    db.sqlite.transaction(() => expect(prefetch(count)).toBe(false))();
    read(() => expect(prefetch(db.sqlite.prepare('DELETE FROM ahead_t WHERE id = ?'), 5)).toBe(false));
  });

  it('drops a read not taken with its transaction (the next one reads afresh)', () => {
    const count = db.sqlite.prepare('SELECT count(*) FROM ahead_t').pluck();
    read(() => expect(prefetch(count)).toBe(true));
    db.sqlite.prepare('INSERT INTO ahead_t (id, b) VALUES (?, ?)').run(3, Buffer.from([3]));
    expect(read(() => count.get())).toBe(3);
    db.sqlite.prepare('DELETE FROM ahead_t WHERE id = ?').run(3);
    expect(count.get()).toBe(2);
  });

  it('names the failure of a read posted ahead, when taken and in the reads after it', () => {
    const bad = db.sqlite.prepare('SELECT 1 / (id - id) FROM ahead_t');
    const ok = db.sqlite.prepare('SELECT 1').pluck();
    expect(() => read(() => (prefetch(bad), bad.all()))).toThrow(/division by zero/);
    let thrown: unknown;
    try {
      read(() => (prefetch(bad), ok.get()));
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(PgError);
    expect((thrown as PgError).message).toMatch(/division by zero/);
    // the handle is usable afterwards
    expect(read(() => ok.get())).toBe(1);
  });
});

describe('replies as one flat list of values (PostgreSQL)', () => {
  it('rebuilds rows of several columns, keeps array values whole, and finds the last inserted id', () => {
    const q = 'SELECT x AS a, ARRAY[x, x + 1] AS arr, NULL AS n FROM generate_series(1, ?::int) AS g(x)';
    expect(db.sqlite.prepare(q).raw().all(2)).toEqual([
      [1, [1, 2], null],
      [2, [2, 3], null],
    ]);
    expect(db.sqlite.prepare(q).get(1)).toEqual({ a: 1, arr: [1, 2], n: null });
    expect(db.sqlite.prepare(q).all(0)).toEqual([]);
    expect(db.sqlite.prepare(q).get(0)).toBeUndefined();
    expect(db.sqlite.prepare(q).pluck().all(3)).toEqual([1, 2, 3]);
    const put = db.sqlite.prepare("INSERT INTO cluster (name) VALUES (?), (? || '-2')");
    const { lastInsertRowid, changes } = put.run('flat-a', 'flat-a');
    expect(changes).toBe(2);
    const ids = db.sqlite.prepare("SELECT id FROM cluster WHERE name LIKE 'flat-a%' ORDER BY id").pluck().all();
    expect(lastInsertRowid).toBe(ids.at(-1));
    db.sqlite.prepare("DELETE FROM cluster WHERE name LIKE 'flat-a%'").run();
  });
});

describe('a cold stateAt of thousands of connections (versions loaded in pieces on PostgreSQL)', () => {
  it('answers as SQLite does', async () => {
    const polls = generateConnectionPolls({ connections: 4600, churn: 0.03, polls: 9, seed: 11 });
    const answers = polls.map((p) =>
      parseAnswer('ListKafkaConnections', encodeAnswer('ListKafkaConnections', p.answer)),
    );
    const states: unknown[][] = [];
    for (const engine of ENGINES) {
      const place = engine.name === 'sqlite' ? await engine.target() : target.target;
      const store = engine.name === 'sqlite' ? openDatabase(place) : db;
      const writer = createHistoryWriter(store, { batchFrames: 4 });
      answers.forEach((answer, i) =>
        writer.writePoll(okRecord('ListKafkaConnections', answer, { at: polls[i]!.at, request: LIST_REQUEST })),
      );
      writer.close();
      const ro = openDatabase(place, { readonly: true });
      // a sealed batch's frame, a later one of the same batch, and a head frame; a fresh reader each
      // (the rows: poll ids differ between the engines)
      states.push([1, 2, 8].map((i) => createHistoryReader(ro).stateAt('connections', polls[i]!.at + 1n).rows));
      ro.close();
      if (store !== db) store.close();
    }
    expect(states[1]).toEqual(states[0]);
    expect((states[0]![0] as unknown[]).length).toBeGreaterThan(4096);
  }, 300_000);
});
