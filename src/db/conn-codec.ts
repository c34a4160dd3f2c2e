/**
 * How a Kafka connection is split for storage and put back together: identity (immutable),
 * slow attributes (versions), fast values (samples, binary), and unknown fields by path.
 * Head entries hold absolute samples of an open batch; chunks hold one connection's samples
 * over a sealed batch, delta-encoded (docs/storage.md describes both byte layouts).
 */
import { cloneJson, parseJsonLossless, stringifyJson, type JsonValue } from '../api/codec/lossless-json.ts';
import type { KafkaConnection } from '../api/schema/connection.ts';
import { ByteReader, ByteWriter, type Num } from './bytes.ts';

/** Fast numeric fields, in storage order: idle first, then totals, then recent statistics. */
export const FAST_FIELDS = 9;
/** Flag bits of a sample (chunk form adds bits 0..8 for non-zero deltas, shifted by 3). */
export const HAS_MORE = 1;
/** Flag: the sample has sampled in-flight requests. */
export const INFLIGHT = 2;
/** Flag: the sample has unknown fields (extra JSON). */
export const EXTRA = 4;

/** The fast part of one connection row. */
export interface FastSample {
  /** idle, total fetchBytes/produceBatchCount/produceBytes/requestCount, recent (same four) */
  readonly v: Num[];
  readonly hasMore: boolean;
  /** sampled in-flight requests as [apiKey, inFlightDuration] */
  readonly inflight: readonly (readonly [number, Num])[] | undefined;
  /** JSON of unknown fields inside the fast parts, by path */
  readonly extra: string | undefined;
}

/** Unknown fields of a connection's slow parts as JSON by path, or undefined when there are none. */
export function slowUnknown(c: KafkaConnection): string | undefined {
  if (
    c.$unknown === undefined &&
    c.authenticationInfo.$unknown === undefined &&
    c.source.$unknown === undefined &&
    c.tlsInfo.$unknown === undefined
  ) {
    return undefined;
  }
  const out: Record<string, JsonValue> = {};
  if (c.$unknown !== undefined) out[''] = c.$unknown;
  if (c.authenticationInfo.$unknown !== undefined) out.authenticationInfo = c.authenticationInfo.$unknown;
  if (c.source.$unknown !== undefined) out.source = c.source.$unknown;
  if (c.tlsInfo.$unknown !== undefined) out.tlsInfo = c.tlsInfo.$unknown;
  return stringifyJson(out);
}

function fastExtra(c: KafkaConnection): string | undefined {
  const f = c.inFlightRequests;
  let items = false;
  for (const r of f.sampledInFlightRequests) if (r.$unknown !== undefined) items = true;
  if (
    !items &&
    f.$unknown === undefined &&
    c.totalRequestStatistics.$unknown === undefined &&
    c.recentRequestStatistics.$unknown === undefined
  ) {
    return undefined;
  }
  const out: Record<string, JsonValue> = {};
  if (c.totalRequestStatistics.$unknown !== undefined) out.totalRequestStatistics = c.totalRequestStatistics.$unknown;
  if (c.recentRequestStatistics.$unknown !== undefined) out.recentRequestStatistics = c.recentRequestStatistics.$unknown;
  if (f.$unknown !== undefined) out.inFlightRequests = f.$unknown;
  f.sampledInFlightRequests.forEach((r, i) => {
    if (r.$unknown !== undefined) out[`sampled.${i}`] = r.$unknown;
  });
  return stringifyJson(out);
}

/** Writes one head entry: entity id and the connection's absolute fast values. */
export function writeHeadEntry(w: ByteWriter, entity: number, c: KafkaConnection): void {
  const t = c.totalRequestStatistics;
  const r = c.recentRequestStatistics;
  const inflight = c.inFlightRequests.sampledInFlightRequests;
  const extra = fastExtra(c);
  w.uint(entity);
  w.uint((c.inFlightRequests.hasMoreRequests ? HAS_MORE : 0) | (inflight.length > 0 ? INFLIGHT : 0) | (extra !== undefined ? EXTRA : 0));
  w.big(c.idleDuration);
  w.big(t.fetchBytes);
  w.big(t.produceBatchCount);
  w.big(t.produceBytes);
  w.big(t.requestCount);
  w.big(r.fetchBytes);
  w.big(r.produceBatchCount);
  w.big(r.produceBytes);
  w.big(r.requestCount);
  if (inflight.length > 0) {
    w.uint(inflight.length);
    for (const q of inflight) {
      w.int(q.apiKey);
      w.big(q.inFlightDuration);
    }
  }
  if (extra !== undefined) w.string(extra);
}

