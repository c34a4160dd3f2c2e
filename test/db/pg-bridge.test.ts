// The synchronous PostgreSQL handle: values come back as better-sqlite3 gives them, text
// PostgreSQL cannot hold survives exactly, transactions and savepoints behave as SQLite's, and a
// lost connection is an error (never taken for damaged data, even in the middle of a read), then
// a new connection. Runs on the server named by
// FLIGHTREC_TEST_PG, else on PGlite (the connection-loss test needs a server).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHistoryReader, createHistoryWriter, openDatabase, type FlightrecDb } from '../../src/db/index.ts';
import { CorruptDataError, DatabaseOpenError, damaged } from '../../src/db/errors.ts';
import { PgError } from '../../src/db/engines/pg/sync-database.ts';
import { generateConnectionPolls } from '../helpers/connection-answers.ts';
import { describeWithServer, freshPgTarget, pgAvailable, type PgTarget } from '../helpers/pg.ts';
import { LIST_REQUEST, okRecord } from './fixtures.ts';

let target: PgTarget;
let db: FlightrecDb;

beforeAll(async () => {
  target = await freshPgTarget({ migrated: true });
  db = openDatabase(target.target);
  db.sqlite.exec('CREATE TABLE bridge_t (id bigint PRIMARY KEY, s text, b bytea, n numeric)');
}, 120_000);

afterAll(async () => {
  db.close();
  await target.drop();
});

