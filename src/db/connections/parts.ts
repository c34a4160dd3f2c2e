/**
 * Loading the slow parts of connection rows: versions with their entity, from the packed
 * records (packed.ts), strings resolved through the dictionary, cached by version id
 * (versions never change once written, except their `to_poll`, which is not part of a row).
 */
import type { SqlSession, SqlStatement } from '../sql-session.ts';
import type { EngineSession, StoreSession } from '../engines/store-engine.ts';
import { CONNECTION_LAYOUTS, type ConnectionLayout } from './layouts.ts';
import { parseJsonLossless, type JsonValue } from '../../api/codec/lossless-json.ts';
import { ByteReader } from '../encoding/bytes.ts';
import type { Resolver } from '../encoding/dictionary.ts';
import { generate } from '../../api/wire/record-literal.ts';
import { CorruptDataError, decoding } from '../errors.ts';
import { IdCache } from '../encoding/id-cache.ts';
import { decodeIdList } from '../encoding/sql-values.ts';
import type { AnySlowValue, SlowKind } from './fields.ts';
import { V_LATE, V_UNKNOWN } from './packed.ts';
import {
  ownSub,
  rowOfVersion,
  sharedSource,
  sharedTls,
  slowAbsentOf,
  SLOW_PARENTS,
  subOf,
  type ConnSlow,
  type SlowParent,
} from './rows.ts';
import { loadVersionRecords, recordsByIdsStatement, type VersionBlobs } from './version-records.ts';
import { BASE_AT, FIELDS, isDictKind, LATE_AT, lateDefault, unpackSlow, type StoredSlow } from './slow.ts';

/** The slow parts of one connection version (identity, attributes, shared sub-objects) and its bookkeeping. */
export type ConnParts = ConnSlow & {
  readonly version: number;
  readonly entity: number;
  readonly fromPoll: number;
  /** the slow-part unknown fields as the writer compares them */
  readonly unknownText: string | undefined;
};

type Blobs = VersionBlobs;

const KINDS: readonly SlowKind[] = FIELDS.map((f) => f.kind);
type ResolveArgs = [Resolver, StoredSlow[], AnySlowValue[], (id: number) => Readonly<Record<string, number>>];

/**
 * Straight-line code for the per-record loops over the slow fields (fast from a process's first
 * read on, where a loop over kinds waits for the optimiser): reading the original layout's values
 * (`v`: the reader and the stored values), and resolving stored values (`v`: resolver, stored,
 * values, the map lookup). Undefined when code generation is refused: the loops are used instead.
 * The code is made of the kinds and positions of fields.ts only.
 */
const READ_BASE = generate<(v: [ByteReader, StoredSlow[]]) => void>(
  `const r = v[0], s = v[1];\n` +
    BASE_AT.map(
      (i) => `s[${i}] = r.${KINDS[i] === 'time' ? 'time' : KINDS[i] === 'inline' ? 'string' : 'uint'}();`,
    ).join('\n'),
);
const readBase: (v: [ByteReader, StoredSlow[]]) => void =
  READ_BASE ??
  (([rv, stored]) => {
    for (const i of BASE_AT) stored[i] = unpackSlow(rv, KINDS[i]!);
  });
const RESOLVE = generate<(v: ResolveArgs) => void>(
  `const r = v[0], s = v[1], o = v[2], api = v[3];\n` +
    KINDS.map((kind, i) => {
      if (kind === 'time' || kind === 'inline') return `o[${i}] = s[${i}];`;
      if (kind === 'map') return `o[${i}] = s[${i}] === 0 ? Object.freeze({}) : api(s[${i}]);`;
      // 0: no dictionary id (an unset optional string, or a late field in an older record)
      const unset = kind === 'optionalText' ? 'undefined' : "''";
      return `o[${i}] = s[${i}] === 0 ? ${unset} : r.s(s[${i}]);`;
    }).join('\n'),
);

/** 2^17: three dictionary ids below it make one exact numeric key (51 bits). */
const SUB_KEY = 131_072;
/** Per sub-message holding slow fields: true when its shared objects can be keyed by its fields' ids as one number. */
const NUMERIC_SUB_KEY: readonly boolean[] = SLOW_PARENTS.map(
  (p) => p.at.length <= 3 && p.at.every((i) => isDictKind(KINDS[i]!)),
);

