/**
 * Ingest of ListKafkaConnections answers: connections matched to entities by uid and
 * identity, slow attributes versioned, fast values appended to the open batch as a head frame,
 * and a full batch sealed into per-connection chunks (all inside the poll's transaction).
 */
import type { SqlSession } from '../sql-session.ts';
import type { EngineSession, StoreSession } from '../engines/store-engine.ts';
import type { KafkaConnection, ListKafkaConnectionsResponse } from '../../api/schema/connection.ts';
import { ByteReader, ByteWriter, isListableText } from '../encoding/bytes.ts';
import { HEAD_STRIDE, readHeadEntry, writeHeadEntry, type FastSample } from './codec.ts';
import {
  attrsOf,
  attrsOfValues,
  entityInPlace,
  NO_ATTRS,
  sameAttrs,
  sameIdentity,
  type Attrs,
  type ClusterState,
  type Entity,
} from './match.ts';
import { sealChunkGroups } from './seal.ts';
import { Resolver, type StringDict } from '../encoding/dictionary.ts';
import type { connBatch, connEntity, connFrame, connVersion } from '../schema/schema.ts';
import type { ColumnsOf, RowOf } from '../schema/table-rows.ts';
import { encodeIdList, sqlUint, type BigValues } from '../encoding/sql-values.ts';
import { CorruptDataError } from '../errors.ts';
import { ConnPartsLoader, type ConnParts } from './parts.ts';
import { packEntity, packVersion } from './packed.ts';
import type { UidMatch } from './uid-match.ts';
import { CONNECTION_LAYOUTS, type ConnectionLayout, type IdCounters } from './layouts.ts';
import { identityOfRow, slowValuesOfRow } from './rows.ts';
import { FIELDS, type StoredSlow } from './slow.ts';
import type { AnySlowValue, SlowKind } from './fields.ts';

/** Frames per batch before it is sealed into chunks. */
export const DEFAULT_BATCH_FRAMES = 8;

/**
 * `conn_entity.last_poll` of a connection listed in its cluster's latest round (every frame of
 * one scheduled firing: a fan-out writes one per slice). The last poll that listed it is written
 * once, when a whole round does not list it (and set back to this by the next frame that does). A
 * batch seal no longer rewrites the row of every connection it saw, which on PostgreSQL cost a
 * new version of each row, and half of every page kept free for them.
 */
export const OPEN_LAST_POLL = Number.MAX_SAFE_INTEGER;

/** Uids looked up in one query at most (the JSON list stays small). */
const UID_CHUNK = 2000;

/** Writes connection answers of every cluster; one instance per writer. */
export class ConnectionIngest {
  readonly #sqlite: SqlSession;
  readonly #engine: EngineSession;
  readonly #dict: StringDict;
  readonly #batchFrames: number;
  readonly #clusters = new Map<number, ClusterState>();
  readonly #resolver: Resolver;
  readonly #parts: ConnPartsLoader;
  /** the frame being written lists a uid twice */
  #dup = false;
  /** the next free entity and version ids inside the current write (0: ask the database) */
  #nextEntity = 0;
  #nextVersion = 0;
  /** the uids of this write looked up together (uncached ones), and the entity ids found for them */
  #asked = new Set<string>();
  #found = new Map<string, number[]>();
  /** entities and versions of this write, inserted after its rows are matched */
  #newEntities: { readonly clusterId: number; readonly e: Entity; readonly c: KafkaConnection }[] = [];
  #newVersions: { readonly id: number; readonly entity: number; readonly attrs: Attrs }[] = [];
  /** how the store keeps identities and versions: the rows written and the ids chosen (layouts.ts) */
  readonly #layout: ConnectionLayout;
  /** how this store finds entities by uid (a column on SQLite, the packed record on PostgreSQL) */
  readonly #uid: UidMatch;
  /** the payload budget of a chunk group row on this engine */
  readonly #groupBytes: number;
  readonly #q;

