/**
 * The two connection layouts (src/db/engines/store-engine.ts `ConnectionLayoutName`) as two
 * implementations of one interface: what the ingest, the readers and `db check` do differently
 * between a store keeping typed copies of the packed records' fields next to them (SQLite) and
 * one keeping the packed records only, a connection's first version in its entity row
 * (PostgreSQL: there the copies cost more than half of the store, see src/db/engines/pg/schema.ts). The
 * ingest keeps the matching and the batching; the rows it writes and the ids it chooses are the
 * layout's.
 */
import type { KafkaConnection } from '../../api/schema/connection.ts';
import { textToSql } from '../encoding/bytes.ts';
import { bit, sqlInt, withBig, type BigValues } from '../encoding/sql-values.ts';
import type { ConnectionLayoutName } from '../engines/store-engine.ts';
import { uidKey } from './packed.ts';
import { FIELDS, type StoredSlow } from './slow.ts';
import { uidMatch, type UidMatch } from './uid-match.ts';

/** A new connection identity to insert. */
export interface NewEntityRow {
  readonly id: number;
  readonly clusterId: number;
  readonly pollId: number;
  /** `last_poll` of a connection its round still lists */
  readonly lastPoll: number;
  readonly c: KafkaConnection;
  /** the listener's string id */
  readonly listener: number;
  /** its packed record */
  readonly packed: Buffer;
  /** its first version's packed record, when the layout keeps it in the entity row */
  readonly firstVersion: Buffer | undefined;
}

/** A new connection version to insert. */
export interface NewVersionRow {
  readonly id: number;
  readonly entity: number;
  readonly pollId: number;
  /** the stored slow values (fields.ts order) */
  readonly stored: readonly StoredSlow[];
  readonly unknown: string | undefined;
  readonly packed: Buffer;
}

/** Where the ingest takes the next free ids from. */
export interface IdCounters {
  entity(): number;
  version(): number;
}

/** How one layout stores connection identities and versions. */
export interface ConnectionLayout {
  readonly name: ConnectionLayoutName;
  /** how one uid is matched on conn_entity */
  readonly uid: UidMatch;
  /** the pre-filter may read typed columns (sql-columns.ts) */
  readonly typedColumns: boolean;
  /** the uids of a cluster found in a JSON list (`?`: cluster id, list): rows of (uid or its key, id) */
  readonly byUidsSql: string;
  /** what the list holds for `uids`, and the uid a row's first column gives back (undefined: none of the list's) */
  uidList(uids: readonly string[]): { listed: readonly string[]; uidOf(row: string | Uint8Array): string | undefined };
  /** the next free entity and version ids, as one row */
  readonly nextIdsSql: string;
  /** the id of a connection's new version: its first (`first`, with `entity` its entity's id) or a later one */
  versionId(first: boolean, entity: number, ids: IdCounters): number;
  /** whether a version (of a new connection) is kept in its entity row rather than as a version row */
  inEntityRow(version: { readonly id: number; readonly entity: number }): boolean;
  readonly insertEntitySql: string;
  entityParams(row: NewEntityRow): unknown[];
  readonly insertVersionSql: string;
  versionParams(row: NewVersionRow): unknown[];
  /** the records (two blobs: versions, entities) of a JSON list of version ids */
  readonly partsByIdsSql: string;
  /**
   * the records of those of a JSON list of version ids whose rows pass an SQL condition over the
   * typed columns (aliases `v`, `e`: the pre-filter's); none where the layout has no such columns
   */
  partsPassingSql?(where: string): string;
  /** a sealed batch's chunk groups (`?`: the batch) concatenated in first-entity order, as one blob */
  readonly batchChunksSql: string;
  /** the records of one entity's versions, and its parameters */
  readonly partsOfEntitySql: string;
  partsOfEntityParams(entity: number): number[];
  /** the versions kept in entity rows, a page of (version id, entity id) after `?` (none: the layout keeps none there) */
  readonly versionsInEntityRowsSql?: string;
}