describe('the PostgreSQL bridge', () => {
  it('returns int8 as number, or bigint under safeIntegers; booleans as 1/0; bytea as Buffer', () => {
    const q = 'SELECT 9007199254740993::bigint AS big, 7::bigint AS small, 1 = 1 AS yes, ?::bytea AS b';
    const row = db.sqlite.prepare(q).get(Buffer.from([0, 1, 2])) as Record<string, unknown>;
    expect(row['small']).toBe(7);
    expect(row['yes']).toBe(1);
    expect(Buffer.isBuffer(row['b'])).toBe(true);
    expect([...(row['b'] as Buffer)]).toEqual([0, 1, 2]);
    const exact = db.sqlite.prepare(q).safeIntegers().get(Buffer.from([])) as Record<string, unknown>;
    expect(exact['big']).toBe(9007199254740993n);
    expect(db.sqlite.prepare('SELECT ?::bigint').pluck().safeIntegers().get(-9223372036854775808n)).toBe(
      -9223372036854775808n,
    );
    expect(db.sqlite.prepare('SELECT sum(x) FROM (VALUES (1::bigint), (2::bigint)) AS v(x)').pluck().get()).toBe(3);
    expect(db.sqlite.prepare('SELECT ?, ?').raw().get(1, 'a')).toEqual(['1', 'a']);
  });

  it('gives a blob concatenation (sent as base64) as the same bytes as SQLite, every byte value, and NULL over no rows', () => {
    const put = db.sqlite.prepare('INSERT INTO bridge_t (id, b) VALUES (?, ?)');
    const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const parts = [all, Buffer.alloc(0), Buffer.alloc(100_000, 0xff), all.subarray(7, 9)];
    parts.forEach((b, i) => put.run(100 + i, b));
    const joined = db.sqlite
      .prepare("SELECT CAST(group_concat(b, '' ORDER BY id) AS BLOB) FROM bridge_t WHERE id >= 100")
      .pluck()
      .get();
    expect(Buffer.isBuffer(joined)).toBe(true);
    expect((joined as Buffer).equals(Buffer.concat(parts))).toBe(true);
    const pair = db.sqlite
      .prepare(
        "SELECT CAST(group_concat(b, '') AS BLOB), CAST(group_concat(b, '') AS BLOB) FROM bridge_t WHERE id >= 100",
      )
      .raw()
      .get() as Buffer[];
    expect(pair[0]!.equals(pair[1]!)).toBe(true);
    expect(pair[0]!.length).toBe(Buffer.concat(parts).length);
    const none = db.sqlite.prepare("SELECT CAST(group_concat(b, '') AS BLOB) FROM bridge_t WHERE id < 0").pluck().get();
    expect(none).toBeNull();
    db.sqlite.prepare('DELETE FROM bridge_t WHERE id >= 100').run();
  });

  it('keeps text PostgreSQL cannot hold (NUL, lone surrogates, a leading U+FFFF or byte order mark) exactly', () => {
    const odd = [
      'nul\u0000inside',
      'lone \ud800 surrogate',
      '\uffffleading',
      '\ufeffbom',
      '\ufeff',
      '\udc00',
      'plain',
      '',
      '🚀',
    ];
    const put = db.sqlite.prepare('INSERT INTO bridge_t (id, s) VALUES (?, ?)');
    odd.forEach((s, i) => put.run(i + 1, s));
    const back = db.sqlite.prepare('SELECT s FROM bridge_t ORDER BY id').pluck().all();
    expect(back).toEqual(odd);
    // an escaped value still matches itself in a comparison
    expect(db.sqlite.prepare('SELECT id FROM bridge_t WHERE s = ?').pluck().get('nul\u0000inside')).toBe(1);
    db.sqlite.exec('DELETE FROM bridge_t');
  });

  it('binds named parameters and one array of parameters', () => {
    expect(db.sqlite.prepare('SELECT @a::int + @b::int + @a::int').pluck().get({ a: 1, b: 10 })).toBe(12);
    expect(db.sqlite.prepare('SELECT ?::int + ?::int').pluck().get([2, 3])).toBe(5);
  });

  it('rolls a failed transaction back, and a failed nested one back to its savepoint', () => {
    const put = db.sqlite.prepare('INSERT INTO bridge_t (id, s) VALUES (?, ?)');
    expect(() =>
      db.sqlite.transaction(() => {
        put.run(1, 'a');
        throw new Error('boom');
      })(),
    ).toThrow('boom');
    db.sqlite.transaction(() => {
      put.run(2, 'b');
      expect(() =>
        db.sqlite.transaction(() => {
          put.run(3, 'c');
          throw new Error('inner');
        })(),
      ).toThrow('inner');
    })();
    expect(db.sqlite.prepare('SELECT id FROM bridge_t ORDER BY id').pluck().all()).toEqual([2]);
    expect(db.sqlite.inTransaction).toBe(false);
    db.sqlite.exec('DELETE FROM bridge_t');
  });

  it('sends the writes of a transaction together, and a failing one still fails its transaction', () => {
    const put = db.sqlite.prepare('INSERT INTO bridge_t (id, s) VALUES (?, ?)');
    db.sqlite.transaction(() => {
      for (let i = 1; i <= 500; i++) put.run(i, `r${i}`);
      // a read sees the writes before it
      expect(db.sqlite.prepare('SELECT count(*) FROM bridge_t').pluck().get()).toBe(500);
      expect(put.run(501, 'r501').changes).toBe(1);
    })();
    expect(() =>
      db.sqlite.transaction(() => {
        put.run(1000, 'new');
        put.run(1, 'duplicate key'); // fails when the batch is sent: at commit
      })(),
    ).toThrow(/duplicate key/);
    expect(db.sqlite.prepare('SELECT count(*) FROM bridge_t WHERE id = 1000').pluck().get()).toBe(0);
    expect(db.sqlite.inTransaction).toBe(false);
    db.sqlite.exec('DELETE FROM bridge_t');
  });

  it('reads in deferred transactions that cannot write', () => {
    const read = db.sqlite.transaction(() => db.sqlite.prepare('SELECT count(*) FROM bridge_t').pluck().get());
    expect(read.deferred()).toBe(0);
    expect(() =>
      db.sqlite.transaction(() => db.sqlite.prepare('INSERT INTO bridge_t (id) VALUES (9)').run()).deferred(),
    ).toThrow(/read-only/);
  });

  it('names the database, never the password, when it cannot connect', () => {
    let err: unknown;
    try {
      openDatabase('postgres://flightrec:s3cret-pw@127.0.0.1:1/none?connect_timeout=2');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(DatabaseOpenError);
    const text = String((err as Error).message);
    expect(text).toContain('127.0.0.1:1');
    expect(text).not.toContain('s3cret-pw');
  });
});

describe('a PostgreSQL failure met while decoding stored data', () => {
  it('is passed on as it is: a lost connection, a time-out or a permission is not damage', () => {
    for (const [code, connection] of [
      [undefined, true],
      ['57P01', true],
      ['57014', false],
      ['42501', false],
    ] as const) {
      const err = new PgError('x', code, connection);
      expect(damaged(err, { table: 'conn_version' }), String(code)).toBe(err);
    }
  });

  it('is damage when PostgreSQL says the data is (data_corrupted, index_corrupted)', () => {
    for (const code of ['XX001', 'XX002']) {
      const err = damaged(new PgError('invalid page in block 7', code, false), { table: 'conn_chunk' });
      expect(err, code).toBeInstanceOf(CorruptDataError);
      expect(String((err as Error).message)).toMatch(/damaged \(table conn_chunk\): PostgreSQL reports damaged data/);
    }
  });
});

describeWithServer('the PostgreSQL bridge on a server (a second connection ends the first)', () => {
  it('turns a lost connection into an error, then connects again', async () => {
    const server = pgAvailable().url!;
    const own = db.sqlite.prepare('SELECT pg_backend_pid()').pluck().get() as number;
    const admin = new pg.Client({ connectionString: server });
    await admin.connect();
    try {
      await admin.query('SELECT pg_terminate_backend($1)', [own]);
    } finally {
      await admin.end();
    }
    expect(() => db.sqlite.prepare('SELECT 1').get()).toThrow();
    expect(db.sqlite.prepare('SELECT 41 + 1').pluck().get()).toBe(42);
  });
});

describeWithServer('a read that loses its connection (a second connection ends it)', () => {
  it('fails with the connection error, not "the history database is damaged", and the next read works', async () => {
    const store = await freshPgTarget({ migrated: true });
    try {
      const w = openDatabase(store.target);
      const writer = createHistoryWriter(w, { batchFrames: 4 });
      const polls = generateConnectionPolls({ connections: 50, churn: 0.05, polls: 6, seed: 3 });
      const ids = polls.map((p, i) =>
        writer.writePoll(
          okRecord('ListKafkaConnections', p.answer, { at: BigInt(i + 1) * 60_000_000_000n, request: LIST_REQUEST }),
        ),
      );
      writer.close();
      const ro = openDatabase(store.target, { readonly: true });
      const own = ro.sqlite.prepare('SELECT pg_backend_pid()').pluck().get() as number;
      const admin = new pg.Client({ connectionString: pgAvailable().url! });
      await admin.connect();
      try {
        await admin.query('SELECT pg_terminate_backend($1)', [own]);
      } finally {
        await admin.end();
      }
      // a fresh reader: the query that meets the lost connection runs inside a step decoding the
      // poll's frame (it used to be reported as damage, with advice to restore from a backup)
      let err: unknown;
      try {
        createHistoryReader(ro).reconstructAnswer(ids[5]!);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(PgError);
      expect(String((err as Error).message)).not.toMatch(/damaged/);
      expect(createHistoryReader(ro).reconstructAnswer(ids[5]!).answer).toEqual(polls[5]!.answer);
      ro.close();
    } finally {
      await store.drop();
    }
  });
});