/** Loads and caches ConnParts. */
export class ConnPartsLoader {
  readonly #resolver: Resolver;
  readonly #cache = new IdCache<ConnParts>();
  readonly #apiVersions = new Map<number, Readonly<Record<string, number>>>();
  /** per sub-message holding slow fields (rows.ts SLOW_PARENTS), its shared objects by key */
  readonly #subs = SLOW_PARENTS.map(() => new Map<number | string, object>());
  /** one record's stored slow values, its values, and its sub-objects (reused: a version keeps its row only) */
  readonly #stored = new Array<StoredSlow>(FIELDS.length);
  readonly #values = new Array<AnySlowValue>(FIELDS.length);
  readonly #subObjects = new Array<object>(SLOW_PARENTS.length);
  readonly #byIds: SqlStatement<[string], Blobs>;
  readonly #allOfEntity: SqlStatement<number[], Blobs>;
  /** how the store keeps versions (the packed-records layout keeps a first version in its entity row) */
  readonly #layout: ConnectionLayout;
  readonly #engine: EngineSession;
  readonly #sqlite: SqlSession;
  /** the statements of loadPassing, by condition */
  readonly #passing = new Map<string, SqlStatement<unknown[], Blobs>>();

  constructor(store: StoreSession, resolver: Resolver) {
    const sqlite = store.sqlite;
    this.#sqlite = sqlite;
    this.#resolver = resolver;
    this.#engine = store.engine;
    this.#layout = CONNECTION_LAYOUTS[store.engine.connectionLayout];
    // two blobs holding every record: one row instead of one per version
    this.#byIds = recordsByIdsStatement(store);
    this.#allOfEntity = sqlite.prepare<number[], Blobs>(this.#layout.partsOfEntitySql).raw();
  }