/** Reads one head entry written by writeHeadEntry. */
export function readHeadEntry(r: ByteReader): { entity: number; sample: FastSample } {
  const entity = r.uint();
  const flags = r.uint();
  const v: Num[] = new Array<Num>(FAST_FIELDS);
  for (let i = 0; i < FAST_FIELDS; i++) v[i] = r.num();
  return { entity, sample: readTail(r, v, flags) };
}

/** Reads the in-flight list and extra JSON that follow a sample's values. */
export function readTail(r: ByteReader, v: Num[], flags: number): FastSample {
  let inflight: [number, Num][] | undefined;
  if (flags & INFLIGHT) {
    const n = r.uint();
    inflight = new Array<[number, Num]>(n);
    for (let i = 0; i < n; i++) inflight[i] = [r.int(), r.num()];
  }
  const extra = flags & EXTRA ? r.string() : undefined;
  return { v, hasMore: (flags & HAS_MORE) !== 0, inflight, extra };
}

type InFlightRequest = KafkaConnection['inFlightRequests']['sampledInFlightRequests'][number];

/**
 * A sample that a reader fills again for each row (valid until the next read). Its sampled
 * in-flight requests come as the row's objects (`requests`), not as `inflight` pairs.
 */
export interface SampleSlot extends FastSample {
  readonly v: Num[];
  hasMore: boolean;
  inflight: undefined;
  extra: string | undefined;
  /** the sampled in-flight requests as a row holds them (without unknown fields) */
  requests: InFlightRequest[] | undefined;
}

/** An empty SampleSlot. */
export function sampleSlot(): SampleSlot {
  return { v: new Array<Num>(FAST_FIELDS).fill(0), hasMore: false, inflight: undefined, extra: undefined, requests: undefined };
}

/** readTail into a slot whose `v` already holds the values: nothing allocated unless in-flight requests are sampled. */
export function readTailInto(r: ByteReader, slot: SampleSlot, flags: number): SampleSlot {
  let requests: InFlightRequest[] | undefined;
  if (flags & INFLIGHT) {
    const n = r.uint();
    requests = new Array<InFlightRequest>(n);
    for (let i = 0; i < n; i++) requests[i] = { apiKey: r.int(), inFlightDuration: big(r.num()) };
  }
  slot.requests = requests;
  slot.extra = flags & EXTRA ? r.string() : undefined;
  slot.hasMore = (flags & HAS_MORE) !== 0;
  return slot;
}

/** Writes the in-flight list and extra JSON that follow a sample's values. */
export function writeTail(w: ByteWriter, s: FastSample): void {
  if (s.inflight !== undefined) {
    w.uint(s.inflight.length);
    for (const [k, d] of s.inflight) {
      w.int(k);
      w.num(d);
    }
  }
  if (s.extra !== undefined) w.string(s.extra);
}

/** Head blob: entries in answer order, then a u32 offset every 64 entries, then the entry count. */
export const HEAD_STRIDE = 64;

/** Identity of a connection (what its entity row holds). */
export interface ConnIdentity {
  readonly uid: string;
  readonly nodeId: number;
  readonly shardId: number;
  readonly listenerName: string;
  readonly ipAddress: string;
  readonly port: number;
  readonly tls: boolean;
  readonly openTime: bigint;
}

/** Slow attributes of a connection (what a version row holds), strings resolved. */
export interface ConnAttrs {
  readonly clientId: string;
  readonly softwareName: string;
  readonly softwareVersion: string;
  readonly mechanism: string;
  readonly authState: string;
  readonly principal: string;
  readonly state: string;
  readonly closeTime: bigint;
  readonly groupId: string;
  readonly groupInstanceId: string;
  readonly groupMemberId: string;
  readonly transactionalId: string;
  /** the apiVersions map (shared and frozen: rows are read-only) */
  readonly apiVersions: Readonly<Record<string, number>>;
  /** slow-part unknown fields by path ('' = top level), parsed */
  readonly unknown: Readonly<Record<string, JsonValue>> | undefined;
}

