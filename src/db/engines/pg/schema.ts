/**
 * The PostgreSQL schema of the history store (drizzle `pg-core`): the same tables and columns as
 * the SQLite schema (src/db/schema/schema.ts, schema-custom.ts), since the store's SQL is shared, with
 * every SQLite integer as int8 and every blob as bytea. Differences, for sharding by cluster:
 * every table carries `cluster_id` in its primary key, unique constraints and foreign keys (child
 * tables take it from the transaction's `flightrec.cluster_id` setting); the store reads some rows
 * by id without a cluster: a primary key leading with the id serves that, or else a plain index on
 * the id. The per-poll tables are re-created as partitioned by
 * day by the hand-written migration drizzle/pg/0002 (drizzle-kit cannot declare partitioning).
 * drizzle-kit generates drizzle/pg/ from this file (`npm run db:generate:pg`).
 */
import { sql } from 'drizzle-orm';
import {
  bigint,
  customType,
  foreignKey,
  index,
  pgTable,
  primaryKey,
  text,
  unique,
  uniqueIndex,
  type PgColumn,
} from 'drizzle-orm/pg-core';

/** bytea, read and written as a Buffer. */
const bytea = customType<{ data: Buffer; driverData: Buffer }>({
  dataType: () => 'bytea',
});

const int8 = (name: string) => bigint(name, { mode: 'number' });
const strId = (name: string) => int8(name).notNull();
/** an id column the store may also give explicitly (copies); otherwise from its identity sequence */
const serialId = (name: string) => int8(name).generatedByDefaultAsIdentity();
/** the cluster of a child row: the writing transaction's `flightrec.cluster_id` (unset: an error, never 0) */
const clusterFromSetting = () =>
  int8('cluster_id')
    .notNull()
    .default(sql`current_setting('flightrec.cluster_id')::bigint`);
/** store-wide rows: 0 is the whole store */
const clusterOrStore = () => int8('cluster_id').notNull().default(0);

/** Store-wide counters, e.g. `prune_generation`; cluster 0 is the whole store. */
export const meta = pgTable(
  'meta',
  {
    clusterId: clusterOrStore(),
    key: text('key').notNull(),
    value: int8('value').notNull(),
  },
  (t) => [primaryKey({ name: 'meta_pk', columns: [t.clusterId, t.key] })],
);

/** Recorded clusters, by the name the collector config gives them (the row is the cluster: keyed by its id). */
export const cluster = pgTable(
  'cluster',
  {
    id: serialId('id').primaryKey(),
    name: text('name').notNull(),
  },
  (t) => [unique('cluster_name_unique').on(t.name)],
);

/** One row per call attempt; the id is `(UTC day << 32) + sequence` (flightrec_poll_id()), partitioned by day. */
export const poll = pgTable(
  'poll',
  {
    id: int8('id')
      .notNull()
      .default(sql`flightrec_poll_id()`),
    clusterId: int8('cluster_id').notNull(),
    operation: text('operation').notNull(),
    target: text('target').notNull(),
    round: text('round').notNull(),
    attempt: int8('attempt').notNull(),
    scheduledAt: int8('scheduled_at').notNull(),
    startedAt: int8('started_at').notNull(),
    endedAt: int8('ended_at').notNull(),
    ok: int8('ok').notNull(),
    outcome: text('outcome').notNull(),
    kind: text('kind'),
    httpStatus: int8('http_status'),
    message: text('message'),
    details: text('details'),
    path: text('path'),
    bytes: int8('bytes').notNull(),
    request: text('request').notNull(),
    rowsReturned: int8('rows_returned'),
    totalSize: int8('total_size'),
    fanoutCalls: int8('fanout_calls'),
    slice: text('slice'),
    extra: text('extra'),
    redactions: int8('redactions'),
  },
  (t) => [
    primaryKey({ name: 'poll_pk', columns: [t.clusterId, t.id] }),
    foreignKey({ name: 'poll_cluster_fk', columns: [t.clusterId], foreignColumns: [cluster.id] }),
    index('poll_by_id').on(t.id),
    index('poll_by_cluster_op_time').on(t.clusterId, t.operation, t.startedAt),
    index('poll_by_target').on(t.clusterId, t.operation, t.target, t.ok, t.startedAt),
    index('poll_by_round').on(t.clusterId, t.round),
    index('poll_by_time').on(t.startedAt),
  ],
);

