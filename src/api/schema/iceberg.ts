/** GetIcebergStatus: catalog health and per-partition translation/commit progress. */
import { f, message, optional, type Infer } from './fields.ts';
import { IcebergLifecycleState } from './enums.ts';

/** Catalog reachability. */
export const IcebergCatalog = message('IcebergCatalogStatus', {
  reachable: f.bool(),
  errorCode: f.string('catalog error code name on failure'),
  errorMessage: f.string(),
});

/** Progress of one Iceberg partition; the offsets are absent until set. */
export const IcebergPartition = message('IcebergPartitionStatus', {
  partition: f.int32(),
  commitLag: f.int64('records written to Parquet but not committed'),
  lastCommittedOffset: optional(f.int64('last offset committed to the catalog')),
  lastTranslatedOffset: optional(f.int64('highest offset written to Parquet')),
});

/** One Iceberg topic. */
export const IcebergTopic = message('IcebergTopicStatus', {
  topic: f.string(),
  lifecycleState: f.enum(IcebergLifecycleState),
  partitions: f.list(f.message(IcebergPartition)),
});

/** GetIcebergStatus request. */
export const GetIcebergStatusRequest = message('GetIcebergStatusRequest', {
  topicsFilter: f.list(f.string()),
});

/** GetIcebergStatus response. */
export const IcebergStatus = message('GetIcebergStatusResponse', {
  catalog: f.message(IcebergCatalog),
  topics: f.list(f.message(IcebergTopic)),
});

/** A decoded Iceberg status. */
export type IcebergStatus = Infer<typeof IcebergStatus>;
/** A decoded Iceberg topic. */
export type IcebergTopic = Infer<typeof IcebergTopic>;
/** A decoded Iceberg partition. */
export type IcebergPartition = Infer<typeof IcebergPartition>;
