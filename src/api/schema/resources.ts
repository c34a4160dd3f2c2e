/**
 * The queryable resources of flightrec (`query RESOURCE`, filters, the store's entity kinds):
 * each is a message schema whose rows flatten the wire answers, plus its key fields.
 */
import { f, message, type Infer, type MessageSchema } from './fields.ts';
import { KafkaConnection } from './connection.ts';
import { ShadowLink, TaskStatus } from './shadow-link.ts';
import { ShadowTopic, ShadowTopicPartition } from './shadow-topic.ts';
import { MemberVersion, UpgradeStatus } from './upgrade.ts';
import { IcebergLifecycleState } from './enums.ts';
import { IcebergPartition, IcebergTopic } from './iceberg.ts';
import { OPERATION_NAMES, type OperationName } from './operations.ts';

/** A task status row, with the link it belongs to. */
export const ShadowTaskRow = message('ShadowTaskRow', {
  shadowLinkName: f.string(),
  ...TaskStatus.fields,
});
/** A shadow topic row, with the link it belongs to. */
export const ShadowTopicRow = message('ShadowTopicRow', {
  shadowLinkName: f.string(),
  ...ShadowTopic.fields,
});
/** A shadow partition row, with its link and topic, and the derived lag. */
export const ShadowPartitionRow = message('ShadowPartitionRow', {
  shadowLinkName: f.string(),
  topicName: f.string(),
  ...ShadowTopicPartition.fields,
  lag: f.int64('sourceHighWatermark - highWatermark (derived)'),
});
/** An Iceberg partition row, with its topic and the topic's lifecycle state. */
export const IcebergPartitionRow = message('IcebergPartitionRow', {
  topic: f.string(),
  lifecycleState: f.enum(IcebergLifecycleState),
  ...IcebergPartition.fields,
});
/** One recorded poll attempt. */
export const PollRow = message('PollRow', {
  id: f.int64(),
  cluster: f.string(),
  operation: f.stringOf(OPERATION_NAMES),
  target: f.string('link or link/topic the poll asked about, empty otherwise'),
  scheduledTime: f.timestamp(),
  startTime: f.timestamp(),
  endTime: f.timestamp(),
  duration: f.duration(),
  outcome: f.string('"ok" or the Connect error code'),
  httpStatus: f.int32(),
  message: f.string('error message, empty on success'),
  bytes: f.int64('answer size'),
  rowsReturned: f.int64(),
  totalSize: f.uint64("the answer's totalSize"),
  fanoutCalls: f.int32(),
  coverage: f.string('"complete" or "truncated" (connections only)'),
});

/** One queryable resource. */
export interface ResourceSpec {
  readonly name: string;
  readonly schema: MessageSchema;
  /** wire names of the fields that identify one entity */
  readonly key: readonly string[];
  /** the operations whose answers feed it */
  readonly operations: readonly OperationName[];
  readonly doc: string;
}

const resource = (
  name: string,
  schema: MessageSchema,
  key: readonly string[],
  operations: readonly OperationName[],
  doc: string,
): ResourceSpec => ({ name, schema, key, operations, doc });

/** Every resource, keyed by its command-line name. */
export const RESOURCES = {
  connections: resource('connections', KafkaConnection, ['uid'], ['ListKafkaConnections'], 'Kafka client connections'),
  'shadow-links': resource(
    'shadow-links',
    ShadowLink,
    ['name'],
    ['GetShadowLink'],
    'shadow links with configuration and status',
  ),
  'shadow-tasks': resource(
    'shadow-tasks',
    ShadowTaskRow,
    ['shadowLinkName', 'name', 'brokerId', 'shard'],
    ['GetShadowLink'],
    'shadow link tasks per broker shard',
  ),
  'shadow-topics': resource(
    'shadow-topics',
    ShadowTopicRow,
    ['shadowLinkName', 'name'],
    ['ListShadowTopics', 'GetShadowTopic', 'GetShadowLink'],
    'shadow topics',
  ),
  'shadow-partitions': resource(
    'shadow-partitions',
    ShadowPartitionRow,
    ['shadowLinkName', 'topicName', 'partitionId'],
    ['ListShadowTopics', 'GetShadowTopic', 'GetShadowLink'],
    'shadow topic partitions with lag',
  ),
  upgrade: resource('upgrade', UpgradeStatus, [], ['GetUpgradeStatus'], 'cluster upgrade-finalization state'),
  'upgrade-members': resource(
    'upgrade-members',
    MemberVersion,
    ['nodeId'],
    ['GetUpgradeStatus'],
    'upgrade members and versions',
  ),
  'iceberg-topics': resource('iceberg-topics', IcebergTopic, ['topic'], ['GetIcebergStatus'], 'Iceberg topics'),
  'iceberg-partitions': resource(
    'iceberg-partitions',
    IcebergPartitionRow,
    ['topic', 'partition'],
    ['GetIcebergStatus'],
    'Iceberg partitions with commit lag',
  ),
  polls: resource('polls', PollRow, ['id'], [], 'recorded poll attempts'),
} as const satisfies Record<string, ResourceSpec>;

/** A resource name. */
export type ResourceName = keyof typeof RESOURCES;
/** All resource names. */
export const RESOURCE_NAMES = Object.keys(RESOURCES) as ResourceName[];
/** True when `name` is a resource name. */
export function isResourceName(name: string): name is ResourceName {
  return Object.hasOwn(RESOURCES, name);
}

/** A decoded shadow task row. */
export type ShadowTaskRow = Infer<typeof ShadowTaskRow>;
/** A decoded shadow topic row. */
export type ShadowTopicRow = Infer<typeof ShadowTopicRow>;
/** A decoded shadow partition row. */
export type ShadowPartitionRow = Infer<typeof ShadowPartitionRow>;
/** A decoded Iceberg partition row. */
export type IcebergPartitionRow = Infer<typeof IcebergPartitionRow>;
/** A decoded poll row. */
export type PollRow = Infer<typeof PollRow>;