/** The composite foreign key of a per-poll row to its poll (deleted with it). */
const toPoll = (name: string, clusterId: PgColumn, pollId: PgColumn) =>
  foreignKey({ name, columns: [clusterId, pollId], foreignColumns: [poll.clusterId, poll.id] }).onDelete('cascade');

/** Which collector records a cluster (keyed by the cluster's name already: the lease is taken before the cluster row exists). */
export const collectorLease = pgTable('collector_lease', {
  cluster: text('cluster').primaryKey(),
  owner: text('owner').notNull(),
  acquiredAt: int8('acquired_at').notNull(),
  heartbeatAt: int8('heartbeat_at').notNull(),
});

/** Raw bodies, gzip'd. */
export const pollRaw = pgTable(
  'poll_raw',
  {
    clusterId: clusterFromSetting(),
    pollId: int8('poll_id').notNull(),
    encoding: text('encoding').notNull(),
    body: bytea('body').notNull(),
  },
  (t) => [
    primaryKey({ name: 'poll_raw_pk', columns: [t.clusterId, t.pollId] }),
    toPoll('poll_raw_poll_fk', t.clusterId, t.pollId),
    index('poll_raw_by_poll').on(t.pollId),
  ],
);

/** The string dictionary (ids unique across clusters: reads look up by id alone). */
export const str = pgTable(
  'str',
  {
    clusterId: clusterFromSetting(),
    id: serialId('id').notNull(),
    h: int8('h').notNull(),
    s: text('s').notNull(),
  },
  (t) => [
    primaryKey({ name: 'str_pk', columns: [t.clusterId, t.id] }),
    index('str_by_id').on(t.id),
    index('str_by_hash').on(t.h),
  ],
);

/** Content-addressed JSON documents. */
export const doc = pgTable(
  'doc',
  {
    clusterId: clusterFromSetting(),
    id: serialId('id').notNull(),
    h: int8('h').notNull(),
    body: text('body').notNull(),
  },
  (t) => [
    primaryKey({ name: 'doc_pk', columns: [t.clusterId, t.id] }),
    index('doc_by_id').on(t.id),
    index('doc_by_hash').on(t.h),
  ],
);

/**
 * A connection's identity: its packed record (src/db/connections/packed.ts) and what the store
 * looks it up or prunes it by. Unlike SQLite's table, no typed copy of the record's fields: on
 * PostgreSQL each of those columns cost 8 bytes and more per row, for the SQL pre-filter (off
 * here) and the psql view, which decodes the record (drizzle/pg/0006). Not even the uid: its
 * index is over the uid as the record holds it (flightrec_entity_uid, drizzle/pg/0008), which
 * leaves the row the 37 and more bytes a copy took.
 */
export const connEntity = pgTable(
  'conn_entity',
  {
    id: serialId('id').notNull(),
    clusterId: int8('cluster_id').notNull(),
    firstPoll: int8('first_poll').notNull(),
    lastPoll: int8('last_poll').notNull(),
    packed: bytea('packed').notNull(),
    // the connection's first version record (its id the entity's), in place of a conn_version row
    // (drizzle/pg/0010); NULL for entities written before, whose versions are all rows there
    firstVersion: bytea('first_version'),
  },
  (t) => [
    // id first: reads by id alone use the primary key (no index of its own)
    primaryKey({ name: 'conn_entity_pk', columns: [t.id, t.clusterId] }),
    foreignKey({ name: 'conn_entity_cluster_fk', columns: [t.clusterId], foreignColumns: [cluster.id] }),
    // equality only: a b-tree over a 4-byte hash of the uid as the packed record holds it (its
    // length and bytes, which uidKey in packed.ts makes), not over the uid itself; the lookup
    // compares the uids too (uid-match.ts). Half the size of a hash index (drizzle/pg/0009).
    index('conn_entity_by_uid').using('btree', sql`flightrec_uid_hash(flightrec_entity_uid(${t.packed}))`),
  ],
);

