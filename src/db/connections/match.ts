/**
 * How the writer recognises a connection it has seen before: its identity (what cannot change
 * while it lives) and its slow attributes (a change makes a new version), compared field by field.
 */
import type { KafkaConnection } from '../../api/schema/connection.ts';
import { slowUnknown } from './codec.ts';
import type { ConnAttrs } from './rows.ts';

/** A connection the writer remembers. */
export interface Entity {
  readonly id: number;
  readonly uid: string;
  readonly nodeId: number;
  readonly shardId: number;
  readonly listenerName: string;
  readonly ipAddress: string;
  readonly port: number;
  readonly tls: boolean;
  readonly openTime: bigint;
  version: number;
  attrs: Attrs;
  /** frame counter of the last frame that listed it */
  seen: number;
  /** no other remembered entity has its uid */
  alone: boolean;
  /** its row in the last frame written (ClusterState.order), when it was listed there */
  row: number;
}

/** Slow attributes as the writer compares them: the stored form, unknown fields still as JSON text. */
export type Attrs = Omit<ConnAttrs, 'unknown'> & {
  readonly unknown: string | undefined;
  /** the apiVersions map as index keys and values, when every key is an array index */
  readonly apiIndex: IndexEntries | undefined;
};

/** The entries of a map whose keys are all array indices, keys ascending (their enumeration order). */
export interface IndexEntries {
  readonly keys: readonly number[];
  readonly values: readonly number[];
}

/** The open batch of a cluster. */
export interface Batch {
  readonly id: number;
  frames: number;
}

/** What the writer remembers of one cluster between polls (dropped after any failed write). */
export interface ClusterState {
  readonly byUid: Map<string, Entity[]>;
  /** the entities of the last frame written, in answer order */
  order: Entity[];
  batch: Batch | undefined;
  frameCounter: number;
}

/** The slow attributes of a connection row. */
export function attrsOf(c: KafkaConnection): Attrs {
  return {
    clientId: c.clientId,
    softwareName: c.clientSoftwareName,
    softwareVersion: c.clientSoftwareVersion,
    mechanism: c.authenticationInfo.mechanism,
    authState: c.authenticationInfo.state,
    principal: c.authenticationInfo.userPrincipal,
    state: c.state,
    closeTime: c.closeTime,
    groupId: c.groupId,
    groupInstanceId: c.groupInstanceId,
    groupMemberId: c.groupMemberId,
    transactionalId: c.transactionalId,
    apiVersions: c.apiVersions,
    unknown: slowUnknown(c),
    apiIndex: indexEntries(c.apiVersions),
  };
}

const ARRAY_INDEX = /^(?:0|[1-9]\d{0,8})$/;

/** The entries of a map whose keys are all array indices, or undefined. */
export function indexEntries(m: Readonly<Record<string, number>>): IndexEntries | undefined {
  const keys: number[] = [];
  const values: number[] = [];
  for (const k in m) {
    if (!ARRAY_INDEX.test(k)) return undefined;
    keys.push(Number(k));
    values.push(m[k]!);
  }
  return { keys, values };
}

/** Same keys, values and key order as the stored map (array-index keys are always in ascending order). */
function sameMap(a: Attrs, b: Readonly<Record<string, number>>): boolean {
  const index = a.apiIndex;
  if (index !== undefined) {
    // element reads by index, then a count: no key strings made (for-in over indices makes them)
    const { keys, values } = index;
    const n = keys.length;
    for (let i = 0; i < n; i++) if (b[keys[i]!] !== values[i]) return false;
    return Object.values(b).length === n;
  }
  const ka = Object.keys(a.apiVersions);
  let i = 0;
  for (const k in b) {
    if (k !== ka[i] || a.apiVersions[k] !== b[k]) return false;
    i++;
  }
  return i === ka.length;
}

/** True when the row has exactly these slow attributes. */
export function sameAttrs(a: Attrs, c: KafkaConnection): boolean {
  const auth = c.authenticationInfo;
  return (
    a.state === c.state &&
    a.closeTime === c.closeTime &&
    a.clientId === c.clientId &&
    a.groupMemberId === c.groupMemberId &&
    a.principal === auth.userPrincipal &&
    a.authState === auth.state &&
    a.mechanism === auth.mechanism &&
    a.softwareName === c.clientSoftwareName &&
    a.softwareVersion === c.clientSoftwareVersion &&
    a.groupId === c.groupId &&
    a.groupInstanceId === c.groupInstanceId &&
    a.transactionalId === c.transactionalId &&
    a.unknown === slowUnknown(c) &&
    sameMap(a, c.apiVersions)
  );
}

/** True when the row has this entity's identity. */
export function sameIdentity(e: Entity, c: KafkaConnection): boolean {
  return (
    e.nodeId === c.nodeId &&
    e.shardId === c.shardId &&
    e.openTime === c.openTime &&
    e.port === c.source.port &&
    e.ipAddress === c.source.ipAddress &&
    e.listenerName === c.listenerName &&
    e.tls === c.tlsInfo.enabled
  );
}

/** Rows of the last frame looked at for a row's entity, from where it is expected (rows that went). */
const LOOKAHEAD = 3;

/**
 * The entity of row `c` when it is among the entities of the last frame from row `expected` on
 * and no other remembered entity has its uid: then it is exactly the one the uid lookup finds,
 * found without the lookup (answers keep their order from poll to poll); else undefined.
 */
export function entityInPlace(last: readonly Entity[], expected: number, c: KafkaConnection, counter: number): Entity | undefined {
  const end = Math.min(last.length, expected + LOOKAHEAD);
  for (let k = expected; k < end; k++) {
    const known = last[k]!;
    if (known.uid !== c.uid) continue;
    return known.alone && known.seen !== counter && sameIdentity(known, c) ? known : undefined;
  }
  return undefined;
}

/** Placeholder attributes of an entity without a version yet (never compared: version 0). */
export const NO_ATTRS: Attrs = {
  clientId: '',
  softwareName: '',
  softwareVersion: '',
  mechanism: '',
  authState: '',
  principal: '',
  state: '',
  closeTime: -1n,
  groupId: '',
  groupInstanceId: '',
  groupMemberId: '',
  transactionalId: '',
  apiVersions: {},
  unknown: undefined,
  apiIndex: undefined,
};
