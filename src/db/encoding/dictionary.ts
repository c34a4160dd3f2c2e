/**
 * Interned values: the string dictionary (`str`) and content-addressed JSON documents (`doc`),
 * with a writer side that finds or inserts ids and a reader side that resolves them, both cached.
 */
import type { SqlSession, SqlStatement } from '../sql-session.ts';
import { isListableText, textFromSql, textToSql } from './bytes.ts';
import { CorruptDataError } from '../errors.ts';
import { IdCache } from './id-cache.ts';
import type { doc, str } from '../schema/schema.ts';
import type { RowOf } from '../schema/table-rows.ts';

type Str = RowOf<typeof str>;
/** A `str.s` (or `doc.body`) value as stored: TEXT, or a UTF-16LE BLOB for a string with lone surrogates. */
type StoredText = Str['s'] | Buffer;

/** A 52-bit hash of a string's UTF-16 code units (two 32-bit FNV-1a style lanes). */
export function hash52(s: string): number {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return (a >>> 0) * 0x100000 + ((b >>> 0) >>> 12);
}

/** Hashes looked up in one query at most (the JSON list stays small). */
const PREFETCH_CHUNK = 2000;

/** A row of a lookup by hash: a match (id, value), or the table's next free id alone. */
interface Found {
  readonly id: number | null;
  readonly v: StoredText | null;
  readonly next: number | null;
}

/**
 * Finds or creates ids of interned values of one table; the cache must be dropped after a
 * rollback. Ids are chosen here (the largest plus one: writers take turns, so nothing else inserts
 * meanwhile), so an insert needs no answer and goes with the transaction's other writes.
 */
class Interner {
  readonly #cache = new Map<string, number>();
  readonly #find: SqlStatement<[number], Found>;
  readonly #findMany: SqlStatement<[string], Found>;
  readonly #insert: SqlStatement<[number, number, unknown]>;
  readonly #max: number;

  constructor(sqlite: SqlSession, table: 'str' | 'doc', column: 's' | 'body', max: number) {
    // the next free id comes with the matches (a row of its own): a new value costs one query, not two
    const next = `UNION ALL SELECT NULL, NULL, coalesce(max(id), 0) + 1 FROM ${table}`;
    this.#find = sqlite.prepare<[number], Found>(
      `SELECT id, ${column} AS v, NULL AS next FROM ${table} WHERE h = ? ${next}`,
    );
    this.#findMany = sqlite.prepare<[string], Found>(
      `SELECT id, ${column} AS v, NULL AS next FROM ${table} WHERE h IN (SELECT value FROM json_each(?)) ${next}`,
    );
    this.#insert = sqlite.prepare<[number, number, unknown]>(
      `INSERT INTO ${table} (id, h, ${column}) VALUES (?, ?, ?)`,
    );
    this.#max = max;
  }

  /** The id of `value`, inserting it when new (inside the caller's transaction). */
  id(value: string): number {
    const hit = this.#cache.get(value);
    if (hit !== undefined) return hit;
    const h = hash52(value);
    let id: number | undefined;
    let next = 1;
    for (const row of this.#find.all(h)) {
      if (row.id === null) next = row.next ?? 1;
      else if (textFromSql(row.v!) === value) id = row.id;
    }
    if (id === undefined) id = this.#insertNew([value], next)[0]!;
    this.#remember(value, id);
    return id;
  }

  /**
   * Finds or creates, in a few statements for all of them, the ids of values about to be asked
   * for (inside the caller's transaction); `id()` then answers them from the cache. Values that
   * cannot travel in a JSON list are left to `id()`.
   */
  prefetch(values: Iterable<string>): void {
    const wanted = new Set<string>();
    for (const v of values) if (!this.#cache.has(v) && isListableText(v)) wanted.add(v);
    if (wanted.size === 0) return;
    const list = [...wanted];
    let next = 1;
    for (let i = 0; i < list.length; i += PREFETCH_CHUNK) {
      const hashes = [...new Set(list.slice(i, i + PREFETCH_CHUNK).map(hash52))];
      for (const row of this.#findMany.all(JSON.stringify(hashes))) {
        if (row.id === null) {
          next = row.next ?? 1;
          continue;
        }
        const v = textFromSql(row.v!);
        if (wanted.delete(v)) this.#remember(v, row.id);
      }
    }
    if (wanted.size === 0) return;
    const fresh = [...wanted];
    const ids = this.#insertNew(fresh, next);
    fresh.forEach((v, i) => this.#remember(v, ids[i]!));
  }

  /** Inserts values known to be absent, with ids chosen here from `first` (the table's next free id). */
  #insertNew(values: readonly string[], first: number): number[] {
    let next = first;
    return values.map((v) => {
      const id = next++;
      this.#insert.run(id, hash52(v), textToSql(v));
      return id;
    });
  }

  #remember(value: string, id: number): void {
    if (this.#cache.size >= this.#max) this.#cache.clear();
    this.#cache.set(value, id);
  }

  /** Forgets every cached id (after a rollback, or after prune removed rows). */
  reset(): void {
    this.#cache.clear();
  }
}

