/**
 * Loading the slow parts of connection rows: versions with their entity, from the packed
 * records (packed.ts), strings resolved through the dictionary, cached by version id
 * (versions never change once written, except their `to_poll`, which is not part of a row).
 */
import type Database from 'better-sqlite3';
import { parseJsonLossless, type JsonValue } from '../../api/codec/lossless-json.ts';
import { authOf, ownAuth, sharedAuth, sharedSource, sharedTls, slowAbsentOf, type Auth, type ConnSlow } from './rows.ts';
import { ByteReader } from '../bytes.ts';
import type { Resolver } from '../dictionary.ts';
import { decoding } from '../errors.ts';
import { IdCache } from '../id-cache.ts';
import { decodeIdList } from '../sql-values.ts';

/** The slow parts of one connection version (identity, attributes, shared sub-objects) and its bookkeeping. */
export type ConnParts = ConnSlow & {
  readonly version: number;
  readonly entity: number;
  readonly fromPoll: number;
  /** the slow-part unknown fields as the writer compares them */
  readonly unknownText: string | undefined;
};

const blobs = (rows: string): string =>
  `SELECT CAST(group_concat(v.packed, '') AS BLOB), CAST(group_concat(e.packed, '') AS BLOB) FROM ${rows}`;

type Blobs = [Buffer | null, Buffer | null];

/** 2^17: three dictionary ids below it make one exact numeric key (51 bits). */
const AUTH_KEY = 131_072;

/** Loads and caches ConnParts. */
export class ConnPartsLoader {
  readonly #resolver: Resolver;
  readonly #cache = new IdCache<ConnParts>();
  readonly #apiVersions = new Map<number, Readonly<Record<string, number>>>();
  readonly #auths = new Map<number, Auth>();
  readonly #byIds: Database.Statement;
  readonly #allOfEntity: Database.Statement;

  constructor(sqlite: Database.Database, resolver: Resolver) {
    this.#resolver = resolver;
    // two blobs holding every record: one row instead of one per version
    this.#byIds = sqlite
      .prepare(blobs('json_each(?) j JOIN conn_version v ON v.id = j.value JOIN conn_entity e ON e.id = v.entity'))
      .raw();
    this.#allOfEntity = sqlite.prepare(blobs('conn_version v JOIN conn_entity e ON e.id = v.entity WHERE v.entity = ?')).raw();
  }

  /** Forgets the cache (after a rollback or a prune). */
  reset(): void {
    this.#cache.clear();
    this.#apiVersions.clear();
    this.#auths.clear();
  }

  /** The parts of these version ids (loading the ones not cached in one query). */
  byIds(ids: Iterable<number>): Map<number, ConnParts> {
    const list = Array.isArray(ids) ? (ids as readonly number[]) : [...ids];
    const parts = this.inOrder(list);
    const out = new Map<number, ConnParts>();
    for (let i = 0; i < list.length; i++) out.set(list[i]!, parts[i]!);
    return out;
  }

  /** The parts of these version ids, in the same order (loading the ones not cached in one query). */
  inOrder(ids: readonly number[]): ConnParts[] {
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
      decoding({ table: 'conn_version' }, () => this.#build(this.#byIds.get(JSON.stringify(missing)) as Blobs));
      for (let i = 0; i < ids.length; i++) {
        if (out[i] !== undefined) continue;
        const p = cache.get(ids[i]!);
        if (p === undefined) throw new Error(`connection version ${ids[i]} is missing`);
        out[i] = p;
      }
    }
    return out;
  }

  /** The parts of the versions listed in a frame's version blob, in answer order. */
  ofFrame(versions: Uint8Array, rows: number): ConnParts[] {
    return this.inOrder(decodeIdList(versions, rows));
  }

  /** The current (latest) version of an entity. */
  latestOfEntity(entity: number): ConnParts | undefined {
    return this.allOfEntity(entity).at(-1);
  }

  /** Every version of an entity, oldest first. */
  allOfEntity(entity: number): ConnParts[] {
    return decoding({ table: 'conn_version', entity: `connection ${entity}` }, () => this.#build(this.#allOfEntity.get(entity) as Blobs)).sort((a, b) => a.fromPoll - b.fromPoll || a.version - b.version);
  }

  /** Decodes the version and entity records, which come in lockstep (row i of both aggregates), into the cache. */
  #build([vblob, eblob]: Blobs): ConnParts[] {
    if (vblob === null || eblob === null) return [];
    const r = this.#resolver;
    // many records: load the (usually small) dictionary at once; a few: look strings up one by one
    if (vblob.length > 20_000) r.preload();
    const rv = new ByteReader(vblob);
    const re = new ByteReader(eblob);
    const cache = this.#cache;
    const out: ConnParts[] = [];
    while (!rv.atEnd()) {
      const version = rv.uint();
      const entity = rv.uint();
      const fromPoll = rv.uint();
      const clientId = rv.uint();
      const softwareName = rv.uint();
      const softwareVersion = rv.uint();
      const mechanism = rv.uint();
      const authState = rv.uint();
      const principal = rv.uint();
      const state = rv.uint();
      const closeTime = rv.time();
      const groupId = rv.uint();
      const groupInstanceId = rv.uint();
      const groupMemberId = rv.string();
      const transactionalId = rv.uint();
      const apiVersions = rv.uint();
      const unknownText = rv.uint() === 1 ? rv.string() : undefined;
      // the entity record, in the layout of packed.ts packEntity
      const entityId = re.uint();
      if (entityId !== entity) throw new Error(`connection version ${version}: entity record ${entityId} instead of ${entity}`);
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
      const unknown = unknownText === undefined ? undefined : (parseJsonLossless(unknownText) as Record<string, JsonValue>);
      const mechanismText = r.s(mechanism);
      const authStateText = r.s(authState);
      const principalText = r.s(principal);
      const parts: ConnParts = {
        version,
        entity,
        fromPoll,
        clientId: r.s(clientId),
        softwareName: r.s(softwareName),
        softwareVersion: r.s(softwareVersion),
        state: r.s(state),
        closeTime,
        groupId: r.s(groupId),
        groupInstanceId: r.s(groupInstanceId),
        groupMemberId,
        transactionalId: r.s(transactionalId),
        apiVersions: this.#api(apiVersions),
        unknownText,
        unknown,
        absent: slowAbsentOf(unknown),
        uid,
        nodeId,
        shardId,
        listenerName: r.s(listener),
        openTime,
        auth: authOf(
          mechanismText,
          authStateText,
          principalText,
          unknown,
          ownAuth(unknown) ? undefined : this.#auth(mechanism, authState, principal, mechanismText, authStateText, principalText),
        ),
        source: sharedSource(ipAddress, port, unknown),
        tlsInfo: sharedTls(tls, unknown),
      };
      cache.set(version, parts);
      out.push(parts);
    }
    return out;
  }

  /** The shared authenticationInfo of these dictionary ids (a numeric key: no string built per version). */
  #auth(mechanism: number, state: number, principal: number, mechanismText: string, stateText: string, principalText: string): Auth {
    const small = mechanism < AUTH_KEY && state < AUTH_KEY && principal < AUTH_KEY;
    if (!small) return sharedAuth(mechanismText, stateText, principalText);
    const key = (principal * AUTH_KEY + state) * AUTH_KEY + mechanism;
    let a = this.#auths.get(key);
    if (a === undefined) {
      a = sharedAuth(mechanismText, stateText, principalText);
      this.#auths.set(key, a);
    }
    return a;
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
