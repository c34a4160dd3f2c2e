/**
 * WITHOUT ROWID tables, described for drizzle's types and queries but created by the
 * hand-written migration `drizzle/0001_without_rowid.sql` (drizzle-kit cannot declare
 * WITHOUT ROWID). Not listed in drizzle.config.ts, so drizzle-kit never generates them.
 * Per-poll rows are keyed (poll, pos): `pos` is the row's index in its list in the answer.
 */
import { blob, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

const ns = (name: string) => integer(name).$type<bigint>();
const strId = (name: string) => integer(name).notNull();

/** Samples of up to 32 connections (ids from `first_entity`) over one sealed batch (docs/storage.md). */
export const connChunk = sqliteTable(
  'conn_chunk',
  {
    batch: integer('batch').notNull(),
    firstEntity: integer('first_entity').notNull(),
    data: blob('data', { mode: 'buffer' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.batch, t.firstEntity] })],
);

/** GetShadowLink: one task status per row. */
export const shadowTaskSample = sqliteTable(
  'shadow_task_sample',
  {
    poll: integer('poll').notNull(),
    pos: integer('pos').notNull(),
    link: strId('link'),
    name: strId('name'),
    state: strId('state'),
    reason: strId('reason'),
    brokerId: integer('broker_id').notNull(),
    shard: integer('shard').notNull(),
    unknown: text('unknown'),
  },
  (t) => [primaryKey({ columns: [t.poll, t.pos] })],
);

/** Shadow topics seen by GetShadowLink, ListShadowTopics or GetShadowTopic. */
export const shadowTopicSample = sqliteTable(
  'shadow_topic_sample',
  {
    poll: integer('poll').notNull(),
    pos: integer('pos').notNull(),
    link: strId('link'),
    name: strId('name'),
    topicId: strId('topic_id'),
    sourceTopicName: strId('source_topic_name'),
    sourceTopicId: strId('source_topic_id'),
    state: strId('state'),
    unknown: text('unknown'),
  },
  (t) => [primaryKey({ columns: [t.poll, t.pos] })],
);

/** Partitions of the shadow topics above (`topic_pos` = the topic row's pos). */
export const shadowPartitionSample = sqliteTable(
  'shadow_partition_sample',
  {
    poll: integer('poll').notNull(),
    topicPos: integer('topic_pos').notNull(),
    pos: integer('pos').notNull(),
    partitionId: ns('partition_id'),
    highWatermark: ns('high_watermark'),
    sourceHighWatermark: ns('source_high_watermark'),
    sourceLastStableOffset: ns('source_last_stable_offset'),
    sourceLastUpdated: ns('source_last_updated'),
    unknown: text('unknown'),
  },
  (t) => [primaryKey({ columns: [t.poll, t.topicPos, t.pos] })],
);

/** GetUpgradeStatus: one member per row. */
export const upgradeMemberSample = sqliteTable(
  'upgrade_member_sample',
  {
    poll: integer('poll').notNull(),
    pos: integer('pos').notNull(),
    nodeId: integer('node_id').notNull(),
    alive: integer('alive').notNull(),
    logicalVersion: ns('logical_version').notNull(),
    releaseVersion: strId('release_version'),
    versionKnown: integer('version_known').notNull(),
    unknown: text('unknown'),
  },
  (t) => [primaryKey({ columns: [t.poll, t.pos] })],
);

/** GetIcebergStatus: one topic per row. */
export const icebergTopicSample = sqliteTable(
  'iceberg_topic_sample',
  {
    poll: integer('poll').notNull(),
    pos: integer('pos').notNull(),
    topic: strId('topic'),
    lifecycleState: strId('lifecycle_state'),
    unknown: text('unknown'),
  },
  (t) => [primaryKey({ columns: [t.poll, t.pos] })],
);

/** GetIcebergStatus: one partition per row; absent offsets are NULL. */
export const icebergPartitionSample = sqliteTable(
  'iceberg_partition_sample',
  {
    poll: integer('poll').notNull(),
    topicPos: integer('topic_pos').notNull(),
    pos: integer('pos').notNull(),
    partition: integer('partition').notNull(),
    commitLag: ns('commit_lag'),
    lastCommittedOffset: ns('last_committed_offset'),
    lastTranslatedOffset: ns('last_translated_offset'),
    unknown: text('unknown'),
  },
  (t) => [primaryKey({ columns: [t.poll, t.topicPos, t.pos] })],
);