  constructor(store: StoreSession, dict: StringDict, batchFrames = DEFAULT_BATCH_FRAMES) {
    const sqlite = store.sqlite;
    this.#sqlite = sqlite;
    this.#engine = store.engine;
    this.#layout = CONNECTION_LAYOUTS[store.engine.connectionLayout];
    this.#uid = this.#layout.uid;
    this.#groupBytes = store.engine.chunkGroupBytes;
    this.#dict = dict;
    this.#batchFrames = Math.max(1, Math.min(50, Math.floor(batchFrames)));
    this.#resolver = new Resolver(sqlite);
    this.#parts = new ConnPartsLoader(store, this.#resolver);
    this.#q = {
      openBatch: sqlite.prepare<[number], ColumnsOf<typeof connBatch, 'id' | 'frames'>>(
        'SELECT id, frames FROM conn_batch WHERE cluster_id = ? AND sealed = 0 ORDER BY id DESC LIMIT 1',
      ),
      // the latest frames, newest first, with their rounds (for the last two rounds' listings)
      recentFrames: sqlite.prepare<
        [number, number, number],
        ColumnsOf<typeof connFrame, 'poll' | 'versions' | 'rows'> & { round: string }
      >(
        `SELECT f.poll, f.versions, f.rows, p.round FROM conn_frame f JOIN poll p ON p.id = f.poll
          WHERE p.cluster_id = ? AND f.poll < ? ORDER BY f.poll DESC LIMIT ?`,
      ),
      newBatch: sqlite.prepare(
        'INSERT INTO conn_batch (cluster_id, first_poll, last_poll, frames, sealed) VALUES (?, ?, ?, 0, 0)',
      ),
      bumpBatch: sqlite.prepare('UPDATE conn_batch SET frames = frames + 1, last_poll = ? WHERE id = ?'),
      insertFrame: sqlite.prepare(
        'INSERT INTO conn_frame (poll, batch, seq, rows, total_size, dup_uids, versions, head) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      batchState: sqlite.prepare<[number], ColumnsOf<typeof connBatch, 'sealed' | 'frames'>>(
        'SELECT sealed, frames FROM conn_batch WHERE id = ?',
      ),
      byUid: sqlite.prepare<[number, ...unknown[]], ColumnsOf<typeof connEntity, 'id'>>(
        `SELECT id FROM conn_entity WHERE cluster_id = ? AND ${this.#uid.where} ORDER BY id`,
      ),
      // json_each(?, '$'): a list of strings (see translate.ts): the uids, or what the layout lists for them
      byUids: sqlite.prepare<[number, string], { uid: string | Uint8Array; id: number }>(this.#layout.byUidsSql),
      // ids are chosen before the insert: the packed record carries its own id
      nextIds: sqlite
        .prepare<[], [entity: RowOf<typeof connEntity>['id'], version: RowOf<typeof connVersion>['id']]>(
          this.#layout.nextIdsSql,
        )
        .raw(),
      insertEntity: sqlite.prepare(this.#layout.insertEntitySql),
      insertVersion: sqlite.prepare(this.#layout.insertVersionSql),
      endVersions: sqlite.prepare('UPDATE conn_version SET to_poll = ? WHERE id IN (SELECT value FROM json_each(?))'),
      batchFrames: sqlite.prepare<[number], ColumnsOf<typeof connFrame, 'poll' | 'seq' | 'head'>>(
        'SELECT poll, seq, head FROM conn_frame WHERE batch = ? ORDER BY seq',
      ),
      insertChunk: sqlite.prepare('INSERT INTO conn_chunk (batch, first_entity, data) VALUES (?, ?, ?)'),
      endEntities: sqlite.prepare('UPDATE conn_entity SET last_poll = ? WHERE id IN (SELECT value FROM json_each(?))'),
      // a store written before OPEN_LAST_POLL: ends found in the open batch's heads, open rows marked
      endEntitiesBefore: sqlite.prepare(
        'UPDATE conn_entity SET last_poll = ? WHERE id IN (SELECT value FROM json_each(?)) AND last_poll < ?',
      ),
      openEntities: sqlite.prepare(
        'UPDATE conn_entity SET last_poll = ? WHERE id IN (SELECT value FROM json_each(?)) AND last_poll <> ?',
      ),
      entityLastPoll: sqlite
        .prepare<[number], RowOf<typeof connEntity>['lastPoll']>('SELECT last_poll FROM conn_entity WHERE id = ?')
        .pluck(),
      clearHeads: sqlite.prepare('UPDATE conn_frame SET head = NULL WHERE batch = ?'),
      clearHeadsBut: sqlite.prepare(
        'UPDATE conn_frame SET head = NULL WHERE batch = ? AND poll NOT IN (SELECT value FROM json_each(?))',
      ),
      sealBatch: sqlite.prepare('UPDATE conn_batch SET sealed = 1 WHERE id = ?'),
      batchCluster: sqlite.prepare<[number], number>('SELECT cluster_id FROM conn_batch WHERE id = ?').pluck(),
      openBatches: sqlite.prepare<[], ColumnsOf<typeof connBatch, 'id'>>('SELECT id FROM conn_batch WHERE sealed = 0'),
    };
  }

  /** Forgets everything cached (after a rollback or a prune). */
  reset(): void {
    this.#clusters.clear();
    this.#resolver.reset();
    this.#parts.reset();
  }

  /**
   * Writes one answer as the frame of poll `pollId` (inside the caller's transaction); true when
   * it sealed a batch. A totalSize beyond 2^63-1 is clamped in its column and kept exactly in
   * `big` (the poll's extra JSON, `conn_frame.total_size`).
   */
  write(
    clusterId: number,
    pollId: number,
    answer: ListKafkaConnectionsResponse,
    big: BigValues = {},
    round = '',
  ): boolean {
    let sealed = false;
    const st = this.#state(clusterId);
    const key = roundKey(round, pollId);
    // the connections a finished round did not list: ended after this frame unless it lists them
    const gone = key === st.round ? undefined : this.#nextRound(st, key);
    const back: number[] = []; // listed again after a round without them: open again
    if (st.batch !== undefined) {
      // another process (prune) may have sealed or removed it
      const now = this.#q.batchState.get(st.batch.id);
      if (now === undefined || now.sealed !== 0 || now.frames !== st.batch.frames) st.batch = undefined;
    }
    if (st.batch !== undefined && st.batch.frames >= this.#batchFrames) {
      this.#seal(st.batch.id);
      st.batch = undefined;
      this.#evict(st);
      sealed = true;
    }
    if (st.batch === undefined) {
      st.batch = { id: Number(this.#q.newBatch.run(clusterId, pollId, pollId).lastInsertRowid), frames: 0 };
    }
    const counter = ++st.frameCounter;
    this.#dup = false;
    // ids are taken from the database once per write: nothing else inserts inside its transaction
    this.#nextEntity = 0;
    this.#nextVersion = 0;
    this.#newEntities = [];
    this.#newVersions = [];
    const rows = answer.connections;
    this.#lookUpUids(clusterId, st, rows);
    const versions = new Array<number>(rows.length);
    const head = new ByteWriter(rows.length * 48 + 64);
    const offsets: number[] = [];
    const last = st.order;
    const order = new Array<Entity>(rows.length);
    let expected = 0; // the row of the last frame where the next row's entity is expected
    const ended: number[] = []; // versions replaced in this poll
    for (let i = 0; i < rows.length; i++) {
      const c = rows[i]!;
      const e = entityInPlace(last, expected, c, counter) ?? this.#entity(clusterId, st, pollId, c, counter);
      if (e.row >= 0 && e.row < last.length && last[e.row] === e) expected = e.row + 1;
      // new (inserted open), listed again at once (never ended), or back after a round without it
      if (e.version !== 0 && gone?.delete(e) !== true && !st.listed.has(e) && st.previous?.has(e) === false)
        back.push(e.id);
      st.listed.set(e, pollId);
      order[i] = e;
      e.seen = counter; // marks it used: a uid listed twice in one answer gets a second entity
      if (e.version === 0 || !sameAttrs(e.attrs, c)) {
        const previous = e.version;
        e.attrs = attrsOf(c);
        // a new connection's first version: in its entity row, under its id, where the layout keeps it there
        e.version = this.#layout.versionId(previous === 0, e.id, this.#ids);
        this.#newVersions.push({ id: e.version, entity: e.id, attrs: e.attrs });
        if (previous !== 0) ended.push(previous);
      }
      versions[i] = e.version;
      if (i % HEAD_STRIDE === 0) offsets.push(head.length);
      writeHeadEntry(head, e.id, c);
    }
    this.#insertNew(pollId);
    if (ended.length > 0) this.#q.endVersions.run(pollId, JSON.stringify(ended));
    if (gone !== undefined) this.#endGone(gone);
    if (back.length > 0) this.#q.openEntities.run(OPEN_LAST_POLL, JSON.stringify(back), OPEN_LAST_POLL);
    for (let i = 0; i < order.length; i++) order[i]!.row = i;
    st.order = order;
    for (const o of offsets) head.u32(o);
    head.u32(rows.length);
    const totalSize = sqlUint(answer.totalSize, 'conn_frame.total_size', big);
    this.#q.insertFrame.run(
      pollId,
      st.batch.id,
      st.batch.frames,
      rows.length,
      totalSize,
      this.#dup ? 1 : 0,
      encodeIdList(versions),
      head.finish(),
    );
    this.#q.bumpBatch.run(pollId, st.batch.id);
    st.batch.frames++;
    return sealed;
  }

  /** Seals every open batch (for example before closing), each in its own transaction. */
  sealAll(): void {
    for (const { id } of this.#q.openBatches.all()) {
      this.#sqlite.transaction(() => this.#seal(id)).immediate();
    }
    this.reset();
  }

  /** Seals every open batch inside the caller's transaction (prune). */
  sealOpenBatches(): void {
    for (const { id } of this.#q.openBatches.all()) this.#seal(id);
    this.reset();
  }

  #state(clusterId: number): ClusterState {
    let st = this.#clusters.get(clusterId);
    if (st !== undefined) return st;
    st = {
      byUid: new Map(),
      order: [],
      batch: undefined,
      frameCounter: 0,
      round: '',
      listed: new Map(),
      previous: undefined,
    };
    const open = this.#q.openBatch.get(clusterId);
    if (open !== undefined) st.batch = { id: open.id, frames: open.frames };
    this.#loadRounds(clusterId, st);
    if (st.order.length > 0) this.#adoptLastPolls(st);
    this.#clusters.set(clusterId, st);
    return st;
  }

  /**
   * Remembers the cluster's last two rounds of frames: the entities each listed (the latest
   * round's may still grow), and the last frame's entities in answer order.
   */
  #loadRounds(clusterId: number, st: ClusterState): void {
    const rounds: { key: string; frames: { poll: number; versions: Buffer; rows: number }[] }[] = [];
    let before = Number.MAX_SAFE_INTEGER;
    // newest first, until a third round begins (or the frames end)
    // (a round without fan-out is one frame: the first page is small, each version list a blob)
    for (let page = 4; rounds.length < 3; page = Math.min(page * 2, 1024)) {
      const frames = this.#q.recentFrames.all(clusterId, before, page);
      for (const f of frames) {
        const key = roundKey(f.round, f.poll);
        if (rounds.at(-1)?.key !== key) rounds.push({ key, frames: [] });
        if (rounds.length > 2) break;
        rounds.at(-1)!.frames.push(f);
      }
      if (frames.length < page) break;
      before = frames.at(-1)!.poll;
    }
    const latest = rounds[0];
    if (latest === undefined) return;
    let damaged = false;
    const listing = (r: (typeof rounds)[number]): Map<Entity, number> => {
      const out = new Map<Entity, number>();
      // oldest frame first: an entity keeps the last poll that listed it
      for (const f of [...r.frames].reverse()) {
        const parts = this.#parts.ofFrameOrDamaged(f.versions, f.rows);
        const whole = parts !== undefined && !parts.includes(undefined);
        if (!whole) damaged = true;
        const entities = (parts ?? []).filter((p) => p !== undefined).map((p) => this.#remember(st, p));
        for (const e of entities) out.set(e, f.poll);
        if (f === r.frames[0] && r === latest) {
          // the last frame's order serves to find its rows in the next answer: only when whole
          st.order = whole ? entities : [];
          st.order.forEach((e, i) => (e.row = i));
        }
      }
      return out;
    };
    st.round = latest.key;
    st.listed = listing(latest);
    const earlier = rounds[1] === undefined ? undefined : listing(rounds[1]);
    // a damaged frame (a bad page) leaves its round's listing unknown: no connection is ended for
    // not being in it, and the first round after it ends none
    st.previous = damaged ? undefined : earlier;
  }

  /**
   * Begins round `key`: the round that ends becomes the one before, and the connections the
   * round before it listed and it did not are returned, with the last poll that listed each (the
   * caller ends them once the new round's first frame, which may list them again, is read).
   */
  #nextRound(st: ClusterState, key: string): Map<Entity, number> {
    const gone = new Map<Entity, number>();
    const listed = st.listed;
    // forEach: no entry pair per connection of the round
    st.previous?.forEach((poll, e) => {
      if (!listed.has(e)) gone.set(e, poll);
    });
    st.previous = st.listed;
    st.listed = new Map();
    st.round = key;
    return gone;
  }

  /** Writes the last poll that listed each of these connections (no longer listed: ended). */
  #endGone(gone: ReadonlyMap<Entity, number>): void {
    const lastSeen = new Map([...gone].map(([e, poll]) => [e.id, poll]));
    for (const [poll, ids] of groupByValue(lastSeen)) this.#q.endEntities.run(poll, JSON.stringify(ids));
  }

  /**
   * A store written before OPEN_LAST_POLL set `last_poll` at each batch seal: the connections of
   * the latest round become open, and those that ended in the open batch get the last poll that
   * listed them (the seal would have written it). Nothing to do when the last frame's first
   * connection is already open; harmless when run again.
   */
  #adoptLastPolls(st: ClusterState): void {
    const first = st.order[0];
    if (first !== undefined && Number(this.#q.entityLastPoll.get(first.id)) === OPEN_LAST_POLL) return;
    if (st.batch !== undefined) {
      const listed = new Set([...st.listed.keys()].map((e) => e.id));
      const lastSeen = new Map<number, number>();
      // a head it cannot read leaves those ends as the seal rule wrote them: never a reason to refuse the poll
      this.#eachHeadEntry(
        st.batch.id,
        (poll, entity) => {
          if (!listed.has(entity)) lastSeen.set(entity, poll);
        },
        [],
      );
      for (const [poll, ids] of groupByValue(lastSeen)) this.#q.endEntitiesBefore.run(poll, JSON.stringify(ids), poll);
    }
    if (st.listed.size > 0) {
      const ids = [...st.listed.keys()].map((e) => e.id);
      this.#q.openEntities.run(OPEN_LAST_POLL, JSON.stringify(ids), OPEN_LAST_POLL);
    }
  }

  /**
   * Calls `each` for every entry of the head frames of a batch, frame by frame. With `damaged`,
   * a head that does not decode gives no entries and its poll is added there, instead of throwing.
   */
  #eachHeadEntry(
    batchId: number,
    each: (poll: number, entity: number, sample: FastSample, seq: number) => void,
    damaged?: number[],
  ): void {
    for (const f of this.#q.batchFrames.all(batchId)) {
      if (f.head === null) continue;
      let entries: { entity: number; sample: FastSample }[];
      try {
        const r = new ByteReader(f.head);
        const count = r.u32At(f.head.length - 4);
        entries = new Array<{ entity: number; sample: FastSample }>(count);
        for (let i = 0; i < count; i++) entries[i] = readHeadEntry(r);
      } catch (err) {
        if (damaged === undefined) throw err;
        damaged.push(f.poll);
        continue; // none of a damaged head's entries: the ones before the damage may be wrong too
      }
      for (const { entity, sample } of entries) each(f.poll, entity, sample, f.seq);
    }
  }

