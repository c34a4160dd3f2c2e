/**
 * Connection rows put back together from their stored parts: the slow parts of a version
 * (identity, attributes, shared frozen sub-objects) and a fast sample, unknown fields and the
 * fields absent on the wire included, so a row reads back exactly as it was decoded.
 */
import { cloneJson, parseJsonLossless, type JsonValue } from '../../api/codec/lossless-json.ts';
import { KafkaConnection as KafkaConnectionSchema, type KafkaConnection } from '../../api/schema/connection.ts';
import type { AbsentFields } from '../../api/schema/fields.ts';
import { generate, recordLiteral } from '../../api/wire/record-literal.ts';
import { big, FAST, type FastSample, type SampleSlot } from './codec.ts';
import type { AnySlowValue, SlowValues } from './fields.ts';
import { A_ITEMS, inFlightAbsent, itemAbsent, markAbsent, statsAbsent, topAbsent } from './presence.ts';
import { FIELDS } from './slow.ts';

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

/** A connection row's field names, in schema order (the order of its properties). */
const ROW_NAMES: readonly string[] = Object.keys(KafkaConnectionSchema.fields);
const slot = (name: string): number => {
  const i = ROW_NAMES.indexOf(name);
  if (i < 0) throw new Error(`a connection has no field ${name}`);
  return i;
};
/** Named slots of a row's values (the positions of its fields in schema order). */
const AT = {
  uid: slot('uid'),
  nodeId: slot('nodeId'),
  shardId: slot('shardId'),
  listenerName: slot('listenerName'),
  openTime: slot('openTime'),
  source: slot('source'),
  tlsInfo: slot('tlsInfo'),
  idleDuration: slot('idleDuration'),
  inFlightRequests: slot('inFlightRequests'),
  totalRequestStatistics: slot('totalRequestStatistics'),
  recentRequestStatistics: slot('recentRequestStatistics'),
} as const;
/** Row slots of the slow fields that are the row's own fields (by position in FIELDS; -1 for a sub-message's). */
const TOP_SLOT: readonly number[] = FIELDS.map((f) => (f.path.length === 1 ? slot(f.path[0]) : -1));

/** A sub-message holding slow fields (authenticationInfo): its row slot, fields' positions in FIELDS, names. */
export interface SlowParent {
  readonly name: string;
  readonly slot: number;
  readonly at: readonly number[];
  readonly names: readonly string[];
}

const PARENT_NAMES = [...new Set(FIELDS.flatMap((f) => (f.path.length === 2 ? [f.path[0]] : [])))];
/** The sub-messages of a row that hold slow fields. */
export const SLOW_PARENTS: readonly SlowParent[] = PARENT_NAMES.map((name) => {
  const at = FIELDS.flatMap((f, i) => (f.path[0] === name && f.path.length === 2 ? [i] : []));
  return { name, slot: slot(name), at, names: at.map((i) => FIELDS[i]!.path[1]!) };
});

/** Slow fields absent on the wire, by path ('' = the connection itself), as a version stores them. */
export type SlowAbsent = Readonly<Record<string, AbsentFields>>;

/** The `#absent` part of a version's parsed side JSON. */
export function slowAbsentOf(unknown: Readonly<Record<string, JsonValue>> | undefined): SlowAbsent | undefined {
  return unknown?.['#absent'] as SlowAbsent | undefined;
}

/** A connection's source. */
export type Source = KafkaConnection['source'];
type Tls = KafkaConnection['tlsInfo'];
type InFlightRequest = KafkaConnection['inFlightRequests']['sampledInFlightRequests'][number];

/**
 * The slow parts of a row as rows are built from them: the version's slow values, its unknown
 * and absent fields, and the row's values in schema order with the fast slots unset (the
 * identity, the slow values, and the sub-objects that depend on the version only, such as
 * authenticationInfo, source and tlsInfo, already built, frozen and shared by every row of it).
 */
export interface ConnSlow {
  /** slow-part unknown fields by path ('' = top level), parsed; `#absent` holds absent names by path */
  readonly unknown: Unknown;
  /** the version's absent slow fields by path, when some were absent */
  readonly absent: SlowAbsent | undefined;
  /** the row's values in schema order, fast fields unset */
  readonly row: readonly unknown[];
}

