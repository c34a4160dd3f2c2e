/**
 * The narrow versions read by scans over many polls (counter trends, the timeline's connection
 * detectors, fleet's open connections): of a connection's slow fields, only those their group
 * keys, labels, detectors and open/close rules need (uid, broker, listener, client, software,
 * group, principal, authentication mechanism and state, address, state, open and close time),
 * decoded from the same packed records as full versions (parts.ts) with every other field
 * skipped: no row, no sub-messages, no unknown or absent fields (neither changes a value read
 * here), one frozen object per stored version.
 */
import type { KafkaConnection } from '../../api/schema/connection.ts';
import type { StoreSession, EngineSession } from '../engines/store-engine.ts';
import { ByteReader } from '../encoding/bytes.ts';
import type { Resolver } from '../encoding/dictionary.ts';
import { IdCache } from '../encoding/id-cache.ts';
import { generate } from '../../api/wire/record-literal.ts';
import { decoding } from '../errors.ts';
import type { SqlStatement } from '../sql-session.ts';
import { V_LATE, V_UNKNOWN } from './packed.ts';
import { BASE_AT, FIELDS, LATE_AT } from './slow.ts';
import { loadVersionRecords, recordsByIdsStatement, type VersionBlobs } from './version-records.ts';

/** A connection's slow fields that scans over many polls read, as of one stored version, with the store's ids. */
export type CounterVersion = Readonly<
  Pick<
    KafkaConnection,
    | 'uid'
    | 'nodeId'
    | 'listenerName'
    | 'clientId'
    | 'clientSoftwareName'
    | 'clientSoftwareVersion'
    | 'groupId'
    | 'state'
    | 'openTime'
    | 'closeTime'
  >
> & {
  readonly authenticationInfo: Readonly<
    Pick<KafkaConnection['authenticationInfo'], 'mechanism' | 'state' | 'userPrincipal'>
  >;
  readonly source: Readonly<Pick<KafkaConnection['source'], 'ipAddress' | 'port'>>;
  /** the stored version: the same id means the same slow fields */
  readonly versionId: number;
  /** the stored connection: its identity (uid plus immutable facts) */
  readonly entityId: number;
};

/** The slow fields (fields.ts) a counter version holds, by their path in a row. */
const WANTED = [
  'clientId',
  'clientSoftwareName',
  'clientSoftwareVersion',
  'groupId',
  'state',
  'closeTime',
  'authenticationInfo.mechanism',
  'authenticationInfo.state',
  'authenticationInfo.userPrincipal',
] as const;
type Wanted = (typeof WANTED)[number];

/** Per slow field (FIELDS order): its place in WANTED, or -1 when it is skipped. */
const WANTED_AT: readonly number[] = FIELDS.map((f) => (WANTED as readonly string[]).indexOf(f.path.join('.')));
for (const name of WANTED) {
  const f = FIELDS.find((x) => x.path.join('.') === name);
  // the values below are read as these kinds hold them: a change to fields.ts must come here too
  const ok = name === 'closeTime' ? f?.kind === 'time' : f?.kind === 'text' || f?.kind === 'enum';
  if (!ok) throw new Error(`counter versions: the slow field ${name} is not held as this reader expects`);
}
const AT = Object.fromEntries(WANTED.map((name, i) => [name, i])) as Record<Wanted, number>;

/** How a field of the record's original layout is read: skipped, or into the values at its place in WANTED. */
function baseFieldCode(i: number): string {
  const at = WANTED_AT[i]!;
  const kind = FIELDS[i]!.kind;
  if (at >= 0) return kind === 'time' ? `o[${at}] = r.time();` : `o[${at}] = s(r.uint());`;
  if (kind === 'time') return 'r.skipVarint(); r.skipVarint();';
  return kind === 'inline' ? 'r.skipString();' : 'r.skipVarint();';
}
/**
 * The fields of a version record's original layout read in straight-line code (`v`: the reader,
 * the values, the strings of dictionary ids), made of fields.ts's kinds and positions only: quick
 * from a process's first records on, where a loop over kinds waits for the optimiser. Undefined
 * when code generation is refused (the loop over #field is used).
 */