/** A version of a connection's slowly changing attributes: its packed record only (see conn_entity). */
export const connVersion = pgTable(
  'conn_version',
  {
    clusterId: clusterFromSetting(),
    id: serialId('id').notNull(),
    entity: int8('entity').notNull(),
    // no from_poll: the packed record holds it (drizzle/pg/0009)
    toPoll: int8('to_poll'),
    packed: bytea('packed').notNull(),
  },
  (t) => [
    primaryKey({ name: 'conn_version_pk', columns: [t.id, t.clusterId] }),
    foreignKey({
      name: 'conn_version_entity_fk',
      columns: [t.clusterId, t.entity],
      foreignColumns: [connEntity.clusterId, connEntity.id],
    }).onDelete('cascade'),
    // an entity's versions are few and sorted by the reader: the entity alone is the key
    index('conn_version_by_entity').on(t.entity),
  ],
);

/** A batch of consecutive connection frames of one cluster. */
export const connBatch = pgTable(
  'conn_batch',
  {
    id: serialId('id').notNull(),
    clusterId: int8('cluster_id').notNull(),
    firstPoll: int8('first_poll').notNull(),
    lastPoll: int8('last_poll').notNull(),
    frames: int8('frames').notNull(),
    sealed: int8('sealed').notNull().default(0),
  },
  (t) => [
    primaryKey({ name: 'conn_batch_pk', columns: [t.clusterId, t.id] }),
    foreignKey({ name: 'conn_batch_cluster_fk', columns: [t.clusterId], foreignColumns: [cluster.id] }),
    index('conn_batch_by_id').on(t.id),
    index('conn_batch_by_cluster').on(t.clusterId, t.lastPoll),
  ],
);

/** Samples of up to 32 connections over one sealed batch. */
export const connChunk = pgTable(
  'conn_chunk',
  {
    clusterId: clusterFromSetting(),
    batch: int8('batch').notNull(),
    firstEntity: int8('first_entity').notNull(),
    data: bytea('data').notNull(),
  },
  (t) => [
    primaryKey({ name: 'conn_chunk_pk', columns: [t.batch, t.firstEntity, t.clusterId] }),
    foreignKey({
      name: 'conn_chunk_batch_fk',
      columns: [t.clusterId, t.batch],
      foreignColumns: [connBatch.clusterId, connBatch.id],
    }).onDelete('cascade'),
  ],
);

/** One successful ListKafkaConnections answer. */
export const connFrame = pgTable(
  'conn_frame',
  {
    clusterId: clusterFromSetting(),
    poll: int8('poll').notNull(),
    batch: int8('batch').notNull(),
    seq: int8('seq').notNull(),
    rows: int8('rows').notNull(),
    totalSize: int8('total_size').notNull(),
    dupUids: int8('dup_uids').notNull().default(0),
    versions: bytea('versions').notNull(),
    head: bytea('head'),
  },
  (t) => [
    primaryKey({ name: 'conn_frame_pk', columns: [t.clusterId, t.poll] }),
    toPoll('conn_frame_poll_fk', t.clusterId, t.poll),
    foreignKey({
      name: 'conn_frame_batch_fk',
      columns: [t.clusterId, t.batch],
      foreignColumns: [connBatch.clusterId, connBatch.id],
    }),
    index('conn_frame_by_poll').on(t.poll),
    index('conn_frame_by_batch').on(t.batch, t.seq),
  ],
);

/** GetShadowLink: the link's own fields per poll. */
export const linkSample = pgTable(
  'link_sample',
  {
    clusterId: clusterFromSetting(),
    poll: int8('poll').notNull(),
    name: strId('name'),
    uid: strId('uid'),
    state: strId('state'),
    configurations: int8('configurations').notNull(),
    syncedProperties: int8('synced_properties').notNull(),
    srStatus: int8('sr_status').notNull(),
  },
  (t) => [
    primaryKey({ name: 'link_sample_pk', columns: [t.clusterId, t.poll] }),
    toPoll('link_sample_poll_fk', t.clusterId, t.poll),
    index('link_sample_by_poll').on(t.poll),
    index('link_sample_by_name').on(t.name),
  ],
);

/** GetUpgradeStatus: the singleton per poll. */
export const upgradeSample = pgTable(
  'upgrade_sample',
  {
    clusterId: clusterFromSetting(),
    poll: int8('poll').notNull(),
    activeVersion: int8('active_version').notNull(),
    versionAfterFinalization: int8('version_after_finalization').notNull(),
    autoFinalization: int8('auto_finalization').notNull(),
    state: strId('state'),
  },
  (t) => [
    primaryKey({ name: 'upgrade_sample_pk', columns: [t.clusterId, t.poll] }),
    toPoll('upgrade_sample_poll_fk', t.clusterId, t.poll),
    index('upgrade_sample_by_poll').on(t.poll),
  ],
);