/** The row values of a version (ConnSlow.row): identity, slow values, and the version's sub-objects. */
export function rowOfVersion(
  id: Omit<ConnIdentity, 'ipAddress' | 'port' | 'tls'>,
  values: SlowValues,
  source: Source,
  tlsInfo: Tls,
  subs: readonly object[],
): unknown[] {
  const row = new Array<unknown>(ROW_NAMES.length);
  row[AT.uid] = id.uid;
  row[AT.nodeId] = id.nodeId;
  row[AT.shardId] = id.shardId;
  row[AT.listenerName] = id.listenerName;
  row[AT.openTime] = id.openTime;
  row[AT.source] = source;
  row[AT.tlsInfo] = tlsInfo;
  for (let i = 0; i < TOP_SLOT.length; i++) if (TOP_SLOT[i]! >= 0) row[TOP_SLOT[i]!] = values[i];
  SLOW_PARENTS.forEach((p, k) => (row[p.slot] = subs[k]));
  return row;
}

/** The slow values (fields.ts order) of a version's row values (ConnSlow.row). */
export function slowValuesOfRow(row: readonly unknown[]): SlowValues {
  return FIELDS.map((f, i) => {
    const top = TOP_SLOT[i]!;
    const v = top >= 0 ? row[top] : (row[slot(f.path[0])] as Readonly<Record<string, unknown>>)[f.path[1]!];
    return v as AnySlowValue;
  });
}

/** The identity in a version's row values (ConnSlow.row). */
export function identityOfRow(row: readonly unknown[]): ConnIdentity {
  const source = row[AT.source] as Source;
  return {
    uid: row[AT.uid] as string,
    nodeId: row[AT.nodeId] as number,
    shardId: row[AT.shardId] as number,
    listenerName: row[AT.listenerName] as string,
    ipAddress: source.ipAddress,
    port: source.port,
    tls: (row[AT.tlsInfo] as Tls).enabled,
    openTime: row[AT.openTime] as bigint,
  };
}

/** tlsInfo objects without unknown or absent fields take two values: one frozen copy each. */
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

/** True when the version's sub-message `name` has unknown or absent fields (then it is not shared). */
export function ownSub(name: string, unknown: Unknown): boolean {
  return unknown?.[name] !== undefined || slowAbsentOf(unknown)?.[name] !== undefined;
}

