/**
 * Connection rows put back together from their stored parts: the slow parts of a version
 * (identity, attributes, shared frozen sub-objects) and a fast sample, unknown fields and the
 * fields absent on the wire included, so a row reads back exactly as it was decoded.
 */
import { cloneJson, parseJsonLossless, type JsonValue } from '../api/codec/lossless-json.ts';
import type { KafkaConnection } from '../api/schema/connection.ts';
import type { AbsentFields } from '../api/schema/fields.ts';
import { big, type FastSample, type SampleSlot } from './conn-codec.ts';
import { A_ITEMS, inFlightAbsent, itemAbsent, markAbsent, statsAbsent, topAbsent } from './conn-presence.ts';

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
  /** slow-part unknown fields by path ('' = top level), parsed; `#absent` holds absent names by path */
  readonly unknown: Readonly<Record<string, JsonValue>> | undefined;
}

/** Slow fields absent on the wire, by path ('' = the connection itself), as a version stores them. */
export type SlowAbsent = Readonly<Record<string, AbsentFields>>;

/** The `#absent` part of a version's parsed side JSON. */
export function slowAbsentOf(unknown: Readonly<Record<string, JsonValue>> | undefined): SlowAbsent | undefined {
  return unknown?.['#absent'] as SlowAbsent | undefined;
}


/** A connection's authenticationInfo. */
export type Auth = KafkaConnection['authenticationInfo'];
/** A connection's source. */
export type Source = KafkaConnection['source'];
type Tls = KafkaConnection['tlsInfo'];
type InFlightRequest = KafkaConnection['inFlightRequests']['sampledInFlightRequests'][number];

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
    /** the version's absent slow fields by path, when some were absent */
    readonly absent: SlowAbsent | undefined;
  };

/** authenticationInfo and tlsInfo objects without unknown or absent fields take few values: one frozen copy each. */
const AUTHS = new Map<string, Auth>();
const TLS_ON: Tls = Object.freeze({ enabled: true });
const TLS_OFF: Tls = Object.freeze({ enabled: false });

type Unknown = Readonly<Record<string, JsonValue>> | undefined;

/** A version's frozen source object. */
export function sharedSource(ipAddress: string, port: number, unknown: Unknown): Source {
  return freeze(markAbsent(withUnknown({ ipAddress, port }, unknown?.source), slowAbsentOf(unknown)?.source));
}

/** A version's frozen tlsInfo object. */
export function sharedTls(tls: boolean, unknown: Unknown): Tls {
  const absent = slowAbsentOf(unknown)?.tlsInfo;
  if (unknown?.tlsInfo === undefined && absent === undefined) return tls ? TLS_ON : TLS_OFF;
  return freeze(markAbsent(withUnknown({ enabled: tls }, unknown?.tlsInfo), absent));
}

/** True when the version's authenticationInfo has unknown or absent fields (then it is not shared). */
export function ownAuth(unknown: Unknown): boolean {
  return unknown?.authenticationInfo !== undefined || slowAbsentOf(unknown)?.authenticationInfo !== undefined;
}

/** A version's frozen authenticationInfo object (`shared`: the caller's copy for these values, used when it has nothing of its own). */
export function authOf(mechanism: string, state: string, principal: string, unknown: Unknown, shared?: Auth): Auth {
  if (!ownAuth(unknown)) return shared ?? sharedAuth(mechanism, state, principal);
  // the names come from the dictionary, which holds only names written from decoded answers
  const own: Auth = { mechanism: mechanism as Auth['mechanism'], state: state as Auth['state'], userPrincipal: principal };
  const a = withUnknown(own, unknown?.authenticationInfo);
  return freeze(markAbsent(a, slowAbsentOf(unknown)?.authenticationInfo));
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
/** mask bits that concern inFlightRequests' own fields and items */
const INFLIGHT_BITS = (3 << 12) | A_ITEMS;

function inFlight(s: FastSample | SampleSlot, x: Record<string, Record<string, JsonValue>> | undefined): KafkaConnection['inFlightRequests'] {
  const requests = (s as Partial<SampleSlot>).requests;
  const marks = s.absent & INFLIGHT_BITS;
  if (s.inflight === undefined && requests === undefined && x?.inFlightRequests === undefined && marks === 0) {
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
  const items = s.items;
  if (items !== undefined) sampled.forEach((q, i) => markAbsent(q, itemAbsent(items[i] ?? 0)));
  return markAbsent(withUnknown({ hasMoreRequests: s.hasMore, sampledInFlightRequests: sampled }, x?.inFlightRequests), inFlightAbsent(s.absent));
}

/** Puts a connection row back together from its slow parts and a sample (shared parts are frozen). */
export function buildConnection(p: ConnSlow, s: FastSample): KafkaConnection {
  const x = s.extra === undefined ? undefined : (parseJsonLossless(s.extra) as Record<string, Record<string, JsonValue>>);
  const v = s.v;
  const a = s.absent;
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
  if (a !== 0 || p.absent?.[''] !== undefined) {
    markAbsent(c, topAbsent(p.absent?.[''], a));
    markAbsent(c.totalRequestStatistics, statsAbsent(a, false));
    markAbsent(c.recentRequestStatistics, statsAbsent(a, true));
  }
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
  markAbsent(row, p.absent?.['']);
  return freeze(row);
}

function withUnknown<T extends object>(o: T, unknown: JsonValue | undefined): T & { $unknown?: Record<string, JsonValue> } {
  if (unknown !== undefined) (o as { $unknown?: unknown }).$unknown = cloneJson(unknown);
  return o;
}
