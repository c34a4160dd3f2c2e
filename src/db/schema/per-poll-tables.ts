/**
 * The per-poll tables, declared once: the tables whose rows belong to one poll (they go with it,
 * `ON DELETE CASCADE` from `poll`; on PostgreSQL each is partitioned by UTC day on its poll id).
 * Retention, prune plans, `db stats` and PostgreSQL's day partitions all derive their table lists
 * from this one; a new per-poll table is added here (and to both schemas, which
 * test/db/schema-parity.test.ts compares) and nowhere else.
 */
import type { ResourceName } from '../../api/schema/resources.ts';

/** How a per-poll table's rows count as stored samples. */
export type SampleCount =
  /** one sample a row */
  | 'rows'
  /** a connection frame: the sum of its `rows` column */
  | 'frame-rows'
  /** not samples (raw bodies) */
  | 'none';

/** One per-poll table. */
export interface PerPollTable {
  /** its poll-id column */
  readonly key: string;
  readonly samples: SampleCount;
  /** the resource its rows are samples of, for `db stats` and prune plans (none: not a queryable resource of its own) */
  readonly resource?: ResourceName;
}

/** Every per-poll table, in the order prune plans and `db stats` list their resources. */
export const PER_POLL_TABLES = {
  conn_frame: { key: 'poll', samples: 'frame-rows', resource: 'connections' },
  link_sample: { key: 'poll', samples: 'rows', resource: 'shadow-links' },
  shadow_task_sample: { key: 'poll', samples: 'rows', resource: 'shadow-tasks' },
  shadow_topic_sample: { key: 'poll', samples: 'rows', resource: 'shadow-topics' },
  shadow_partition_sample: { key: 'poll', samples: 'rows', resource: 'shadow-partitions' },
  upgrade_sample: { key: 'poll', samples: 'rows', resource: 'upgrade' },
  upgrade_member_sample: { key: 'poll', samples: 'rows', resource: 'upgrade-members' },
  iceberg_topic_sample: { key: 'poll', samples: 'rows', resource: 'iceberg-topics' },
  iceberg_partition_sample: { key: 'poll', samples: 'rows', resource: 'iceberg-partitions' },
  iceberg_sample: { key: 'poll', samples: 'rows' },
  poll_raw: { key: 'poll_id', samples: 'none' },
} as const satisfies Record<string, PerPollTable>;

/** The name of a per-poll table. */
export type PerPollTableName = keyof typeof PER_POLL_TABLES;

/** The per-poll tables as a list: name, poll-id column, how its rows count, its resource. */
export const PER_POLL_TABLE_LIST: readonly (PerPollTable & { readonly table: PerPollTableName })[] = (
  Object.keys(PER_POLL_TABLES) as PerPollTableName[]
).map((table) => ({ table, ...PER_POLL_TABLES[table] }));

/**
 * The SQL counting the stored samples of a per-poll table (`where`: a condition on its rows, or
 * none; `relation`: what to read, the table itself or one of its partitions, already quoted).
 */
export function sampleCountSql(table: PerPollTableName, where = '', relation: string = table): string {
  const cond = where === '' ? '' : ` WHERE ${where}`;
  return PER_POLL_TABLES[table].samples === 'frame-rows'
    ? `SELECT coalesce(sum(rows), 0) FROM ${relation}${cond}`
    : `SELECT count(*) FROM ${relation}${cond}`;
}

/** Whether `table` is a per-poll table. */
export function isPerPollTable(table: string): table is PerPollTableName {
  return Object.hasOwn(PER_POLL_TABLES, table);
}

/** The per-poll table holding the samples of `resource`, if one does. */
export function sampleTableOf(resource: ResourceName): PerPollTableName | undefined {
  return PER_POLL_TABLE_LIST.find((t) => t.resource === resource)?.table;
}
