/**
 * Which tables belong to which resource, for `db stats`, and the bytes of a group of them; each
 * table's bytes come from the engine (`EngineSession.tableBytes`: SQLite's dbstat, PostgreSQL's
 * pg_total_relation_size over each table's partitions).
 */
import { ROLLUP_TABLE_NAMES } from '../rollups/rollup-tables.ts';
import type { ResourceName } from '../../api/schema/resources.ts';

/** The tables holding each resource's own history (read with the resource, written by no other). */
export const RESOURCE_TABLES: Readonly<Record<Exclude<ResourceName, 'polls'>, readonly string[]>> = {
  connections: ['conn_entity', 'conn_version', 'conn_batch', 'conn_frame', 'conn_chunk'],
  'shadow-links': ['link_sample', 'doc'],
  'shadow-tasks': ['shadow_task_sample'],
  'shadow-topics': ['shadow_topic_sample'],
  'shadow-partitions': ['shadow_partition_sample'],
  upgrade: ['upgrade_sample'],
  'upgrade-members': ['upgrade_member_sample'],
  'iceberg-topics': ['iceberg_topic_sample', 'iceberg_sample'],
  'iceberg-partitions': ['iceberg_partition_sample'],
};

/** The poll log: one row per call attempt, and the raw bodies kept. */
export const POLL_TABLES: readonly string[] = ['poll', 'poll_raw'];

/** The string dictionary, shared by every resource. */
export const SHARED_TABLES: readonly string[] = ['str'];

/** The rollups: summaries of pruned history and the timeline's kept events. */
export const ROLLUP_TABLES: readonly string[] = ROLLUP_TABLE_NAMES;

/** The bytes of `tables` (0 for one that does not exist). */
export function bytesOf(sizes: ReadonlyMap<string, number>, tables: readonly string[]): number {
  return tables.reduce((sum, t) => sum + (sizes.get(t) ?? 0), 0);
}