/** Both blobs of every record, concatenated: one row instead of one per version. */
const blobs = (rows: string): string =>
  `SELECT CAST(group_concat(v.packed, '') AS BLOB), CAST(group_concat(e.packed, '') AS BLOB) FROM ${rows}`;

/** The versions of a JSON list of ids with their entities (typed-columns layout). */
const PARTS_BY_IDS = 'json_each(?) j JOIN conn_version v ON v.id = j.value JOIN conn_entity e ON e.id = v.entity';

/** SQLite: typed columns next to the packed records. */
const TYPED_COLUMNS: ConnectionLayout = {
  name: 'typed-columns',
  uid: uidMatch(true),
  typedColumns: true,
  byUidsSql: `SELECT uid, id FROM conn_entity WHERE cluster_id = ? AND uid IN (SELECT value FROM json_each(?, '$')) ORDER BY id`,
  uidList: (uids) => ({ listed: uids, uidOf: (row) => (typeof row === 'string' ? row : undefined) }),
  nextIdsSql:
    'SELECT (SELECT coalesce(max(id), 0) + 1 FROM conn_entity), (SELECT coalesce(max(id), 0) + 1 FROM conn_version)',
  versionId: (_first, _entity, ids) => ids.version(),
  inEntityRow: () => false,
  insertEntitySql: `INSERT INTO conn_entity (id, cluster_id, uid, node_id, shard_id, listener, source_ip, source_port, tls, open_time,
      first_poll, last_poll, extra, packed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  entityParams: ({ id, clusterId, pollId, lastPoll, c, listener, packed }) => {
    const big: BigValues = {};
    return [
      id,
      clusterId,
      textToSql(c.uid),
      c.nodeId,
      c.shardId,
      listener,
      textToSql(c.source.ipAddress),
      c.source.port,
      bit(c.tlsInfo.enabled),
      sqlInt(c.openTime, 'open_time', big),
      pollId,
      lastPoll,
      withBig(undefined, big),
      packed,
    ];
  },
  insertVersionSql: `INSERT INTO conn_version (id, entity, from_poll, ${FIELDS.map((f) => f.column).join(', ')}, unknown, packed)
      VALUES (?, ?, ?, ${FIELDS.map(() => '?').join(', ')}, ?, ?)`,
  versionParams: ({ id, entity, pollId, stored, unknown, packed }) => {
    const big: BigValues = {};
    const columns = new Array<unknown>(FIELDS.length);
    for (let i = 0; i < FIELDS.length; i++) {
      const f = FIELDS[i]!;
      const s = stored[i];
      if (f.kind === 'time') columns[i] = sqlInt(s as bigint, f.column, big);
      else if (f.kind === 'inline') columns[i] = textToSql(s as string);
      else if (f.kind === 'optionalText' && s === 0) columns[i] = null;
      else columns[i] = s;
    }
    // the big values are known once the columns are
    return [id, entity, pollId, ...columns, withBig(unknown, big), packed];
  },
  partsByIdsSql: blobs(PARTS_BY_IDS),
  partsPassingSql: (where) => blobs(`${PARTS_BY_IDS} WHERE (${where})`),
  // in the primary key's order as SQLite scans it: group_concat(... ORDER BY) would sort a copy of every group first
  batchChunksSql: `SELECT CAST(group_concat(data, '') AS BLOB) FROM (SELECT data FROM conn_chunk WHERE batch = ? ORDER BY first_entity)`,
  partsOfEntitySql: blobs('conn_version v JOIN conn_entity e ON e.id = v.entity WHERE v.entity = ?'),
  partsOfEntityParams: (entity) => [entity],
};

/**
 * PostgreSQL: the packed records only. Entities and versions take ids from one counter: a
 * connection's first version is kept in its entity row under the entity's id (drizzle/pg/0010),
 * which no version row has.
 */
const PACKED_RECORDS: ConnectionLayout = {
  name: 'packed-records',
  uid: uidMatch(false),
  typedColumns: false,
  // = ANY(ARRAY(...)), not IN (SELECT ...): before the table has statistics, PostgreSQL plans the
  // IN as a scan of every row (docs/performance.md, "Query plans behind the store's SQL"). The
  // index holds hashes: a row whose key is not one of the list's is left out by uidOf.
  byUidsSql: `SELECT flightrec_entity_uid(packed) AS uid, id FROM conn_entity
      WHERE cluster_id = ? AND flightrec_uid_hash(flightrec_entity_uid(packed)) = ANY(ARRAY(
        SELECT flightrec_uid_hash(decode(value, 'hex')) FROM json_each(?, '$')))
      ORDER BY id`,
  // the list holds the uids' record keys (hex), and the rows give them back
  uidList: (uids) => {
    const byKey = new Map(uids.map((u) => [uidKey(u).toString('hex'), u]));
    return {
      listed: [...byKey.keys()],
      uidOf: (row) => (typeof row === 'string' ? row : byKey.get(Buffer.from(row).toString('hex'))),
    };
  },
  nextIdsSql: `SELECT n, n FROM (SELECT greatest((SELECT coalesce(max(id), 0) FROM conn_entity),
      (SELECT coalesce(max(id), 0) FROM conn_version)) + 1 AS n) x`,
  versionId: (first, entity, ids) => (first ? entity : ids.entity()),
  inEntityRow: (v) => v.id === v.entity,
  insertEntitySql:
    'INSERT INTO conn_entity (id, cluster_id, first_poll, last_poll, packed, first_version) VALUES (?, ?, ?, ?, ?, ?)',
  entityParams: ({ id, clusterId, pollId, lastPoll, packed, firstVersion }) => [
    id,
    clusterId,
    pollId,
    lastPoll,
    packed,
    firstVersion ?? null,
  ],
  // from_poll: in the record
  insertVersionSql: 'INSERT INTO conn_version (id, entity, packed) VALUES (?, ?, ?)',
  versionParams: ({ id, entity, packed }) => [id, entity, packed],
  /**
   * A version row when there is one (a store written before drizzle/pg/0010 has version ids equal
   * to entity ids), else the entity's first version. One probe of each table per id, faster than
   * a UNION of both tables' matches (docs/performance.md, "Query plans behind the store's SQL").
   */
  partsByIdsSql: `SELECT CAST(group_concat(x.vp, '') AS BLOB), CAST(group_concat(x.ep, '') AS BLOB) FROM (
   SELECT coalesce(v.packed, e.first_version) AS vp, e.packed AS ep
   FROM json_each(?) j LEFT JOIN conn_version v ON v.id = j.value JOIN conn_entity e ON e.id = coalesce(v.entity, j.value)
   WHERE v.id IS NOT NULL OR e.first_version IS NOT NULL) x`,
  // its conn_version rows, and its first version when its row holds it
  // the aggregate's own ORDER BY: a server may hand a subquery's rows to an aggregate in any order
  batchChunksSql: `SELECT CAST(group_concat(data, '' ORDER BY first_entity) AS BLOB) FROM conn_chunk WHERE batch = ?`,
  partsOfEntitySql: `SELECT CAST(group_concat(x.vp, '') AS BLOB), CAST(group_concat(x.ep, '') AS BLOB) FROM (
   SELECT v.packed AS vp, e.packed AS ep FROM conn_version v JOIN conn_entity e ON e.id = v.entity WHERE v.entity = ?
   UNION ALL
   SELECT first_version, packed FROM conn_entity WHERE id = ? AND first_version IS NOT NULL) x`,
  partsOfEntityParams: (entity) => [entity, entity],
  versionsInEntityRowsSql: 'SELECT id, id FROM conn_entity WHERE id > ? AND first_version IS NOT NULL ORDER BY id',
};

/** Every connection layout, by name (an engine names its layout: EngineSession.connectionLayout). */
export const CONNECTION_LAYOUTS: { readonly [N in ConnectionLayoutName]: ConnectionLayout } = {
  'typed-columns': TYPED_COLUMNS,
  'packed-records': PACKED_RECORDS,
};
