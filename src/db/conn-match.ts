/**
 * How the writer recognises a connection it has seen before: its identity (what cannot change
 * while it lives) and its slow attributes (a change makes a new version), compared field by field.
 */
import type { KafkaConnection } from '../api/schema/connection.ts';
import { slowUnknown, type ConnAttrs } from './conn-codec.ts';

/** A connection the writer remembers. */
export interface Entity {
  readonly id: number;
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
}

/** Slow attributes as the writer compares them: the stored form, unknown fields still as JSON text. */
export type Attrs = Omit<ConnAttrs, 'unknown'> & { readonly unknown: string | undefined };

/** The open batch of a cluster. */
export interface Batch {
  readonly id: number;
  frames: number;
}

/** What the writer remembers of one cluster between polls (dropped after any failed write). */
export interface ClusterState {
  readonly byUid: Map<string, Entity[]>;
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
  };
}

const ARRAY_INDEX = /^(?:0|[1-9]\d{0,8})$/;
/** Key count of an apiVersions map, or -1 when a key is not an array index (then order matters). */
const keyShape = new WeakMap<object, number>();
function shapeOf(m: Readonly<Record<string, number>>): number {
  let n = keyShape.get(m);
  if (n === undefined) {
    n = 0;
    for (const k in m) {
      if (!ARRAY_INDEX.test(k)) {
        n = -1;
        break;
      }
      n++;
    }
    keyShape.set(m, n);
  }
  return n;
}

/** Same keys, values and key order (array-index keys are always in ascending order). */
function sameMap(a: Readonly<Record<string, number>>, b: Readonly<Record<string, number>>): boolean {
  if (a === b) return true;
  const n = shapeOf(a);
  if (n >= 0) {
    let i = 0;
    for (const k in b) {
      if (a[k] !== b[k]) return false;
      i++;
    }
    return i === n;
  }
  const ka = Object.keys(a);
  let i = 0;
  for (const k in b) {
    if (k !== ka[i] || a[k] !== b[k]) return false;
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
    sameMap(a.apiVersions, c.apiVersions)
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
};