/** bigints 0..1023, shared: counters and recent statistics are often small (a bigint is immutable, sharing is invisible) */
const SMALL_BIGINTS: readonly bigint[] = Array.from({ length: 1024 }, (_, i) => BigInt(i));
const big = (v: Num): bigint => (typeof v === 'bigint' ? v : v >= 0 && v < 1024 ? SMALL_BIGINTS[v]! : BigInt(v));

/** A connection's authenticationInfo. */
export type Auth = KafkaConnection['authenticationInfo'];
/** A connection's source. */
export type Source = KafkaConnection['source'];
type Tls = KafkaConnection['tlsInfo'];

/**
 * The slow parts of a row as rows are built from them: identity and attributes, with the
 * sub-objects that depend on the version only (authenticationInfo, source, tlsInfo) already
 * built, frozen and shared by every row of that version.
 */
export type ConnSlow = Omit<ConnIdentity, 'ipAddress' | 'port' | 'tls'> &
  Omit<ConnAttrs, 'mechanism' | 'authState' | 'principal'> & {
    readonly auth: Auth;
    readonly source: Source;
    readonly tlsInfo: Tls;
  };

/** authenticationInfo and tlsInfo objects without unknown fields take few values: one frozen copy each. */
const AUTHS = new Map<string, Auth>();
const TLS_ON: Tls = Object.freeze({ enabled: true });
const TLS_OFF: Tls = Object.freeze({ enabled: false });

/** A version's frozen source object. */
export function sharedSource(ipAddress: string, port: number, unknown: Readonly<Record<string, JsonValue>> | undefined): Source {
  return freeze(withUnknown({ ipAddress, port }, unknown?.source));
}

/** A version's frozen tlsInfo object. */
export function sharedTls(tls: boolean, unknown: Readonly<Record<string, JsonValue>> | undefined): Tls {
  return unknown?.tlsInfo === undefined ? (tls ? TLS_ON : TLS_OFF) : freeze(withUnknown({ enabled: tls }, unknown.tlsInfo));
}

/** A version's frozen authenticationInfo object (`shared`: the caller's copy for these values, used without unknown fields). */
export function authOf(mechanism: string, state: string, principal: string, unknown: Readonly<Record<string, JsonValue>> | undefined, shared?: Auth): Auth {
  if (unknown?.authenticationInfo === undefined) return shared ?? sharedAuth(mechanism, state, principal);
  return freeze(withUnknown({ mechanism, state, userPrincipal: principal } as Auth, unknown.authenticationInfo));
}

/** The one frozen authenticationInfo (without unknown fields) with these values. */
export function sharedAuth(mechanism: string, state: string, principal: string): Auth {
  const key = `${mechanism}\u0000${state}\u0000${principal}`;
  let a = AUTHS.get(key);
  if (a === undefined) {
    a = Object.freeze({ mechanism, state, userPrincipal: principal }) as Auth;
    if (AUTHS.size > 10_000) AUTHS.clear();
    AUTHS.set(key, a);
  }
  return a;
}

function freeze<T>(o: T): T {
  Object.freeze(o);
  const u = (o as { $unknown?: unknown }).$unknown;
  if (u !== undefined) deepFreezeAll(u);
  return o;
}

function deepFreezeAll(o: unknown): void {
  if (o !== null && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o)) deepFreezeAll(v);
  }
}

const NO_INFLIGHT: readonly never[] = Object.freeze([]);
const IDLE = Object.freeze({ hasMoreRequests: false, sampledInFlightRequests: NO_INFLIGHT });
const IDLE_MORE = Object.freeze({ hasMoreRequests: true, sampledInFlightRequests: NO_INFLIGHT });

function inFlight(s: FastSample | SampleSlot, x: Record<string, Record<string, JsonValue>> | undefined): KafkaConnection['inFlightRequests'] {
  const requests = (s as Partial<SampleSlot>).requests;
  if (s.inflight === undefined && requests === undefined && x?.inFlightRequests === undefined) {
    return (s.hasMore ? IDLE_MORE : IDLE) as unknown as KafkaConnection['inFlightRequests'];
  }
  let sampled: InFlightRequest[];
  if (requests !== undefined) {
    // already the row's objects (fresh for this row); unknown fields, when stored, go onto them
    sampled = requests;
    if (x !== undefined) sampled.forEach((q, i) => withUnknown(q, x[`sampled.${i}`]));
  } else {
    sampled = (s.inflight ?? []).map(([apiKey, d], i) => withUnknown({ apiKey, inFlightDuration: big(d) }, x?.[`sampled.${i}`]));
  }
  return withUnknown({ hasMoreRequests: s.hasMore, sampledInFlightRequests: sampled }, x?.inFlightRequests);
}