/** Writer side of the string dictionary. */
export class StringDict extends Interner {
  constructor(sqlite: SqlSession) {
    super(sqlite, 'str', 's', 500_000);
  }
}

/** Writer side of the document store (JSON texts stored once). */
export class DocStore extends Interner {
  constructor(sqlite: SqlSession) {
    super(sqlite, 'doc', 'body', 10_000);
  }
}

/** Reader side: resolves dictionary ids to strings (and doc ids to texts), cached. */
export class Resolver {
  readonly #strings = new IdCache<string>();
  readonly #docs = new Map<number, string>();
  readonly #manyStrings: SqlStatement<[string], [id: Str['id'], s: StoredText]>;
  readonly #oneString: SqlStatement<[number], StoredText>;
  readonly #oneDoc: SqlStatement<[number], RowOf<typeof doc>['body']>;
  readonly #manyDocs: SqlStatement<[string], [id: number, body: RowOf<typeof doc>['body']]>;
  readonly #count: SqlStatement<[], number>;
  readonly #allIds: SqlStatement<[], Str['id']>;
  readonly #allStrings: SqlStatement<[], StoredText>;
  #preloaded = false;

  constructor(sqlite: SqlSession) {
    this.#count = sqlite.prepare<[], number>('SELECT count(*) FROM str').pluck();
    // ids and strings as two plain lists (no array per row): one pass each over the table
    this.#allIds = sqlite.prepare<[], Str['id']>('SELECT id FROM str ORDER BY id').pluck();
    this.#allStrings = sqlite.prepare<[], StoredText>('SELECT s FROM str ORDER BY id').pluck();
    this.#manyStrings = sqlite
      .prepare<[string], [id: Str['id'], s: StoredText]>(
        'SELECT id, s FROM str WHERE id IN (SELECT value FROM json_each(?))',
      )
      .raw();
    this.#oneString = sqlite.prepare<[number], StoredText>('SELECT s FROM str WHERE id = ?').pluck();
    this.#oneDoc = sqlite.prepare<[number], RowOf<typeof doc>['body']>('SELECT body FROM doc WHERE id = ?').pluck();
    this.#manyDocs = sqlite
      .prepare<[string], [id: number, body: RowOf<typeof doc>['body']]>(
        'SELECT id, body FROM doc WHERE id IN (SELECT value FROM json_each(?))',
      )
      .raw();
  }

  /** Loads, in one query, the documents of these ids that are not cached yet (an id not stored is left to `doc` to report). */
  loadDocs(ids: Iterable<number>): void {
    const missing = new Set<number>();
    for (const id of ids) if (!this.#docs.has(id)) missing.add(id);
    if (missing.size === 0) return;
    for (const [id, body] of this.#manyDocs.all(JSON.stringify([...missing]))) {
      this.#docs.set(Number(id), textFromSql(body));
    }
  }

  /** Loads the strings of these ids that are not cached yet, in one query. */
  load(ids: Iterable<number>): void {
    const missing: number[] = [];
    for (const id of ids) if (!this.#strings.has(id)) missing.push(id);
    if (missing.length === 0) return;
    for (const [id, s] of this.#manyStrings.all(JSON.stringify(missing))) {
      this.#strings.set(id, textFromSql(s));
    }
  }

  /** Loads the whole dictionary once when it is small (the usual case); misses load one by one. */
  preload(max = 200_000): void {
    if (this.#preloaded) return;
    this.#preloaded = true;
    if ((this.#count.get() ?? 0) > max) return;
    const ids = this.#allIds.all();
    const strings = this.#allStrings.all();
    if (ids.length !== strings.length) return; // written in between (a reader outside a transaction): load one by one
    for (let i = 0; i < ids.length; i++) this.#strings.set(ids[i]!, textFromSql(strings[i]));
  }

  /** Loads, in one query, the strings of these ids that are not cached yet. */
  loadMissing(ids: readonly number[]): void {
    let missing: Set<number> | undefined;
    const have = this.#strings;
    for (const id of ids) if (!have.has(id)) (missing ??= new Set()).add(id);
    if (missing !== undefined) this.load(missing);
  }

  /** The string of a dictionary id. */
  s(id: number): string {
    let v = this.#strings.get(id);
    if (v === undefined) {
      const raw: unknown = this.#oneString.get(id);
      if (raw === undefined) throw new CorruptDataError(`string dictionary id ${id} is missing`, { table: 'str' });
      v = textFromSql(raw);
      this.#strings.set(id, v);
    }
    return v;
  }

  /** The text of a document id. */
  doc(id: number): string {
    let v = this.#docs.get(id);
    if (v === undefined) {
      const raw: unknown = this.#oneDoc.get(id);
      if (raw === undefined) throw new CorruptDataError(`document id ${id} is missing`, { table: 'doc' });
      v = textFromSql(raw);
      this.#docs.set(id, v);
    }
    return v;
  }

  /** Drops the caches (after prune). */
  reset(): void {
    this.#strings.clear();
    this.#docs.clear();
    this.#preloaded = false;
  }
}