  /** The parameters of #allOfEntity for an entity. */
  #ofEntity(entity: number): number[] {
    return this.#layout.partsOfEntityParams(entity);
  }

  /** Forgets the cache (after a rollback or a prune). */
  reset(): void {
    this.#cache.clear();
    this.#apiVersions.clear();
    for (const m of this.#subs) m.clear();
  }

  /** The parts of these version ids (loading the ones not cached in one query); `fetched` as for inOrder. */
  byIds(ids: Iterable<number>, fetched?: () => void): Map<number, ConnParts> {
    const list = Array.isArray(ids) ? (ids as readonly number[]) : [...ids];
    const parts = this.inOrder(list, fetched);
    const out = new Map<number, ConnParts>();
    for (let i = 0; i < list.length; i++) out.set(list[i]!, parts[i]!);
    return out;
  }

  /**
   * The parts of these version ids, in the same order (loading the ones not cached in one query).
   * `fetched` is called when records had to be loaded, once they (and the dictionary) are read and
   * before they are decoded: the caller may post its next read then (prefetch.ts).
   */
  inOrder(ids: readonly number[], fetched?: () => void): ConnParts[] {
    const cache = this.#cache;
    const out = new Array<ConnParts>(ids.length);
    let missing: number[] | undefined;
    for (let i = 0; i < ids.length; i++) {
      const hit = cache.get(ids[i]!);
      if (hit === undefined) (missing ??= []).push(ids[i]!);
      else out[i] = hit;
    }
    if (missing !== undefined) {
      // decoded records land in the cache; the query lists each missing id once per mention
      decoding({ table: 'conn_version' }, () => this.#load(missing, fetched));
      for (let i = 0; i < ids.length; i++) {
        if (out[i] !== undefined) continue;
        const p = cache.get(ids[i]!);
        if (p === undefined) throw new Error(`connection version ${ids[i]} is missing`);
        out[i] = p;
      }
    }
    return out;
  }

  /**
   * The version ids among `ids` whose version and entity rows pass an SQL condition (aliases `v`,
   * `e`), their parts loaded into the cache on the way: one statement where a pre-filter and then
   * a load would each look every version and entity up. Undefined where the layout has no typed
   * columns to test (then nothing was read). `fetched` as for inOrder.
   */
  loadPassing(
    ids: readonly number[],
    where: string,
    params: readonly unknown[],
    fetched?: () => void,
  ): number[] | undefined {
    const sqlOf = this.#layout.partsPassingSql;
    if (sqlOf === undefined) return undefined;
    let stmt = this.#passing.get(where);
    if (stmt === undefined) {
      stmt = this.#sqlite.prepare<unknown[], Blobs>(sqlOf(where)).raw();
      if (this.#passing.size >= 32) this.#passing.clear();
      this.#passing.set(where, stmt);
    }
    const blobs = stmt.get(JSON.stringify(ids), ...params);
    const parts = decoding({ table: 'conn_version' }, () => this.#build(blobs, fetched));
    const out = new Array<number>(parts.length);
    for (let i = 0; i < parts.length; i++) out[i] = parts[i]!.version;
    return out;
  }

  /** Loads the records of these ids into the cache (version-records.ts: one query, or pieces on PostgreSQL). */
  #load(missing: readonly number[], fetched: (() => void) | undefined): void {
    loadVersionRecords(this.#engine, this.#byIds, this.#resolver, missing, this.#decodeInto, fetched);
  }

  /** #build as loadVersionRecords calls it. */
  readonly #decodeInto = (blobs: Blobs | undefined, fetched?: () => void): void => void this.#build(blobs, fetched);

  /**
   * inOrder for a writer that must go on past damage: the records that do not decode are
   * undefined, the others as inOrder gives them. A failed load is split in halves until the
   * damaged records stand alone, a few queries for a few of them.
   */
  inOrderOrDamaged(ids: readonly number[]): (ConnParts | undefined)[] {
    try {
      return this.inOrder(ids);
    } catch (err) {
      if (!(err instanceof CorruptDataError)) throw err;
      if (ids.length === 1) return [undefined];
      const half = Math.ceil(ids.length / 2);
      return [...this.inOrderOrDamaged(ids.slice(0, half)), ...this.inOrderOrDamaged(ids.slice(half))];
    }
  }

  /**
   * The parts of the versions listed in a frame's version blob, in answer order, as
   * inOrderOrDamaged gives them; undefined when the blob itself does not decode.
   */
  ofFrameOrDamaged(versions: Uint8Array, rows: number): (ConnParts | undefined)[] | undefined {
    let ids: number[];
    try {
      ids = decodeIdList(versions, rows);
    } catch {
      return undefined;
    }
    return this.inOrderOrDamaged(ids);
  }

  /** The current (latest) version of an entity. */
  latestOfEntity(entity: number): ConnParts | undefined {
    return this.allOfEntity(entity).at(-1);
  }

  /** Every version of an entity, oldest first. */
  allOfEntity(entity: number): ConnParts[] {
    return decoding({ table: 'conn_version', entity: `connection ${entity}` }, () =>
      this.#build(this.#allOfEntity.get(...this.#ofEntity(entity))),
    ).sort((a, b) => a.fromPoll - b.fromPoll || a.version - b.version);
  }

  /** Decodes the version and entity records, which come in lockstep (row i of both aggregates), into the cache. */
  #build(blobs: Blobs | undefined, fetched?: () => void): ConnParts[] {
    if (blobs === undefined) return [];
    const [vblob, eblob] = blobs;
    if (vblob === null || eblob === null) return [];
    const r = this.#resolver;
    // many records: load the (usually small) dictionary at once; a few: look strings up one by one
    if (vblob.length > 20_000) r.preload();
    fetched?.();
    const rv = new ByteReader(vblob);
    const re = new ByteReader(eblob);
    const cache = this.#cache;
    const out: ConnParts[] = [];
    const stored = this.#stored;
    // the arguments of the generated readers, one array each for every record
    const baseArgs: [ByteReader, StoredSlow[]] = [rv, stored];
    const resolveArgs: ResolveArgs = [r, stored, this.#values, this.#apiOf];
    while (!rv.atEnd()) {
      const version = rv.uint();
      const entity = rv.uint();
      const fromPoll = rv.uint();
      // the version record, in the layout of packed.ts packVersion
      readBase(baseArgs);
      const flags = rv.uint();
      const unknownText = flags & V_UNKNOWN ? rv.string() : undefined;
      const late = (flags & V_LATE) !== 0;
      // a record written before the late fields were declared lacks them: they read as defaults (0: no dictionary id)
      for (const i of LATE_AT) stored[i] = late ? unpackSlow(rv, KINDS[i]!) : 0;
      // the entity record, in the layout of packed.ts packEntity
      const entityId = re.uint();
      if (entityId !== entity)
        throw new Error(`connection version ${version}: entity record ${entityId} instead of ${entity}`);
      const uid = re.string();
      const nodeId = re.int();
      const shardId = re.int();
      const listener = re.uint();
      const ipAddress = re.string();
      const port = re.int();
      const tls = re.uint() === 1;
      const openTime = re.time();
      const cached = cache.get(version);
      if (cached !== undefined) {
        out.push(cached);
        continue;
      }
      const unknown =
        unknownText === undefined ? undefined : (parseJsonLossless(unknownText) as Record<string, JsonValue>);
      const values = this.#values;
      this.#resolve(resolveArgs);
      const subs = this.#subObjects;
      for (let k = 0; k < SLOW_PARENTS.length; k++) {
        const p = SLOW_PARENTS[k]!;
        subs[k] = ownSub(p.name, unknown) ? subOf(p, values, unknown) : this.#sharedSub(p, k, values);
      }
      const listenerName = r.s(listener);
      const source = sharedSource(ipAddress, port, unknown);
      const tlsInfo = sharedTls(tls, unknown);
      const parts: ConnParts = {
        version,
        entity,
        fromPoll,
        unknownText,
        unknown,
        absent: slowAbsentOf(unknown),
        row: rowOfVersion({ uid, nodeId, shardId, listenerName, openTime }, values, source, tlsInfo, subs),
      };
      cache.set(version, parts);
      out.push(parts);
    }
    return out;
  }

  /** The apiVersions-style map of a dictionary id (for #resolve). */
  readonly #apiOf = (id: number): Readonly<Record<string, number>> => this.#api(id);
  /** Resolves a record's stored slow values into `values` (generated straight-line code where allowed). */
  readonly #resolve: (v: ResolveArgs) => void =
    RESOLVE ??
    (([, stored, values]) => {
      for (let i = 0; i < values.length; i++) values[i] = this.#value(KINDS[i]!, stored[i]!);
    });

  /** A slow value from its stored form (strings and maps through the dictionary). */
  #value(kind: SlowKind, stored: StoredSlow): AnySlowValue {
    if (kind === 'time' || kind === 'inline') return stored as bigint | string;
    // no dictionary id: a late field's default
    if (stored === 0) return kind === 'optionalText' ? undefined : lateDefault(kind);
    if (kind === 'map') return this.#api(stored as number);
    return this.#resolver.s(stored as number);
  }

  /**
   * The shared frozen sub-message (SlowParent `p`, the k-th) of these values, without unknown or
   * absent fields: keyed by its fields' dictionary ids as one number when they allow (no string
   * built per version), else by its values.
   */
  #sharedSub(p: SlowParent, k: number, values: readonly AnySlowValue[]): object {
    const cache = this.#subs[k]!;
    let key: number | string | undefined;
    if (NUMERIC_SUB_KEY[k]) {
      key = 0;
      for (const i of p.at) {
        const id = this.#stored[i] as number;
        if (!(id < SUB_KEY)) {
          key = undefined;
          break;
        }
        key = key * SUB_KEY + id;
      }
    }
    key ??= p.at.map((i) => String(values[i])).join('\u0000');
    let o = cache.get(key);
    if (o === undefined) {
      o = subOf(p, values, undefined);
      cache.set(key, o);
    }
    return o;
  }

  #api(id: number): Readonly<Record<string, number>> {
    let v = this.#apiVersions.get(id);
    if (v === undefined) {
      v = Object.freeze(parseJsonLossless(this.#resolver.s(id)) as Record<string, number>);
      this.#apiVersions.set(id, v);
    }
    return v;
  }
}
