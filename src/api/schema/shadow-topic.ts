/** ShadowTopic, its partitions, and the GetShadowTopic / ListShadowTopics operations. */
import { f, message, type Infer } from './fields.ts';
import { ShadowTopicState } from './enums.ts';

/** Replication state of one shadow partition. */
export const ShadowTopicPartition = message('ShadowTopicPartitionInformation', {
  partitionId: f.int64(),
  highWatermark: f.int64('shadow partition high watermark'),
  sourceHighWatermark: f.int64('source partition high watermark'),
  sourceLastStableOffset: f.int64('source partition last stable offset'),
  sourceLastUpdatedTimestamp: f.timestamp('last refresh of the source partition information'),
});

/** Status of a shadow topic. */
export const ShadowTopicStatus = message('ShadowTopicStatus', {
  state: f.enum(ShadowTopicState),
  partitionInformation: f.list(f.message(ShadowTopicPartition)),
});

/** A shadow topic. */
export const ShadowTopic = message('ShadowTopic', {
  name: f.string(),
  topicId: f.string(),
  sourceTopicName: f.string(),
  sourceTopicId: f.string(),
  status: f.message(ShadowTopicStatus),
});

/** GetShadowTopic request. */
export const GetShadowTopicRequest = message('GetShadowTopicRequest', {
  name: f.string(),
  shadowLinkName: f.string(),
});
/** GetShadowTopic response. */
export const GetShadowTopicResponse = message('GetShadowTopicResponse', {
  shadowTopic: f.message(ShadowTopic),
});
/** ListShadowTopics request. */
export const ListShadowTopicsRequest = message('ListShadowTopicsRequest', {
  shadowLinkName: f.string(),
});
/** ListShadowTopics response. */
export const ListShadowTopicsResponse = message('ListShadowTopicsResponse', {
  shadowTopics: f.list(f.message(ShadowTopic)),
});

/** A decoded shadow topic. */
export type ShadowTopic = Infer<typeof ShadowTopic>;
/** A decoded shadow partition record. */
export type ShadowTopicPartition = Infer<typeof ShadowTopicPartition>;