/** GetIcebergStatus: the catalog per poll. */
export const icebergSample = pgTable(
  'iceberg_sample',
  {
    clusterId: clusterFromSetting(),
    poll: int8('poll').notNull(),
    reachable: int8('reachable').notNull(),
    errorCode: strId('error_code'),
    errorMessage: strId('error_message'),
  },
  (t) => [
    primaryKey({ name: 'iceberg_sample_pk', columns: [t.clusterId, t.poll] }),
    toPoll('iceberg_sample_poll_fk', t.clusterId, t.poll),
    index('iceberg_sample_by_poll').on(t.poll),
  ],
);

/** GetShadowLink: one task status per row. */
export const shadowTaskSample = pgTable(
  'shadow_task_sample',
  {
    clusterId: clusterFromSetting(),
    poll: int8('poll').notNull(),
    pos: int8('pos').notNull(),
    link: strId('link'),
    name: strId('name'),
    state: strId('state'),
    reason: strId('reason'),
    brokerId: int8('broker_id').notNull(),
    shard: int8('shard').notNull(),
    unknown: text('unknown'),
  },
  (t) => [
    primaryKey({ name: 'shadow_task_sample_pk', columns: [t.clusterId, t.poll, t.pos] }),
    toPoll('shadow_task_sample_poll_fk', t.clusterId, t.poll),
    index('shadow_task_by_poll').on(t.poll, t.pos),
    index('shadow_task_by_key').on(t.link, t.name, t.brokerId, t.shard),
  ],
);

/** Shadow topics seen by GetShadowLink, ListShadowTopics or GetShadowTopic. */
export const shadowTopicSample = pgTable(
  'shadow_topic_sample',
  {
    clusterId: clusterFromSetting(),
    poll: int8('poll').notNull(),
    pos: int8('pos').notNull(),
    link: strId('link'),
    name: strId('name'),
    topicId: strId('topic_id'),
    sourceTopicName: strId('source_topic_name'),
    sourceTopicId: strId('source_topic_id'),
    state: strId('state'),
    unknown: text('unknown'),
  },
  (t) => [
    primaryKey({ name: 'shadow_topic_sample_pk', columns: [t.clusterId, t.poll, t.pos] }),
    toPoll('shadow_topic_sample_poll_fk', t.clusterId, t.poll),
    index('shadow_topic_by_poll').on(t.poll, t.pos),
    index('shadow_topic_by_key').on(t.link, t.name),
  ],
);

/** Partitions of the shadow topics above (`topic_pos` = the topic row's pos). */
export const shadowPartitionSample = pgTable(
  'shadow_partition_sample',
  {
    clusterId: clusterFromSetting(),
    poll: int8('poll').notNull(),
    topicPos: int8('topic_pos').notNull(),
    pos: int8('pos').notNull(),
    partitionId: int8('partition_id'),
    highWatermark: int8('high_watermark'),
    sourceHighWatermark: int8('source_high_watermark'),
    sourceLastStableOffset: int8('source_last_stable_offset'),
    sourceLastUpdated: int8('source_last_updated'),
    unknown: text('unknown'),
  },
  (t) => [
    primaryKey({ name: 'shadow_partition_sample_pk', columns: [t.clusterId, t.poll, t.topicPos, t.pos] }),
    toPoll('shadow_partition_sample_poll_fk', t.clusterId, t.poll),
    index('shadow_partition_by_poll').on(t.poll, t.topicPos, t.pos),
  ],
);

/** GetUpgradeStatus: one member per row. */
export const upgradeMemberSample = pgTable(
  'upgrade_member_sample',
  {
    clusterId: clusterFromSetting(),
    poll: int8('poll').notNull(),
    pos: int8('pos').notNull(),
    nodeId: int8('node_id').notNull(),
    alive: int8('alive').notNull(),
    logicalVersion: int8('logical_version').notNull(),
    releaseVersion: strId('release_version'),
    versionKnown: int8('version_known').notNull(),
    unknown: text('unknown'),
  },
  (t) => [
    primaryKey({ name: 'upgrade_member_sample_pk', columns: [t.clusterId, t.poll, t.pos] }),
    toPoll('upgrade_member_sample_poll_fk', t.clusterId, t.poll),
    index('upgrade_member_by_poll').on(t.poll, t.pos),
    index('upgrade_member_by_node').on(t.nodeId),
  ],
);