/** A sub-message holding slow fields (SlowParent) with a version's values, frozen (unknown and absent included). */
export function subOf(p: SlowParent, values: SlowValues, unknown: Unknown): object {
  const o: Record<string, unknown> = {};
  p.at.forEach((i, k) => (o[p.names[k]!] = values[i]));
  if (!ownSub(p.name, unknown)) return Object.freeze(o);
  return freeze(markAbsent(withUnknown(o, unknown?.[p.name]), slowAbsentOf(unknown)?.[p.name]));
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

const NO_INFLIGHT: InFlightRequest[] = [];
Object.freeze(NO_INFLIGHT);
type InFlight = KafkaConnection['inFlightRequests'];
const IDLE: InFlight = Object.freeze({ hasMoreRequests: false, sampledInFlightRequests: NO_INFLIGHT });
const IDLE_MORE: InFlight = Object.freeze({ hasMoreRequests: true, sampledInFlightRequests: NO_INFLIGHT });
/** mask bits that concern inFlightRequests' own fields and items */
const INFLIGHT_BITS = (3 << 12) | A_ITEMS;

function inFlight(
  s: FastSample | SampleSlot,
  x: Record<string, Record<string, JsonValue>> | undefined,
): KafkaConnection['inFlightRequests'] {
  const requests = (s as Partial<SampleSlot>).requests;
  const marks = s.absent & INFLIGHT_BITS;
  if (s.inflight === undefined && requests === undefined && x?.inFlightRequests === undefined && marks === 0) {
    return s.hasMore ? IDLE_MORE : IDLE;
  }
  let sampled: InFlightRequest[];
  if (requests !== undefined) {
    // already the row's objects (fresh for this row); unknown fields, when stored, go onto them
    sampled = requests;
    if (x !== undefined) sampled.forEach((q, i) => withUnknown(q, x[`sampled.${i}`]));
  } else {
    sampled = (s.inflight ?? []).map(([apiKey, d], i) =>
      withUnknown({ apiKey, inFlightDuration: big(d) }, x?.[`sampled.${i}`]),
    );
  }
  const items = s.items;
  if (items !== undefined) sampled.forEach((q, i) => markAbsent(q, itemAbsent(items[i] ?? 0)));
  return markAbsent(
    withUnknown({ hasMoreRequests: s.hasMore, sampledInFlightRequests: sampled }, x?.inFlightRequests),
    inFlightAbsent(s.absent),
  );
}

type Stats = KafkaConnection['totalRequestStatistics'];

/** The fast values of a row being built, by slot: [template, idle, inFlight, total, recent] (reused). */
const FAST_SLOTS = [AT.idleDuration, AT.inFlightRequests, AT.totalRequestStatistics, AT.recentRequestStatistics];
/**
 * Makes a row from a version's row values (`v[0]`, schema order) and its four fast values
 * (`v[1..4]`): one object literal (generated from the schema's field names), or field by field
 * where code generation is refused.
 */
const makeRow: (v: unknown[]) => Record<string, unknown> =
  generate<(v: unknown[]) => Record<string, unknown>>(
    `const t = v[0];\nreturn { ${ROW_NAMES.map((name, i) => {
      const fast = FAST_SLOTS.indexOf(i);
      return `${JSON.stringify(name)}: ${fast >= 0 ? `v[${fast + 1}]` : `t[${i}]`}`;
    }).join(', ')} };`,
  ) ??
  ((v) => {
    const t = v[0] as readonly unknown[];
    const o: Record<string, unknown> = {};
    ROW_NAMES.forEach((name, i) => {
      const fast = FAST_SLOTS.indexOf(i);
      o[name] = fast >= 0 ? v[fast + 1] : t[i];
    });
    return o;
  });
/** makeRow's argument, reused. */
const args = new Array<unknown>(5);

/** Puts a connection row back together from its slow parts and a sample (shared parts are frozen). */
export function buildConnection(p: ConnSlow, s: FastSample): KafkaConnection {
  const x =
    s.extra === undefined ? undefined : (parseJsonLossless(s.extra) as Record<string, Record<string, JsonValue>>);
  const v = s.v;
  const a = s.absent;
  const values = args;
  values[0] = p.row;
  values[1] = big(v[FAST.idleDuration]!);
  values[2] = inFlight(s, x);
  const total: Stats = {
    fetchBytes: big(v[FAST.total.fetchBytes]!),
    produceBatchCount: big(v[FAST.total.produceBatchCount]!),
    produceBytes: big(v[FAST.total.produceBytes]!),
    requestCount: big(v[FAST.total.requestCount]!),
  };
  const recent: Stats = {
    fetchBytes: big(v[FAST.recent.fetchBytes]!),
    produceBatchCount: big(v[FAST.recent.produceBatchCount]!),
    produceBytes: big(v[FAST.recent.produceBytes]!),
    requestCount: big(v[FAST.recent.requestCount]!),
  };
  values[3] = withUnknown(total, x?.totalRequestStatistics);
  values[4] = withUnknown(recent, x?.recentRequestStatistics);
  const c = makeRow(values) as KafkaConnection;
  values[0] = undefined;
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
export type FastConnectionField =
  'idleDuration' | 'inFlightRequests' | 'totalRequestStatistics' | 'recentRequestStatistics';

/** A connection row's slow fields as of one stored version (shared by all its samples, frozen), with the store's ids. */
export type ConnectionVersion = Readonly<Omit<KafkaConnection, FastConnectionField>> & {
  /** the stored version: the same id means the same slow fields */
  readonly versionId: number;
  /** the stored connection: its identity (uid plus immutable facts) */
  readonly entityId: number;
};

const FAST_ROW_FIELDS: ReadonlySet<string> = new Set<FastConnectionField>([
  'idleDuration',
  'inFlightRequests',
  'totalRequestStatistics',
  'recentRequestStatistics',
]);
/** The row slots of a version row's fields (a row's slow fields, in schema order). */
const VERSION_SLOTS: readonly number[] = ROW_NAMES.flatMap((name, i) => (FAST_ROW_FIELDS.has(name) ? [] : [i]));
const VERSION_NAMES: readonly string[] = [...VERSION_SLOTS.map((i) => ROW_NAMES[i]!), 'versionId', 'entityId'];
const makeVersionRow: (values: readonly unknown[]) => Record<string, unknown> =
  recordLiteral(VERSION_NAMES) ??
  ((values) => {
    const o: Record<string, unknown> = {};
    VERSION_NAMES.forEach((name, i) => (o[name] = values[i]));
    return o;
  });

/** A row's slow fields as of one version, for reads that skip the fast ones: frozen, shared by every sample of it. */
export function buildVersionRow(
  p: ConnSlow & { readonly version: number; readonly entity: number },
): ConnectionVersion {
  const values = [...VERSION_SLOTS.map((i) => p.row[i]), p.version, p.entity];
  type Row = Omit<KafkaConnection, FastConnectionField> & { versionId: number; entityId: number };
  const row = makeVersionRow(values) as Row;
  const top = p.unknown?.[''];
  if (top !== undefined) row.$unknown = cloneJson(top) as Record<string, JsonValue>;
  markAbsent(row, p.absent?.['']);
  return freeze(row);
}

function withUnknown<T extends object>(
  o: T,
  unknown: JsonValue | undefined,
): T & { $unknown?: Record<string, JsonValue> } {
  if (unknown !== undefined) (o as { $unknown?: unknown }).$unknown = cloneJson(unknown);
  return o;
}