const READ_BASE = generate<(v: [ByteReader, (string | bigint)[], (id: number) => string]) => void>(
  `const r = v[0], o = v[1], s = v[2];\n${BASE_AT.map(baseFieldCode).join('\n')}`,
);

/** Loads and caches counter versions by version id. */
export class CounterVersionLoader {
  readonly #engine: EngineSession;
  readonly #resolver: Resolver;
  readonly #byIds: SqlStatement<[string], VersionBlobs>;
  readonly #cache = new IdCache<CounterVersion>();
  /** shared authenticationInfo objects, by principal (then mechanism and state, a short list) */
  readonly #auth = new Map<string, CounterVersion['authenticationInfo'][]>();
  /** one record's wanted values (reused) */
  readonly #values = new Array<string | bigint>(WANTED.length);
  /** READ_BASE's argument (reused): the reader is set per blob */
  readonly #args: [ByteReader, (string | bigint)[], (id: number) => string] = [
    new ByteReader(new Uint8Array(0)),
    this.#values,
    (id) => (id === 0 ? '' : this.#resolver.s(id)),
  ];

  constructor(store: StoreSession, resolver: Resolver) {
    this.#engine = store.engine;
    this.#resolver = resolver;
    this.#byIds = recordsByIdsStatement(store);
  }

  /** Forgets the cache (after a rollback or a prune). */
  reset(): void {
    this.#cache.clear();
    this.#auth.clear();
  }

  /** The cached version of an id, or undefined. */
  cached(id: number): CounterVersion | undefined {
    return this.#cache.get(id);
  }

  /**
   * The versions of a frame's rows `ids`, in order: where `from[i]` places row i in the previous
   * frame, that frame's version (`previous[from[i]]`); else the cached one; the rest loaded in one
   * more read. Throws when a version is missing from the store.
   */
  inOrder(
    ids: readonly number[],
    previous: readonly CounterVersion[] | undefined,
    from: Int32Array | undefined,
  ): CounterVersion[] {
    const n = ids.length;
    const out = new Array<CounterVersion>(n);
    let missingIds: number[] | undefined;
    for (let i = 0; i < n; i++) {
      const j = from === undefined ? -1 : from[i]!;
      const v = j >= 0 ? previous![j] : this.#cache.get(ids[i]!);
      if (v !== undefined) out[i] = v;
      else (missingIds ??= []).push(ids[i]!);
    }
    if (missingIds === undefined) return out;
    this.load([...new Set(missingIds)]);
    for (let i = 0; i < n; i++) {
      if (out[i] !== undefined) continue;
      const v = this.#cache.get(ids[i]!);
      if (v === undefined) throw new Error(`connection version ${ids[i]} is missing`);
      out[i] = v;
    }
    return out;
  }

  /** Loads the versions of these ids (not cached, each listed once) into the cache, in one query (or pieces). */
  load(ids: readonly number[]): void {
    decoding({ table: 'conn_version' }, () =>
      loadVersionRecords(this.#engine, this.#byIds, this.#resolver, ids, this.#decodeInto),
    );
  }

  readonly #decodeInto = (blobs: VersionBlobs | undefined): void => this.#decode(blobs);

  /** Decodes version records and their entity records (row i of both aggregates) into the cache. */
  #decode(blobs: VersionBlobs | undefined): void {
    if (blobs === undefined) return;
    const [vblob, eblob] = blobs;
    if (vblob === null || eblob === null) return;
    const r = this.#resolver;
    // many records: load the (usually small) dictionary at once; a few: look strings up one by one
    if (vblob.length > 20_000) r.preload();
    const rv = new ByteReader(vblob);
    const re = new ByteReader(eblob);
    while (!rv.atEnd()) this.#record(rv, re);
  }

