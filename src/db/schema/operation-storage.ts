/**
 * One storage descriptor per operation: the per-poll tables its answers are written to, and
 * the tables shared between polls that those rows refer to. A record over every operation, so a
 * new operation does not compile until it says where it is stored
 * (test/db/operation-storage.test.ts proves a missing entry is a type error).
 */
import type { OperationName } from '../../api/schema/operations.ts';
import type { PerPollTableName } from './per-poll-tables.ts';

/** Where the answers of one operation are stored. */
export interface OperationStorage {
  /** the per-poll tables its answer's rows go to */
  readonly tables: readonly PerPollTableName[];
  /** tables shared between polls that those rows refer to (documents, connection identities and versions) */
  readonly shared: readonly string[];
}

/** A storage descriptor for every operation. */
export type OperationStorageTable = { readonly [N in OperationName]: OperationStorage };

/** Where each operation's answers are stored. */
export const OPERATION_STORAGE: OperationStorageTable = {
  ListKafkaConnections: { tables: ['conn_frame'], shared: ['conn_batch', 'conn_chunk', 'conn_entity', 'conn_version'] },
  GetShadowLink: {
    tables: ['link_sample', 'shadow_task_sample', 'shadow_topic_sample', 'shadow_partition_sample'],
    shared: ['doc'],
  },
  ListShadowTopics: { tables: ['shadow_topic_sample', 'shadow_partition_sample'], shared: [] },
  GetShadowTopic: { tables: ['shadow_topic_sample', 'shadow_partition_sample'], shared: [] },
  GetUpgradeStatus: { tables: ['upgrade_sample', 'upgrade_member_sample'], shared: [] },
  GetIcebergStatus: { tables: ['iceberg_sample', 'iceberg_topic_sample', 'iceberg_partition_sample'], shared: [] },
};

/** The tables an answer of `op` is read from, as a damage report names them (`... or poll`). */
export function storedIn(op: OperationName): string {
  const s = OPERATION_STORAGE[op];
  return `${[...s.tables, ...s.shared].join(', ')} or poll`;
}
