/**
 * Invariants of the interned strings and documents (src/db/encoding/dictionary.ts) on a real SQLite
 * file: one id per distinct value whatever its code units, ids stable across cache resets and
 * reopenings, hash collisions told apart by content, and damaged dictionary rows reported as
 * CorruptDataError naming the table.
 */
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/engines/open.ts';
import { DocStore, hash52, Resolver, StringDict } from '../../src/db/encoding/dictionary.ts';
import { CorruptDataError } from '../../src/db/errors.ts';
import { tempDbPath } from './fixtures.ts';

/** Values whose code units differ in the ways that broke text handling before. */
const VALUES: readonly [string, string][] = [
  ['empty', ''],
  ['ascii', 'orders-consumer'],
  ['leading BOM', '\uFEFForders-consumer'],
  ['trailing space', 'orders-consumer '],
  ['NUL', 'orders\u0000consumer'],
  ['lone high surrogate', 'orders\uD800'],
  ['lone low surrogate', '\uDC00orders'],
  ['astral', 'orders-\u{1F680}'],
  ['combining vs precomposed (1)', 'e\u0301'],
  ['combining vs precomposed (2)', '\u00e9'],
  ['long', 'x'.repeat(10_000)],
];

describe('hash52', () => {
  it('is an integer in [0, 2^52), the same for the same code units', () => {
    for (const [, v] of VALUES) {
      const h = hash52(v);
      expect(Number.isInteger(h)).toBe(true);
      expect(h).toBeGreaterThanOrEqual(0);
      expect(h).toBeLessThan(2 ** 52);
      expect(hash52(v.slice())).toBe(h);
    }
  });

  it('tells apart the values above (no collision among them)', () => {
    expect(new Set(VALUES.map(([, v]) => hash52(v))).size).toBe(VALUES.length);
  });
});

describe('the string dictionary and document store', () => {
  it.each([
    [
      'strings',
      (db: ReturnType<typeof openDatabase>) => new StringDict(db.sqlite),
      (r: Resolver, id: number) => r.s(id),
    ],
    [
      'documents',
      (db: ReturnType<typeof openDatabase>) => new DocStore(db.sqlite),
      (r: Resolver, id: number) => r.doc(id),
    ],
  ] as const)('%s: one id per distinct value, resolved back to the same code units', (_kind, make, resolve) => {
    const path = tempDbPath();
    const db = openDatabase(path);
    const dict = make(db);
    const ids = db.sqlite.transaction(() => VALUES.map(([, v]) => dict.id(v)))();
    expect(new Set(ids).size).toBe(VALUES.length);
    dict.reset();
    expect(db.sqlite.transaction(() => VALUES.map(([, v]) => dict.id(v)))()).toEqual(ids);
    db.close();

    const again = openDatabase(path);
    const resolver = new Resolver(again.sqlite);
    VALUES.forEach(([name, v], i) => expect(resolve(resolver, ids[i]!), name).toBe(v));
    expect(again.sqlite.transaction(() => VALUES.map(([, v]) => make(again).id(v)))()).toEqual(ids);
    again.close();
  });

  it('a hash collision is told apart by content: the other value gets its own id', () => {
    const db = openDatabase(tempDbPath());
    const value = 'client-a';
    // a row that claims the same hash with other content (a colliding string)
    const other = Number(
      db.sqlite.prepare('INSERT INTO str (h, s) VALUES (?, ?)').run(hash52(value), 'not-client-a').lastInsertRowid,
    );
    const dict = new StringDict(db.sqlite);
    const id = db.sqlite.transaction(() => dict.id(value))();
    expect(id).not.toBe(other);
    expect(new Resolver(db.sqlite).s(id)).toBe(value);
    expect(db.sqlite.transaction(() => dict.id('not-client-a'))()).not.toBe(other); // its hash differs: a new row
    db.close();
  });

  it('preload and one-by-one loading agree, and a missing id names its table', () => {
    const db = openDatabase(tempDbPath());
    const dict = new StringDict(db.sqlite);
    const ids = db.sqlite.transaction(() => VALUES.map(([, v]) => dict.id(v)))();
    const preloaded = new Resolver(db.sqlite);
    preloaded.preload();
    const lazy = new Resolver(db.sqlite);
    lazy.loadMissing(ids.slice(0, 3));
    for (const id of ids) expect(lazy.s(id)).toBe(preloaded.s(id));
    const missing = Math.max(...ids) + 1000;
    expect(() => lazy.s(missing)).toThrow(CorruptDataError);
    expect(() => lazy.s(missing)).toThrow(`string dictionary id ${missing} is missing`);
    expect(() => lazy.doc(missing)).toThrow(`document id ${missing} is missing`);
    db.close();
  });

  it('a damaged dictionary row (a blob that is no UTF-16 text) is a CorruptDataError, not a wrong string', () => {
    const db = openDatabase(tempDbPath());
    const odd = Buffer.from([0x61, 0x00, 0x62]);
    const s = Number(db.sqlite.prepare('INSERT INTO str (h, s) VALUES (?, ?)').run(1, odd).lastInsertRowid);
    const d = Number(db.sqlite.prepare('INSERT INTO doc (h, body) VALUES (?, ?)').run(1, odd).lastInsertRowid);
    const r = new Resolver(db.sqlite);
    expect(() => r.s(s)).toThrow(CorruptDataError);
    expect(() => r.doc(d)).toThrow(CorruptDataError);
    const preloading = new Resolver(db.sqlite);
    expect(() => preloading.preload()).toThrow(CorruptDataError);
    db.close();
  });
});
