/**
 * Loading the slow parts of connection rows: versions with their entity, from the packed
 * records (conn-packed.ts), strings resolved through the dictionary, cached by version id
 * (versions never change once written, except their `to_poll`, which is not part of a row).
 */
import type Database from 'better-sqlite3';
import { parseJsonLossless, type JsonValue } from '../api/codec/lossless-json.ts';
import type { ConnSlow } from './conn-codec.ts';
import { readEntity } from './conn-packed.ts';
import { ByteReader } from './bytes.ts';
import type { Resolver } from './dictionary.ts';
import { decodeIdList } from './sql-values.ts';

/** The slow parts of one connection version, flat (identity, attributes and bookkeeping). */
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

/** Loads and caches ConnParts. */
export class ConnPartsLoader {
  readonly #resolver: Resolver;
  readonly #cache = new Map<number, ConnParts>();
  readonly #apiVersions = new Map<number, Readonly<Record<string, number>>>();
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
  }

  /** The parts of these version ids (loading the ones not cached in one query). */
  byIds(ids: Iterable<number>): Map<number, ConnParts> {
    const out = new Map<number, ConnParts>();
    const missing: number[] = [];
    for (const id of ids) {
      if (out.has(id)) continue;
      const hit = this.#cache.get(id);
      if (hit !== undefined) out.set(id, hit);
      else missing.push(id);
    }
    if (missing.length > 0) {
      for (const p of this.#build(this.#byIds.get(JSON.stringify(missing)) as Blobs)) out.set(p.version, p);
    }
    return out;
  }

  /** The parts of these version ids, in the same order (loading the ones not cached in one query). */
  inOrder(ids: readonly number[]): ConnParts[] {
    const out = new Array<ConnParts>(ids.length);
    let missing = false;
    for (let i = 0; i < ids.length; i++) {
      const hit = this.#cache.get(ids[i]!);
      if (hit === undefined) missing = true;
      else out[i] = hit;
    }
    if (missing) {
      const loaded = this.byIds(ids.filter((id) => !this.#cache.has(id)));
      for (let i = 0; i < ids.length; i++) {
        if (out[i] !== undefined) continue;
        const p = loaded.get(ids[i]!);
        if (p === undefined) throw new Error(`connection version ${ids[i]} is missing`);
        out[i] = p;
      }
    }
    return out;
  }

  /** The parts of the versions listed in a frame's version blob, in answer order. */
  ofFrame(versions: Uint8Array, rows: number): ConnParts[] {
    const ids = decodeIdList(versions, rows);
    const map = this.byIds(ids);
    return ids.map((id) => {
      const p = map.get(id);
      if (p === undefined) throw new Error(`connection version ${id} is missing`);
      return p;
    });
  }

  /** The current (latest) version of an entity. */
  latestOfEntity(entity: number): ConnParts | undefined {
    return this.allOfEntity(entity).at(-1);
  }

  /** Every version of an entity, oldest first. */
  allOfEntity(entity: number): ConnParts[] {
    return this.#build(this.#allOfEntity.get(entity) as Blobs).sort((a, b) => a.fromPoll - b.fromPoll || a.version - b.version);
  }

  /** Decodes the version and entity records, which come in lockstep (row i of both aggregates). */
  #build([vblob, eblob]: Blobs): ConnParts[] {
    if (vblob === null || eblob === null) return [];
    const r = this.#resolver;
    // many records: load the (usually small) dictionary at once; a few: look strings up one by one
    if (vblob.length > 20_000) r.preload();
    const s = (id: number): string => r.s(id);
    const rv = new ByteReader(vblob);
    const re = new ByteReader(eblob);
    const out: ConnParts[] = [];
    while (!rv.atEnd()) {
      const version = rv.uint();
      const entity = rv.uint();
      const fromPoll = rv.uint();
      const e = readEntity(re);
      if (e.id !== entity) throw new Error(`connection version ${version}: entity record ${e.id} instead of ${entity}`);
      const parts: ConnParts = {
        version,
        entity,
        fromPoll,
        clientId: s(rv.uint()),
        softwareName: s(rv.uint()),
        softwareVersion: s(rv.uint()),
        mechanism: s(rv.uint()),
        authState: s(rv.uint()),
        principal: s(rv.uint()),
        state: s(rv.uint()),
        closeTime: rv.time(),
        groupId: s(rv.uint()),
        groupInstanceId: s(rv.uint()),
        groupMemberId: rv.string(),
        transactionalId: s(rv.uint()),
        apiVersions: this.#api(rv.uint()),
        unknownText: rv.uint() === 1 ? rv.string() : undefined,
        unknown: undefined,
        uid: e.uid,
        nodeId: e.nodeId,
        shardId: e.shardId,
        listenerName: s(e.listener),
        ipAddress: e.ipAddress,
        port: e.port,
        tls: e.tls,
        openTime: e.openTime,
        auth: undefined,
        source: undefined,
        tlsInfo: undefined,
      };
      if (parts.unknownText !== undefined) {
        (parts as { unknown: unknown }).unknown = parseJsonLossless(parts.unknownText) as Record<string, JsonValue>;
      }
      const cached = this.#cache.get(version);
      if (cached !== undefined) {
        out.push(cached);
        continue;
      }
      this.#cache.set(version, parts);
      out.push(parts);
    }
    return out;
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