/** GetIcebergStatus: one topic per row. */
export const icebergTopicSample = pgTable(
  'iceberg_topic_sample',
  {
    clusterId: clusterFromSetting(),
    poll: int8('poll').notNull(),
    pos: int8('pos').notNull(),
    topic: strId('topic'),
    lifecycleState: strId('lifecycle_state'),
    unknown: text('unknown'),
  },
  (t) => [
    primaryKey({ name: 'iceberg_topic_sample_pk', columns: [t.clusterId, t.poll, t.pos] }),
    toPoll('iceberg_topic_sample_poll_fk', t.clusterId, t.poll),
    index('iceberg_topic_by_poll').on(t.poll, t.pos),
    index('iceberg_topic_by_topic').on(t.topic),
  ],
);

/** GetIcebergStatus: one partition per row; absent offsets are NULL. */
export const icebergPartitionSample = pgTable(
  'iceberg_partition_sample',
  {
    clusterId: clusterFromSetting(),
    poll: int8('poll').notNull(),
    topicPos: int8('topic_pos').notNull(),
    pos: int8('pos').notNull(),
    partition: int8('partition').notNull(),
    commitLag: int8('commit_lag'),
    lastCommittedOffset: int8('last_committed_offset'),
    lastTranslatedOffset: int8('last_translated_offset'),
    unknown: text('unknown'),
  },
  (t) => [
    primaryKey({ name: 'iceberg_partition_sample_pk', columns: [t.clusterId, t.poll, t.topicPos, t.pos] }),
    toPoll('iceberg_partition_sample_poll_fk', t.clusterId, t.poll),
    index('iceberg_partition_by_poll').on(t.poll, t.topicPos, t.pos),
  ],
);

// ---- rollups (see src/db/schema/schema.ts): keyed by cluster already ----

const toCluster = (name: string, clusterId: PgColumn) =>
  foreignKey({ name, columns: [clusterId], foreignColumns: [cluster.id] });

/** How far raw history has been summarised, per cluster and resolution. */
export const rollupProgress = pgTable(
  'rollup_progress',
  {
    clusterId: int8('cluster_id').notNull(),
    resolution: int8('resolution').notNull(),
    until: int8('until').notNull(),
  },
  (t) => [
    primaryKey({ name: 'rollup_progress_pk', columns: [t.clusterId, t.resolution] }),
    toCluster('rollup_progress_cluster_fk', t.clusterId),
  ],
);

/** One summarised bucket. */
export const rollupBucket = pgTable(
  'rollup_bucket',
  {
    clusterId: int8('cluster_id').notNull(),
    resolution: int8('resolution').notNull(),
    start: int8('start').notNull(),
    connPolls: int8('conn_polls').notNull(),
    firstPoll: int8('first_poll'),
    lastPoll: int8('last_poll'),
  },
  (t) => [
    primaryKey({ name: 'rollup_bucket_pk', columns: [t.clusterId, t.resolution, t.start] }),
    toCluster('rollup_bucket_cluster_fk', t.clusterId),
  ],
);

/** A connection group, stored once. */
export const rollupGroup = pgTable(
  'rollup_group',
  {
    id: serialId('id').notNull(),
    clusterId: int8('cluster_id').notNull(),
    nodeId: int8('node_id').notNull(),
    listener: text('listener').notNull(),
    principal: text('principal').notNull(),
    clientId: text('client_id').notNull(),
    software: text('software').notNull(),
  },
  (t) => [
    primaryKey({ name: 'rollup_group_pk', columns: [t.clusterId, t.id] }),
    toCluster('rollup_group_cluster_fk', t.clusterId),
    index('rollup_group_by_id').on(t.id),
    uniqueIndex('rollup_group_by_key').on(t.clusterId, t.nodeId, t.listener, t.principal, t.clientId, t.software),
  ],
);