  #remember(st: ClusterState, p: ConnParts): Entity {
    const id = identityOfRow(p.row);
    const e: Entity = {
      id: p.entity,
      uid: id.uid,
      nodeId: id.nodeId,
      shardId: id.shardId,
      listenerName: id.listenerName,
      ipAddress: id.ipAddress,
      port: id.port,
      tls: id.tls,
      openTime: id.openTime,
      version: p.version,
      attrs: attrsOfValues(slowValuesOfRow(p.row), p.unknownText),
      seen: 0,
      alone: true,
      row: -1,
    };
    const list = st.byUid.get(id.uid);
    if (list === undefined) {
      st.byUid.set(id.uid, [e]);
      return e;
    }
    const known = list.find((x) => x.id === e.id);
    if (known !== undefined) return known;
    join(list, e);
    return e;
  }

  #entity(clusterId: number, st: ClusterState, pollId: number, c: KafkaConnection, counter: number): Entity {
    const cached = st.byUid.get(c.uid);
    if (cached !== undefined) {
      for (const e of cached) {
        if (e.seen === counter) this.#dup = true;
        else if (sameIdentity(e, c)) return e;
      }
    }
    const known = this.#asked.has(c.uid)
      ? (this.#found.get(c.uid) ?? [])
      : this.#q.byUid.all(clusterId, ...this.#uid.params(c.uid)).map((r) => r.id);
    for (const id of known) {
      if (cached?.some((e) => e.id === id)) continue;
      // a stored connection whose records do not decode is left as it is: the uid gets a new one
      const p = this.#latestOrDamaged(id);
      if (p === undefined) continue;
      const e = this.#remember(st, p);
      if (e.seen !== counter && sameIdentity(e, c)) return e;
    }
    return this.#newEntity(clusterId, st, c);
  }

  /** The latest stored version of an entity; undefined when it has none or its records do not decode. */
  #latestOrDamaged(entity: number): ConnParts | undefined {
    try {
      return this.#parts.latestOfEntity(entity);
    } catch (err) {
      if (err instanceof CorruptDataError) return undefined;
      throw err;
    }
  }

  #newEntity(clusterId: number, st: ClusterState, c: KafkaConnection): Entity {
    const id = this.#takeEntityId();
    const e: Entity = {
      id,
      uid: c.uid,
      nodeId: c.nodeId,
      shardId: c.shardId,
      listenerName: c.listenerName,
      ipAddress: c.source.ipAddress,
      port: c.source.port,
      tls: c.tlsInfo.enabled,
      openTime: c.openTime,
      version: 0,
      attrs: NO_ATTRS,
      seen: 0,
      alone: true,
      row: -1,
    };
    this.#newEntities.push({ clusterId, e, c });
    const list = st.byUid.get(c.uid);
    if (list === undefined) st.byUid.set(c.uid, [e]);
    else join(list, e);
    return e;
  }

  /**
   * Looks up, in one query, the stored entities of the answer's uids this writer does not
   * remember (new connections, mostly): `#entity` then needs no query per new connection.
   */
  #lookUpUids(clusterId: number, st: ClusterState, rows: readonly KafkaConnection[]): void {
    this.#asked = new Set();
    this.#found = new Map();
    for (const c of rows) if (!st.byUid.has(c.uid) && isListableText(c.uid)) this.#asked.add(c.uid);
    if (this.#asked.size === 0) return;
    const uids = [...this.#asked];
    const { listed, uidOf } = this.#layout.uidList(uids);
    for (let i = 0; i < listed.length; i += UID_CHUNK) {
      for (const row of this.#q.byUids.all(clusterId, JSON.stringify(listed.slice(i, i + UID_CHUNK)))) {
        const uid = uidOf(row.uid);
        if (uid === undefined) continue; // a blob uid (lone surrogates) is never in the list
        const id = row.id;
        const list = this.#found.get(uid);
        if (list === undefined) this.#found.set(uid, [id]);
        else list.push(id);
      }
    }
  }

  /** Inserts the entities and versions this write made: strings interned together first. */
  #insertNew(pollId: number): void {
    if (this.#newEntities.length === 0 && this.#newVersions.length === 0) return;
    const strings: string[] = [];
    for (const { c } of this.#newEntities) strings.push(c.listenerName);
    for (const { attrs } of this.#newVersions) {
      for (let i = 0; i < FIELDS.length; i++) {
        const kind = FIELDS[i]!.kind;
        const v = attrs.values[i];
        if (kind === 'map') strings.push(JSON.stringify(v));
        else if (kind !== 'time' && kind !== 'inline' && typeof v === 'string') strings.push(v);
      }
    }
    this.#dict.prefetch(strings);
    // a new connection's first version goes into its entity row where the layout keeps it there
    const first = new Map<number, Buffer>();
    for (const v of this.#newVersions) {
      if (this.#layout.inEntityRow(v)) first.set(v.id, this.#versionRecord(v.id, v.entity, pollId, v.attrs).packed);
    }
    for (const { clusterId, e, c } of this.#newEntities)
      this.#insertEntity(clusterId, pollId, e.id, c, first.get(e.id));
    for (const v of this.#newVersions) if (!first.has(v.id)) this.#insertVersion(v.id, v.entity, pollId, v.attrs);
    this.#newEntities = [];
    this.#newVersions = [];
  }

  /** Reads the next free entity and version ids (once per write, when first needed). */
  #readNextIds(): void {
    const [entity, version] = this.#q.nextIds.get() ?? [1, 1];
    this.#nextEntity = Number(entity);
    this.#nextVersion = Number(version);
  }

  #takeEntityId(): number {
    if (this.#nextEntity === 0) this.#readNextIds();
    return this.#nextEntity++;
  }

  #takeVersionId(): number {
    if (this.#nextVersion === 0) this.#readNextIds();
    return this.#nextVersion++;
  }

  /** The id counters the layout chooses a new version's id from. */
  readonly #ids: IdCounters = {
    entity: () => this.#takeEntityId(),
    version: () => this.#takeVersionId(),
  };

  #insertEntity(clusterId: number, pollId: number, id: number, c: KafkaConnection, firstVersion?: Buffer): void {
    const listener = this.#dict.id(c.listenerName);
    const packed = packEntity({
      id,
      uid: c.uid,
      nodeId: c.nodeId,
      shardId: c.shardId,
      listener,
      ipAddress: c.source.ipAddress,
      port: c.source.port,
      tls: c.tlsInfo.enabled,
      openTime: c.openTime,
    });
    this.#q.insertEntity.run(
      ...this.#layout.entityParams({
        id,
        clusterId,
        pollId,
        lastPoll: OPEN_LAST_POLL,
        c,
        listener,
        packed,
        firstVersion,
      }),
    );
  }

  #insertVersion(id: number, entity: number, pollId: number, a: Attrs): void {
    const { stored, packed } = this.#versionRecord(id, entity, pollId, a);
    this.#q.insertVersion.run(
      ...this.#layout.versionParams({ id, entity, pollId, stored, unknown: a.unknown, packed }),
    );
  }

  /** A version's stored slow values and its packed record. */
  #versionRecord(id: number, entity: number, pollId: number, a: Attrs): { stored: StoredSlow[]; packed: Buffer } {
    const stored = new Array<StoredSlow>(FIELDS.length);
    for (let i = 0; i < FIELDS.length; i++) stored[i] = this.#stored(FIELDS[i]!.kind, a.values[i]);
    return { stored, packed: packVersion({ id, entity, fromPoll: pollId, stored, unknown: a.unknown }) };
  }

  /** The stored form of a slow value: a dictionary id (0: an unset optional string), or the value itself. */
  #stored(kind: SlowKind, v: AnySlowValue): StoredSlow {
    if (kind === 'time' || kind === 'inline') return v as bigint | string;
    if (kind === 'map') return this.#dict.id(JSON.stringify(v));
    if (v === undefined) return 0;
    return this.#dict.id(v as string);
  }

  /** Regroups the head frames of a batch into one chunk per connection and drops the heads. */
  #seal(batchId: number): void {
    this.#engine.scopeCluster(() => Number(this.#q.batchCluster.get(batchId)));
    // a head that does not decode (a damaged page) is left as it is, for `db check` and the
    // readers to report, and the batch is sealed without its samples: else every later poll of the
    // cluster would fail here, at the seal it retries
    const damaged: number[] = [];
    for (const g of sealChunkGroups(this.#q.batchFrames.all(batchId), damaged, this.#groupBytes))
      this.#q.insertChunk.run(batchId, g.first, g.data);
    if (damaged.length === 0) this.#q.clearHeads.run(batchId);
    else this.#q.clearHeadsBut.run(batchId, JSON.stringify(damaged));
    this.#q.sealBatch.run(batchId);
  }

  #evict(st: ClusterState): void {
    const horizon = st.frameCounter - 4 * this.#batchFrames;
    // no entry pair and no new list per uid: nearly every list keeps all of its entities
    st.byUid.forEach((list, uid) => {
      let stale = 0;
      for (let i = 0; i < list.length; i++) if (list[i]!.seen <= horizon) stale++;
      if (stale === 0) return;
      if (stale === list.length) {
        st.byUid.delete(uid);
        return;
      }
      const kept = list.filter((e) => e.seen > horizon);
      st.byUid.set(uid, kept);
      if (kept.length === 1) kept[0]!.alone = true;
    });
  }
}

/** A round's key: the collector's round id, or the poll's own when there is none (each frame its own round). */
function roundKey(round: string, pollId: number): string {
  return round === '' ? `#${pollId}` : round;
}

/** The keys of a map grouped by their value. */
function groupByValue(m: ReadonlyMap<number, number>): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const [k, v] of m) {
    const list = out.get(v);
    if (list === undefined) out.set(v, [k]);
    else list.push(k);
  }
  return out;
}

/** Adds an entity to the others of its uid (none of them is alone any more). */
function join(list: Entity[], e: Entity): void {
  list.push(e);
  for (const x of list) x.alone = false;
}
