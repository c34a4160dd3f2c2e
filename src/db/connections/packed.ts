/**
 * Packed copies of a connection's entity and version rows: the same values as the typed
 * columns (which serve SQL, the pre-filter and the views) as one varint record each. Reading
 * the 10,000 versions of an answer then costs one query returning two blobs (SQLite's
 * group_concat of the records) instead of 10,000 rows of 28 values. The version record's slow
 * fields are those of fields.ts, in its order.
 */
import { ByteWriter } from '../encoding/bytes.ts';
import { BASE_AT, FIELDS, LATE_AT, packSlow, type StoredSlow } from './slow.ts';

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

/** A version of a connection's slow attributes as packed: its slow fields' stored values (fields.ts order). */
export interface PackedVersion {
  readonly id: number;
  readonly entity: number;
  readonly fromPoll: number;
  /** per slow field (fields.ts order): a dictionary id, an exact time, an inline string */
  readonly stored: readonly StoredSlow[];
  /** slow-part unknown fields, JSON by path (without `#big`) */
  readonly unknown: string | undefined;
}

/** Flags varint of a version record: unknown fields follow. */
export const V_UNKNOWN = 1;
/** Flags varint of a version record: the late fields of fields.ts follow (older records lack them). */
export const V_LATE = 2;

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

/**
 * Packs a version record: ids, then the slow fields of the original layout, a flags varint
 * (V_UNKNOWN, V_LATE), the unknown fields' JSON when flagged, and the late fields when flagged.
 */
export function packVersion(v: PackedVersion): Buffer {
  const w = new ByteWriter(64);
  w.uint(v.id);
  w.uint(v.entity);
  w.uint(v.fromPoll);
  for (const i of BASE_AT) packSlow(w, FIELDS[i]!.kind, v.stored[i]!);
  w.uint((v.unknown === undefined ? 0 : V_UNKNOWN) | (LATE_AT.length > 0 ? V_LATE : 0));
  if (v.unknown !== undefined) w.string(v.unknown);
  for (const i of LATE_AT) packSlow(w, FIELDS[i]!.kind, v.stored[i]!);
  return w.finish();
}

/**
 * A uid as packEntity writes it (its length varint, then its UTF-8 bytes or its code units): the
 * key of PostgreSQL's conn_entity_by_uid, an index over flightrec_entity_uid(packed)
 * (drizzle/pg/0008), which keeps the uid in the packed record only.
 */
export function uidKey(uid: string): Buffer {
  const w = new ByteWriter(uid.length * 3 + 8);
  w.string(uid);
  return w.finish();
}