/** Per connection group and bucket. */
export const rollupConn = pgTable(
  'rollup_conn',
  {
    clusterId: int8('cluster_id').notNull(),
    resolution: int8('resolution').notNull(),
    start: int8('start').notNull(),
    groupId: int8('group_id').notNull(),
    openMin: int8('open_min').notNull(),
    openMax: int8('open_max').notNull(),
    openLast: int8('open_last').notNull(),
    openSum: int8('open_sum').notNull(),
    opened: int8('opened').notNull(),
    closed: int8('closed').notNull(),
    authFailures: int8('auth_failures').notNull(),
    resets: int8('resets').notNull(),
    produceBytes: text('produce_bytes').notNull(),
    produceBatches: text('produce_batches').notNull(),
    fetchBytes: text('fetch_bytes').notNull(),
    requests: text('requests').notNull(),
  },
  (t) => [
    primaryKey({ name: 'rollup_conn_pk', columns: [t.clusterId, t.resolution, t.start, t.groupId] }),
    toCluster('rollup_conn_cluster_fk', t.clusterId),
    foreignKey({
      name: 'rollup_conn_group_fk',
      columns: [t.clusterId, t.groupId],
      foreignColumns: [rollupGroup.clusterId, rollupGroup.id],
    }),
  ],
);

/** Per shadow partition and bucket. */
export const rollupShadow = pgTable(
  'rollup_shadow',
  {
    clusterId: int8('cluster_id').notNull(),
    resolution: int8('resolution').notNull(),
    start: int8('start').notNull(),
    link: text('link').notNull(),
    topic: text('topic').notNull(),
    partition: int8('partition').notNull(),
    lagMin: int8('lag_min').notNull(),
    lagMax: int8('lag_max').notNull(),
    lagLast: int8('lag_last').notNull(),
    shadowLast: int8('shadow_last').notNull(),
    sourceLast: int8('source_last').notNull(),
    progress: int8('progress').notNull(),
    state: text('state').notNull(),
  },
  (t) => [
    primaryKey({
      name: 'rollup_shadow_pk',
      columns: [t.clusterId, t.resolution, t.start, t.link, t.topic, t.partition],
    }),
    toCluster('rollup_shadow_cluster_fk', t.clusterId),
  ],
);

/** Per Iceberg topic and bucket. */
export const rollupIceberg = pgTable(
  'rollup_iceberg',
  {
    clusterId: int8('cluster_id').notNull(),
    resolution: int8('resolution').notNull(),
    start: int8('start').notNull(),
    topic: text('topic').notNull(),
    lagMin: int8('lag_min').notNull(),
    lagMax: int8('lag_max').notNull(),
    lagLast: int8('lag_last').notNull(),
    partitions: int8('partitions').notNull(),
  },
  (t) => [
    primaryKey({ name: 'rollup_iceberg_pk', columns: [t.clusterId, t.resolution, t.start, t.topic] }),
    toCluster('rollup_iceberg_cluster_fk', t.clusterId),
  ],
);

/** Upgrade and shadow link states as intervals. */
export const rollupState = pgTable(
  'rollup_state',
  {
    clusterId: int8('cluster_id').notNull(),
    entity: text('entity').notNull(),
    start: int8('start').notNull(),
    end: int8('end'),
    state: text('state').notNull(),
  },
  (t) => [
    primaryKey({ name: 'rollup_state_pk', columns: [t.clusterId, t.entity, t.start] }),
    toCluster('rollup_state_cluster_fk', t.clusterId),
  ],
);

/** The timeline's events found while raw history existed. */
export const rollupEvent = pgTable(
  'rollup_event',
  {
    clusterId: int8('cluster_id').notNull(),
    kind: text('kind').notNull(),
    entity: text('entity').notNull(),
    start: int8('start').notNull(),
    end: int8('end'),
    body: text('body').notNull(),
  },
  (t) => [
    primaryKey({ name: 'rollup_event_pk', columns: [t.clusterId, t.kind, t.entity, t.start] }),
    toCluster('rollup_event_cluster_fk', t.clusterId),
    index('rollup_event_by_time').on(t.clusterId, t.start),
  ],
);

/** What retention and `db prune` removed; cluster 0: an action over the whole store. */
export const maintenanceLog = pgTable(
  'maintenance_log',
  {
    clusterId: clusterOrStore(),
    id: serialId('id').notNull(),
    at: int8('at').notNull(),
    cluster: text('cluster'),
    action: text('action').notNull(),
    cutoff: int8('cutoff'),
    polls: int8('polls').notNull(),
    samples: int8('samples').notNull(),
    bytes: int8('bytes').notNull(),
    durationMs: int8('duration_ms').notNull(),
  },
  (t) => [
    primaryKey({ name: 'maintenance_log_pk', columns: [t.clusterId, t.id] }),
    index('maintenance_log_by_time').on(t.at),
  ],
);
