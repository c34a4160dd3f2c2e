/**
 * The two schemas of the store, SQLite's (src/db/schema/schema.ts with schema-custom.ts) and
 * PostgreSQL's (src/db/engines/pg/schema.ts), hold the same tables and columns apart from the
 * differences declared here; and every per-poll table (src/db/schema/per-poll-tables.ts) is in both,
 * with its poll-id column.
 */
import { getTableConfig as pgTableConfig, PgTable } from 'drizzle-orm/pg-core';
import { getTableConfig as sqliteTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { describe, expect, it } from 'vitest';
import { FIELDS } from '../../src/db/connections/slow.ts';
import { PER_POLL_TABLE_LIST } from '../../src/db/schema/per-poll-tables.ts';
import * as pgSchema from '../../src/db/engines/pg/schema.ts';
import * as sqliteCustom from '../../src/db/schema/schema-custom.ts';
import * as sqliteSchema from '../../src/db/schema/schema.ts';

/** Table name to its column names, of a schema module's tables. */
function columnsOf(modules: readonly object[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const value of modules.flatMap((m) => Object.values(m) as unknown[])) {
    if (value instanceof SQLiteTable) {
      const c = sqliteTableConfig(value);
      out.set(c.name, c.columns.map((x) => x.name).sort());
    } else if (value instanceof PgTable) {
      const c = pgTableConfig(value);
      out.set(c.name, c.columns.map((x) => x.name).sort());
    }
  }
  return out;
}

/**
 * PostgreSQL keys every row by cluster (ready to be sharded by it): a table without a cluster of
 * its own gains `cluster_id` there.
 */
const PG_CLUSTER_KEYED = [
  'meta',
  'poll_raw',
  'str',
  'doc',
  'conn_version',
  'conn_chunk',
  'conn_frame',
  'link_sample',
  'upgrade_sample',
  'iceberg_sample',
  'shadow_task_sample',
  'shadow_topic_sample',
  'shadow_partition_sample',
  'upgrade_member_sample',
  'iceberg_topic_sample',
  'iceberg_partition_sample',
  'maintenance_log',
];

/**
 * The connection layouts (src/db/engines/store-engine.ts): SQLite keeps typed copies of the packed
 * records' fields (`typed-columns`), PostgreSQL the packed records only, a connection's first
 * version in its entity row (`packed-records`, drizzle/pg/0006, 0008, 0010).
 */
const SQLITE_ONLY: Readonly<Record<string, readonly string[]>> = {
  conn_entity: ['uid', 'node_id', 'shard_id', 'listener', 'source_ip', 'source_port', 'tls', 'open_time', 'extra'],
  conn_version: ['from_poll', ...FIELDS.map((f) => f.column), 'unknown'],
};
const PG_ONLY: Readonly<Record<string, readonly string[]>> = {
  conn_entity: ['first_version'],
  ...Object.fromEntries(PG_CLUSTER_KEYED.map((t) => [t, ['cluster_id']])),
};

const sqlite = columnsOf([sqliteSchema, sqliteCustom]);
const pg = columnsOf([pgSchema]);

describe('the two schemas of the store', () => {
  it('have the same tables', () => {
    expect(sqlite.size).toBeGreaterThan(20);
    expect([...pg.keys()].sort()).toEqual([...sqlite.keys()].sort());
  });

  it('have the same columns apart from the declared differences', () => {
    for (const [table, cols] of sqlite) {
      const other = pg.get(table) ?? [];
      expect(cols.filter((c) => !other.includes(c)).sort(), `${table}: SQLite only`).toEqual(
        [...(SQLITE_ONLY[table] ?? [])].sort(),
      );
      expect(other.filter((c) => !cols.includes(c)).sort(), `${table}: PostgreSQL only`).toEqual(
        [...(PG_ONLY[table] ?? [])].sort(),
      );
    }
  });

  it('both hold every per-poll table with its poll-id column', () => {
    for (const t of PER_POLL_TABLE_LIST) {
      expect(sqlite.get(t.table), t.table).toContain(t.key);
      expect(pg.get(t.table), t.table).toContain(t.key);
    }
  });
});
