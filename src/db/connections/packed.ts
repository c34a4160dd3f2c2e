/**
 * Packed copies of a connection's entity and version rows: the same values as the typed
 * columns (which serve SQL, the pre-filter and the views) as one varint record each. Reading
 * the 10,000 versions of an answer then costs one query returning two blobs (SQLite's
 * group_concat of the records) instead of 10,000 rows of 28 values.
 */
import { ByteWriter } from '../bytes.ts';

/** The identity of a connection as packed (strings of the dictionary as ids). */
export interface PackedEntity {
  readonly id: number;
  readonly uid: string;
  readonly nodeId: number;
  readonly shardId: number;
  readonly listener: number;
  readonly ipAddress: string;
  readonly port: number;
  readonly tls: boolean;
  readonly openTime: bigint;
}

/** A version of a connection's slow attributes as packed (dictionary ids, exact times). */
export interface PackedVersion {
  readonly id: number;
  readonly entity: number;
  readonly fromPoll: number;
  readonly clientId: number;
  readonly softwareName: number;
  readonly softwareVersion: number;
  readonly mechanism: number;
  readonly authState: number;
  readonly principal: number;
  readonly state: number;
  readonly closeTime: bigint;
  readonly groupId: number;
  readonly groupInstanceId: number;
  readonly groupMemberId: string;
  readonly transactionalId: number;
  readonly apiVersions: number;
  /** slow-part unknown fields, JSON by path (without `#big`) */
  readonly unknown: string | undefined;
}

/** Packs an entity record. */
export function packEntity(e: PackedEntity): Buffer {
  const w = new ByteWriter(96);
  w.uint(e.id);
  w.string(e.uid);
  w.int(e.nodeId);
  w.int(e.shardId);
  w.uint(e.listener);
  w.string(e.ipAddress);
  w.int(e.port);
  w.uint(e.tls ? 1 : 0);
  w.time(e.openTime);
  return w.finish();
}

/** Packs a version record. */
export function packVersion(v: PackedVersion): Buffer {
  const w = new ByteWriter(64);
  for (const n of [v.id, v.entity, v.fromPoll, v.clientId, v.softwareName, v.softwareVersion, v.mechanism, v.authState, v.principal, v.state]) {
    w.uint(n);
  }
  w.time(v.closeTime);
  w.uint(v.groupId);
  w.uint(v.groupInstanceId);
  w.string(v.groupMemberId);
  w.uint(v.transactionalId);
  w.uint(v.apiVersions);
  if (v.unknown === undefined) {
    w.uint(0);
  } else {
    w.uint(1);
    w.string(v.unknown);
  }
  return w.finish();
}