  /** Decodes one version record and its entity record into the cache (a small function: the optimiser's unit). */
  #record(rv: ByteReader, re: ByteReader): void {
    const r = this.#resolver;
    const values = this.#values;
    // the version record, in the layout of packed.ts packVersion
    const version = rv.uint();
    const entity = rv.uint();
    rv.skipVarint(); // the poll it is valid from
    if (READ_BASE !== undefined) {
      const args = this.#args;
      args[0] = rv;
      READ_BASE(args);
    } else for (const i of BASE_AT) this.#field(rv, i, true);
    const flags = rv.uint();
    if (flags & V_UNKNOWN) rv.skipString();
    // a record written before the late fields were declared lacks them: they read as defaults
    for (const i of LATE_AT) this.#field(rv, i, (flags & V_LATE) !== 0);
    // the entity record, in the layout of packed.ts packEntity
    const entityId = re.uint();
    if (entityId !== entity)
      throw new Error(`connection version ${version}: entity record ${entityId} instead of ${entity}`);
    const uid = re.string();
    const nodeId = re.int();
    re.skipVarint(); // shard
    const listener = re.uint();
    const ipAddress = re.string();
    const port = re.int();
    re.skipVarint(); // tls
    const openTime = re.time();
    if (this.#cache.get(version) !== undefined) return;
    const authenticationInfo = this.#authOf(
      values[AT['authenticationInfo.mechanism']] as CounterVersion['authenticationInfo']['mechanism'],
      values[AT['authenticationInfo.state']] as CounterVersion['authenticationInfo']['state'],
      values[AT['authenticationInfo.userPrincipal']] as string,
    );
    const v: CounterVersion = {
      uid,
      nodeId,
      listenerName: r.s(listener),
      clientId: values[AT.clientId] as string,
      clientSoftwareName: values[AT.clientSoftwareName] as string,
      clientSoftwareVersion: values[AT.clientSoftwareVersion] as string,
      groupId: values[AT.groupId] as string,
      state: values[AT.state] as KafkaConnection['state'],
      openTime,
      closeTime: values[AT.closeTime] as bigint,
      authenticationInfo,
      source: Object.freeze({ ipAddress, port }),
      versionId: version,
      entityId: entity,
    };
    this.#cache.set(version, Object.freeze(v));
  }

  /** The shared frozen authenticationInfo of these values. */
  #authOf(
    mechanism: CounterVersion['authenticationInfo']['mechanism'],
    state: CounterVersion['authenticationInfo']['state'],
    userPrincipal: string,
  ): CounterVersion['authenticationInfo'] {
    // the dictionary's strings: the same text is mostly the same string, compared at once (no key built and hashed)
    let list = this.#auth.get(userPrincipal);
    if (list === undefined) {
      list = [];
      this.#auth.set(userPrincipal, list);
    }
    for (const a of list) if (a.mechanism === mechanism && a.state === state) return a;
    // in the order of a full row's authenticationInfo
    const auth = Object.freeze({ mechanism, state, userPrincipal });
    list.push(auth);
    return auth;
  }

  /** Reads slow field `i` of a version record (`present`: the record holds it) into #values, or skips it. */
  #field(rv: ByteReader, i: number, present: boolean): void {
    const at = WANTED_AT[i]!;
    const kind = FIELDS[i]!.kind;
    if (at < 0) {
      if (!present) return;
      if (kind === 'time') {
        rv.skipVarint();
        rv.skipVarint();
      } else if (kind === 'inline') rv.skipString();
      else rv.skipVarint();
      return;
    }
    if (kind === 'time') {
      this.#values[at] = rv.time();
      return;
    }
    // a dictionary id; 0 (none, or a late field the record lacks): the empty string, as full versions read it
    const id = present ? rv.uint() : 0;
    this.#values[at] = id === 0 ? '' : this.#resolver.s(id);
  }
}