/** Puts a connection row back together from its slow parts and a sample (shared parts are frozen). */
export function buildConnection(p: ConnSlow, s: FastSample): KafkaConnection {
  const x = s.extra === undefined ? undefined : (parseJsonLossless(s.extra) as Record<string, Record<string, JsonValue>>);
  const v = s.v;
  const c: KafkaConnection = {
    apiVersions: p.apiVersions as Record<string, number>,
    authenticationInfo: p.auth,
    clientId: p.clientId,
    clientSoftwareName: p.softwareName,
    clientSoftwareVersion: p.softwareVersion,
    closeTime: p.closeTime,
    groupId: p.groupId,
    groupInstanceId: p.groupInstanceId,
    groupMemberId: p.groupMemberId,
    idleDuration: big(v[0]!),
    inFlightRequests: inFlight(s, x),
    listenerName: p.listenerName,
    nodeId: p.nodeId,
    openTime: p.openTime,
    recentRequestStatistics: withUnknown(
      { fetchBytes: big(v[5]!), produceBatchCount: big(v[6]!), produceBytes: big(v[7]!), requestCount: big(v[8]!) },
      x?.recentRequestStatistics,
    ),
    shardId: p.shardId,
    source: p.source,
    state: p.state as KafkaConnection['state'],
    tlsInfo: p.tlsInfo,
    totalRequestStatistics: withUnknown(
      { fetchBytes: big(v[1]!), produceBatchCount: big(v[2]!), produceBytes: big(v[3]!), requestCount: big(v[4]!) },
      x?.totalRequestStatistics,
    ),
    transactionalId: p.transactionalId,
    uid: p.uid,
  };
  const top = p.unknown?.[''];
  if (top !== undefined) c.$unknown = cloneJson(top) as Record<string, JsonValue>;
  return c;
}

/** A connection row's fast-moving fields: what a version of its slow parts does not hold. */
export type FastConnectionField = 'idleDuration' | 'inFlightRequests' | 'totalRequestStatistics' | 'recentRequestStatistics';

/** A connection row's slow fields as of one stored version (shared by all its samples, frozen), with the store's ids. */
export type ConnectionVersion = Readonly<Omit<KafkaConnection, FastConnectionField>> & {
  /** the stored version: the same id means the same slow fields */
  readonly versionId: number;
  /** the stored connection: its identity (uid plus immutable facts) */
  readonly entityId: number;
};

/** A row's slow fields as of one version, for reads that skip the fast ones: frozen, shared by every sample of it. */
export function buildVersionRow(p: ConnSlow & { readonly version: number; readonly entity: number }): ConnectionVersion {
  const row: Omit<KafkaConnection, FastConnectionField> & { versionId: number; entityId: number } = {
    apiVersions: p.apiVersions as Record<string, number>,
    authenticationInfo: p.auth,
    clientId: p.clientId,
    clientSoftwareName: p.softwareName,
    clientSoftwareVersion: p.softwareVersion,
    closeTime: p.closeTime,
    groupId: p.groupId,
    groupInstanceId: p.groupInstanceId,
    groupMemberId: p.groupMemberId,
    listenerName: p.listenerName,
    nodeId: p.nodeId,
    openTime: p.openTime,
    shardId: p.shardId,
    source: p.source,
    state: p.state as KafkaConnection['state'],
    tlsInfo: p.tlsInfo,
    transactionalId: p.transactionalId,
    uid: p.uid,
    versionId: p.version,
    entityId: p.entity,
  };
  const top = p.unknown?.[''];
  if (top !== undefined) row.$unknown = cloneJson(top) as Record<string, JsonValue>;
  return freeze(row);
}

function withUnknown<T extends object>(o: T, unknown: JsonValue | undefined): T & { $unknown?: Record<string, JsonValue> } {
  if (unknown !== undefined) (o as { $unknown?: unknown }).$unknown = cloneJson(unknown);
  return o;
}
