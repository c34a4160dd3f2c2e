/**
 * The PostgreSQL schema's rules, read from the catalog of a freshly migrated database: the real
 * server named by FLIGHTREC_TEST_PG (a database of its own, dropped after), otherwise PGlite in
 * memory. Cluster in every key, per-poll tables partitioned by day, migrations idempotent, locked
 * and refused when newer, poll ids by day, and the SQLite and PostgreSQL schemas declaring the
 * same tables and columns.
 */
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { is } from 'drizzle-orm';
import { PgTable, getTableConfig as pgTableConfig } from 'drizzle-orm/pg-core';
import { SQLiteTable, getTableConfig as sqliteTableConfig } from 'drizzle-orm/sqlite-core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { DatabaseVersionError } from '../../src/db/errors.ts';
import {
  migratePostgres,
  pgMigrationsFolder,
  pgRows,
  pgSchemaVersion,
  type PgClient,
} from '../../src/db/engines/pg/migrate.ts';
import { PARTITIONED_TABLES, dropExpiredDayPartitions, listDayPartitions } from '../../src/db/engines/pg/partitions.ts';
import * as pgSchema from '../../src/db/engines/pg/schema.ts';
import * as sqliteSchema from '../../src/db/schema/schema.ts';
import * as sqliteCustom from '../../src/db/schema/schema-custom.ts';
import { FIELDS } from '../../src/db/connections/slow.ts';
import { pgAvailable } from '../helpers/pg.ts';

const SERVER = pgAvailable().url;
const TWO_CONNECTIONS = 'needs FLIGHTREC_TEST_PG (a real server): PGlite has one connection';

/** A fresh, empty database and a way to open more connections to it (real server only). */
interface Fresh {
  readonly client: PgClient;
  connect(): Promise<pg.Client>;
  close(): Promise<void>;
}

async function freshDatabase(): Promise<Fresh> {
  if (SERVER === undefined) {
    const lite = new PGlite();
    return {
      client: lite,
      connect: () => Promise.reject(new Error(TWO_CONNECTIONS)),
      close: () => lite.close(),
    };
  }
  const name = `flightrec_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: SERVER });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(SERVER);
  url.pathname = `/${name}`;
  const opened: pg.Client[] = [];
  const connect = async (): Promise<pg.Client> => {
    const c = new pg.Client({ connectionString: url.toString() });
    await c.connect();
    opened.push(c);
    return c;
  };
  const client = await connect();
  return {
    client,
    connect,
    close: async () => {
      for (const c of opened) await c.end();
      await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

const today = (): number => Math.floor(Date.now() / 86_400_000);
const dayName = (day: number): string => new Date(day * 86_400_000).toISOString().slice(0, 10).replace(/-/g, '');

/** Tables of the public schema that are not partitions. */
async function tables(client: PgClient): Promise<string[]> {
  const rows = await pgRows<{ name: string }>(
    client,
    `SELECT relname AS name FROM pg_class WHERE relnamespace = 'public'::regnamespace
       AND relkind IN ('r', 'p') AND NOT relispartition ORDER BY relname`,
  );
  return rows.map((r) => r.name);
}

interface Constraint {
  readonly table: string;
  readonly name: string;
  readonly type: 'p' | 'u' | 'f';
  readonly columns: string[];
  readonly refTable: string | null;
  readonly refColumns: string[] | null;
}

/** Primary keys, unique constraints and foreign keys of the public tables (not of partitions), with column names. */
async function constraints(client: PgClient): Promise<Constraint[]> {
  const rows = await pgRows<
    Omit<Constraint, 'columns' | 'refColumns'> & { columns: string; refColumns: string | null }
  >(
    client,
    `SELECT t.relname AS "table", c.conname AS name, c.contype AS type,
        (SELECT string_agg(a.attname, ',' ORDER BY k.i) FROM unnest(c.conkey) WITH ORDINALITY k(n, i)
           JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n) AS columns,
        r.relname AS "refTable",
        (SELECT string_agg(a.attname, ',' ORDER BY k.i) FROM unnest(c.confkey) WITH ORDINALITY k(n, i)
           JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n) AS "refColumns"
       FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid LEFT JOIN pg_class r ON r.oid = c.confrelid
       WHERE t.relnamespace = 'public'::regnamespace AND NOT t.relispartition AND c.contype IN ('p', 'u', 'f')`,
  );
  return rows.map((r) => ({ ...r, columns: r.columns.split(','), refColumns: r.refColumns?.split(',') ?? null }));
}

/** Unique indexes that are not constraints (drizzle's uniqueIndex), as table and columns. */
async function uniqueIndexes(client: PgClient): Promise<{ table: string; name: string; columns: string[] }[]> {
  const rows = await pgRows<{ table: string; name: string; columns: string }>(
    client,
    `SELECT t.relname AS "table", ic.relname AS name,
        (SELECT string_agg(a.attname, ',') FROM unnest(i.indkey::int2[]) k(n)
           JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.n) AS columns
       FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid JOIN pg_class ic ON ic.oid = i.indexrelid
       WHERE t.relnamespace = 'public'::regnamespace AND NOT t.relispartition AND i.indisunique
         AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)`,
  );
  return rows.map((r) => ({ ...r, columns: r.columns.split(',') }));
}

/** The drizzle tables of a schema module, by name: their columns. */
function declared(
  modules: readonly object[],
  dialect: 'sqlite' | 'pg',
): Map<string, Map<string, { type: string; notNull: boolean }>> {
  const out = new Map<string, Map<string, { type: string; notNull: boolean }>>();
  for (const mod of modules) {
    for (const value of Object.values(mod)) {
      const config =
        dialect === 'pg'
          ? is(value, PgTable)
            ? pgTableConfig(value)
            : undefined
          : is(value, SQLiteTable)
            ? sqliteTableConfig(value)
            : undefined;
      if (config === undefined) continue;
      out.set(config.name, new Map(config.columns.map((c) => [c.name, { type: c.getSQLType(), notNull: c.notNull }])));
    }
  }
  return out;
}

/**
 * SQLite columns PostgreSQL leaves out: the typed copies of the packed connection records' fields
 * (drizzle/pg/0006; the pre-filter and the psql view use the records there), and the uid, which
 * the record holds and an index over it finds (drizzle/pg/0008), and a version's first poll, which
 * its record holds (drizzle/pg/0009).
 */
const PACKED_ONLY: Record<string, readonly string[]> = {
  conn_entity: ['uid', 'node_id', 'shard_id', 'listener', 'source_ip', 'source_port', 'tls', 'open_time', 'extra'],
  conn_version: [...FIELDS.map((f) => f.column), 'unknown', 'from_poll'],
};

/** PostgreSQL columns SQLite has not: a connection's first version kept in its entity row (drizzle/pg/0010). */
const PG_ONLY: Record<string, readonly string[]> = {
  conn_entity: ['first_version'],
};

/** The one table whose key is not the cluster's: why each is allowed. */
const EXCEPTIONS: Record<string, string> = {
  // the table of clusters itself: its id IS the cluster id, and its name the cluster's unique name
  cluster: 'the cluster itself',
  // the lease is taken before the cluster row exists (a standby may never write one), so it is
  // keyed by the cluster's name, which identifies the cluster as well as its id does
  collector_lease: 'keyed by the cluster name',
};

describe('PostgreSQL schema', () => {
  let db: Fresh;
  let firstRun: { applied: number; version: number };

  beforeAll(async () => {
    db = await freshDatabase();
    firstRun = await migratePostgres(db.client);
  });
  afterAll(async () => {
    await db?.close();
  });

  it('applies every committed migration once', async () => {
    const journal = JSON.parse(readFileSync(join(pgMigrationsFolder(), 'meta', '_journal.json'), 'utf8')) as {
      entries: unknown[];
    };
    expect(firstRun).toEqual({ applied: journal.entries.length, version: journal.entries.length });
    expect((await pgSchemaVersion(db.client)).applied).toBe(journal.entries.length);
  });

  it('declares the same tables and columns as the SQLite schema (cluster_id added; the typed copies of packed connection records left out)', () => {
    const lite = declared([sqliteSchema, sqliteCustom], 'sqlite');
    const pgTables = declared([pgSchema], 'pg');
    expect([...pgTables.keys()].sort()).toEqual([...lite.keys()].sort());
    for (const [table, all] of lite) {
      const columns = new Map([...all].filter(([name]) => !(PACKED_ONLY[table] ?? []).includes(name)));
      const pgColumns = [...(pgTables.get(table)?.keys() ?? [])].filter((c) => !(PG_ONLY[table] ?? []).includes(c));
      const added = pgColumns.filter((c) => !columns.has(c));
      expect(added, table).toEqual(columns.has('cluster_id') || table in EXCEPTIONS ? [] : ['cluster_id']);
      expect(pgColumns.filter((c) => c !== 'cluster_id' || columns.has(c)).sort(), table).toEqual(
        [...columns.keys()].sort(),
      );
      for (const [name, col] of columns) {
        const expected = col.type === 'blob' ? 'bytea' : col.type === 'integer' ? 'bigint' : col.type;
        expect(pgTables.get(table)?.get(name)?.type, `${table}.${name}`).toBe(expected);
      }
    }
  });

  it('creates exactly the declared tables and columns (the hand-written partitioned ones too)', async () => {
    const pgTables = declared([pgSchema], 'pg');
    expect(await tables(db.client)).toEqual([...pgTables.keys()].sort());
    const rows = await pgRows<{ table: string; column: string; type: string; nullable: string }>(
      db.client,
      `SELECT c.table_name AS "table", c.column_name AS "column", c.data_type AS type, c.is_nullable AS nullable
         FROM information_schema.columns c JOIN pg_class t ON t.relname = c.table_name AND t.relnamespace = 'public'::regnamespace
         WHERE c.table_schema = 'public' AND t.relkind IN ('r', 'p') AND NOT t.relispartition`,
    );
    const found = new Map<string, string>(
      rows.map((r) => [`${r.table}.${r.column}`, `${r.type} ${r.nullable === 'NO'}`]),
    );
    const expected = new Map<string, string>();
    for (const [table, columns] of pgTables) {
      for (const [name, col] of columns) expected.set(`${table}.${name}`, `${col.type} ${col.notNull}`);
    }
    expect(Object.fromEntries(found)).toEqual(Object.fromEntries(expected));
  });

  it('(a) keys every table by cluster: primary keys, unique constraints and foreign keys', async () => {
    const all = await tables(db.client);
    const cons = await constraints(db.client);
    for (const table of all) {
      const pk = cons.find((c) => c.table === table && c.type === 'p');
      expect(pk, `${table} has a primary key`).toBeDefined();
      if (table === 'cluster') expect(pk?.columns).toEqual(['id']);
      else if (table === 'collector_lease') expect(pk?.columns).toEqual(['cluster']);
      else expect(pk?.columns, `${table} primary key`).toContain('cluster_id');
    }
    for (const u of cons.filter((c) => c.type === 'u')) {
      if (u.table === 'cluster') expect(u.columns, 'the cluster name is unique among clusters').toEqual(['name']);
      else expect(u.columns, `${u.table}.${u.name}`).toContain('cluster_id');
    }
    const indexes = await uniqueIndexes(db.client);
    expect(indexes.map((u) => u.name)).toContain('rollup_group_by_key');
    for (const u of indexes) expect(u.columns, `${u.table}.${u.name}`).toContain('cluster_id');
    const fks = cons.filter((c) => c.type === 'f');
    expect(fks.length).toBeGreaterThan(20);
    for (const fk of fks) {
      expect(fk.table in EXCEPTIONS, `${fk.table} has no foreign key`).toBe(false);
      expect(fk.columns[0], `${fk.table}.${fk.name} starts with cluster_id`).toBe('cluster_id');
      // into `cluster`, the referenced key is the cluster's id; else the referenced table's cluster_id
      expect(fk.refColumns?.[0], `${fk.table}.${fk.name}`).toBe(fk.refTable === 'cluster' ? 'id' : 'cluster_id');
    }
  });

  it('(b) partitions the per-poll tables by range of the poll id, with the next days and a default', async () => {
    const parted = await pgRows<{ table: string; strategy: string; key: string }>(
      db.client,
      `SELECT c.relname AS "table", p.partstrat AS strategy, a.attname AS key FROM pg_partitioned_table p
         JOIN pg_class c ON c.oid = p.partrelid JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = p.partattrs[0]
         WHERE c.relnamespace = 'public'::regnamespace AND p.partnatts = 1`,
    );
    const want = PARTITIONED_TABLES.map((t) => ({ table: t.table, strategy: 'r', key: t.key }));
    expect(parted.sort((x, y) => x.table.localeCompare(y.table))).toEqual(
      want.sort((x, y) => x.table.localeCompare(y.table)),
    );
    const children = await pgRows<{ parent: string; name: string; bound: string }>(
      db.client,
      `SELECT p.relname AS parent, c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound FROM pg_inherits i
         JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent`,
    );
    const day = today();
    for (const { table } of PARTITIONED_TABLES) {
      const mine = children.filter((c) => c.parent === table);
      expect(mine.find((c) => c.name === `${table}_default`)?.bound).toBe('DEFAULT');
      for (const d of [day, day + 1, day + 2]) {
        const lo = BigInt(d) << 32n;
        expect(mine.find((c) => c.name === `${table}_d${dayName(d)}`)?.bound, `${table} day ${d}`).toBe(
          `FOR VALUES FROM ('${lo}') TO ('${lo + (1n << 32n)}')`,
        );
      }
    }
    expect((await listDayPartitions(db.client)).filter((p) => p.day === day).length).toBe(PARTITIONED_TABLES.length);
  });

  it('(c) migrating again is a no-op, and so is making partitions again', async () => {
    const before = await tables(db.client);
    expect(await migratePostgres(db.client)).toEqual({ applied: 0, version: firstRun.version });
    expect(await tables(db.client)).toEqual(before);
    const [again] = await pgRows<{ n: number }>(db.client, 'SELECT flightrec_ensure_partitions(2) AS n');
    expect(again?.n).toBe(0);
    const [count] = await pgRows<{ n: string }>(
      db.client,
      'SELECT count(*)::text AS n FROM drizzle.__drizzle_migrations',
    );
    expect(Number(count?.n)).toBe(firstRun.version);
  });

  it('(e) flightrec_poll_id() increases and its high 32 bits are the UTC day', async () => {
    const before = today();
    const ids: bigint[] = [];
    for (let i = 0; i < 5; i++) {
      const [row] = await pgRows<{ id: string }>(db.client, 'SELECT flightrec_poll_id()::text AS id');
      ids.push(BigInt(row?.id ?? '0'));
    }
    const after = today();
    for (let i = 1; i < ids.length; i++) expect(ids[i]).toBeGreaterThan(ids[i - 1] ?? 0n);
    for (const id of ids) expect([before, after]).toContain(Number(id >> 32n));
    expect(ids[0]! & 0xffffffffn).toBeGreaterThan(0n);
  });

  it('(f) a child row takes the cluster from the transaction setting and lands in the day partition; without it, it fails', async () => {
    const c = db.client;
    const [cl] = await pgRows<{ id: string }>(c, "INSERT INTO cluster (name) VALUES ('f-cluster') RETURNING id::text");
    const clusterId = cl?.id ?? '';
    await pgRows(c, 'BEGIN');
    await pgRows(c, "SELECT set_config('flightrec.cluster_id', $1, true)", [clusterId]);
    const [poll] = await pgRows<{ id: string; part: string }>(
      c,
      `INSERT INTO poll (cluster_id, operation, target, round, attempt, scheduled_at, started_at, ended_at, ok, outcome, bytes, request)
         VALUES ($1, 'GetUpgradeStatus', '', 'r1', 1, 1, 1, 1, 1, 'ok', 0, '{}') RETURNING id::text, tableoid::regclass::text AS part`,
      [clusterId],
    );
    await pgRows(c, "INSERT INTO poll_raw (poll_id, encoding, body) VALUES ($1, 'gzip', '\\x00')", [poll?.id]);
    await pgRows(
      c,
      'INSERT INTO upgrade_sample (poll, active_version, version_after_finalization, auto_finalization, state) VALUES ($1, 1, 1, 0, 1)',
      [poll?.id],
    );
    await pgRows(c, 'COMMIT');
    const day = dayName(Number(BigInt(poll?.id ?? '0') >> 32n));
    expect(poll?.part).toBe(`poll_d${day}`);
    const [raw] = await pgRows<{ cluster: string; part: string }>(
      c,
      'SELECT cluster_id::text AS cluster, tableoid::regclass::text AS part FROM poll_raw WHERE poll_id = $1',
      [poll?.id],
    );
    expect(raw).toEqual({ cluster: clusterId, part: `poll_raw_d${day}` });
    const [sample] = await pgRows<{ part: string }>(
      c,
      'SELECT tableoid::regclass::text AS part FROM upgrade_sample WHERE poll = $1',
      [poll?.id],
    );
    expect(sample?.part).toBe(`upgrade_sample_d${day}`);
    // a new transaction without the setting: no silent cluster 0
    await expect(
      pgRows(
        c,
        'INSERT INTO link_sample (poll, name, uid, state, configurations, synced_properties, sr_status) VALUES ($1, 1, 1, 1, 1, 1, 1)',
        [poll?.id],
      ),
    ).rejects.toThrow(/flightrec\.cluster_id|invalid input syntax for type bigint/);
    // nor a child of a poll of another cluster
    await pgRows(c, 'BEGIN');
    await pgRows(c, "SELECT set_config('flightrec.cluster_id', $1, true)", [String(Number(clusterId) + 1000)]);
    await expect(
      pgRows(
        c,
        'INSERT INTO link_sample (poll, name, uid, state, configurations, synced_properties, sr_status) VALUES ($1, 1, 1, 1, 1, 1, 1)',
        [poll?.id],
      ),
    ).rejects.toThrow(/foreign key/);
    await pgRows(c, 'ROLLBACK');
  });

  it('offers the same read-only views as SQLite, with times as ISO-8601 text', async () => {
    const lite = readFileSync(join(pgMigrationsFolder(), '..', '0001_without_rowid.sql'), 'utf8');
    const liteViews = [...lite.matchAll(/CREATE VIEW `(\w+)`/g)].map((m) => m[1]).sort();
    const views = await pgRows<{ name: string }>(
      db.client,
      "SELECT viewname AS name FROM pg_views WHERE schemaname = 'public' ORDER BY viewname",
    );
    expect(liteViews.length).toBeGreaterThan(5);
    expect(views.map((v) => v.name)).toEqual(liteViews);
    const [row] = await pgRows<{ cluster: string; started: string }>(
      db.client,
      "SELECT cluster, started FROM poll_v WHERE cluster = 'f-cluster'",
    );
    expect(row).toEqual({ cluster: 'f-cluster', started: '1970-01-01T00:00:00.000Z' });
  });

  it('(g) drops the day partitions past the cut-off, keeping a protected day and a day with later polls', async () => {
    const c = db.client;
    const [cl] = await pgRows<{ id: string }>(c, "INSERT INTO cluster (name) VALUES ('g-cluster') RETURNING id::text");
    const clusterId = cl?.id ?? '';
    const base = today() - 10;
    const days = [base, base + 1, base + 2];
    for (const d of days) {
      const lo = BigInt(d) << 32n;
      for (const { table } of PARTITIONED_TABLES) {
        await pgRows(
          c,
          `CREATE TABLE ${table}_d${dayName(d)} PARTITION OF ${table} FOR VALUES FROM (${lo}) TO (${lo + (1n << 32n)})`,
        );
      }
    }
    const pollOf = (d: number): bigint => (BigInt(d) << 32n) + 7n;
    const cutoff = BigInt(base + 5) * 86_400_000_000_000n;
    await pgRows(c, 'BEGIN');
    await pgRows(c, "SELECT set_config('flightrec.cluster_id', $1, true)", [clusterId]);
    for (const d of days) {
      // the last day's poll started after the cut-off (a collector clock ahead of the database's)
      const started = d === base + 2 ? cutoff + 1n : BigInt(d) * 86_400_000_000_000n;
      await pgRows(
        c,
        `INSERT INTO poll (id, cluster_id, operation, target, round, attempt, scheduled_at, started_at, ended_at, ok, outcome, bytes, request)
           VALUES ($1, $2, 'GetUpgradeStatus', '', 'r', 1, $3, $3, $3, 1, 'ok', 0, '{}')`,
        [pollOf(d).toString(), clusterId, started.toString()],
      );
      await pgRows(c, "INSERT INTO poll_raw (poll_id, encoding, body) VALUES ($1, 'gzip', '\\x01')", [
        pollOf(d).toString(),
      ]);
    }
    await pgRows(c, 'COMMIT');
    const dropped = await dropExpiredDayPartitions(c, cutoff, [pollOf(base + 1)]);
    expect(dropped.sort()).toEqual(PARTITIONED_TABLES.map((t) => `${t.table}_d${dayName(base)}`).sort());
    const left = await pgRows<{ id: string }>(
      c,
      'SELECT poll_id::text AS id FROM poll_raw WHERE cluster_id = $1 ORDER BY poll_id',
      [clusterId],
    );
    expect(left.map((r) => r.id)).toEqual([pollOf(base + 1).toString(), pollOf(base + 2).toString()]);
    const names = (await listDayPartitions(c)).map((p) => p.name);
    expect(names).not.toContain(`poll_d${dayName(base)}`);
    expect(names).toContain(`poll_d${dayName(base + 1)}`);
    expect(names).toContain(`poll_d${dayName(base + 2)}`);
    expect(names).toContain(`poll_d${dayName(today())}`);
    // once nothing protects them, the kept day goes; the day with a later poll stays
    expect((await dropExpiredDayPartitions(c, cutoff, [])).filter((n) => n.startsWith('poll_d'))).toEqual([
      `poll_d${dayName(base + 1)}`,
    ]);
  });
});

describe('PostgreSQL migrations under contention and across versions', () => {
  it('(d) refuses, untouched, a database written by a newer flightrec', async () => {
    const db = await freshDatabase();
    try {
      // a "newer flightrec": our migrations plus one more
      const newer = mkdtempSync(join(tmpdir(), 'flightrec-pg-newer-'));
      onTestFinished(() => rmSync(newer, { recursive: true, force: true }));
      cpSync(pgMigrationsFolder(), newer, { recursive: true });
      const journalPath = join(newer, 'meta', '_journal.json');
      const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as {
        entries: { idx: number; when: number; tag: string }[];
      };
      const last = journal.entries.at(-1);
      journal.entries.push({
        ...last!,
        idx: journal.entries.length,
        when: (last?.when ?? 0) + 1000,
        tag: '9999_future',
      });
      writeFileSync(journalPath, JSON.stringify(journal));
      writeFileSync(join(newer, '9999_future.sql'), 'CREATE TABLE "future_thing" ("cluster_id" bigint PRIMARY KEY);');
      await migratePostgres(db.client, newer);
      const before = { tables: await tables(db.client), version: await pgSchemaVersion(db.client) };
      const err = await migratePostgres(db.client).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(DatabaseVersionError);
      expect(String((err as Error).message)).toMatch(
        new RegExp(
          `written by a newer flightrec \\(schema version ${journal.entries.length}, this flightrec supports up to ${journal.entries.length - 1}\\); upgrade flightrec to read it\\. The database was not modified\\.`,
        ),
      );
      expect({ tables: await tables(db.client), version: await pgSchemaVersion(db.client) }).toEqual(before);
      // the lock was released: a migration of the same database goes on (a no-op under the newer folder)
      expect(await migratePostgres(db.client, newer)).toEqual({ applied: 0, version: journal.entries.length });
    } finally {
      await db.close();
    }
  });

  it.skipIf(SERVER === undefined)(
    `(c) two concurrent migrations both succeed and apply once (${TWO_CONNECTIONS})`,
    async () => {
      const db = await freshDatabase();
      try {
        const [a, b] = [await db.connect(), await db.connect()];
        const results = await Promise.all([migratePostgres(a), migratePostgres(b)]);
        const total = results[0].version;
        expect(results.map((r) => r.applied).sort()).toEqual([0, total]);
        const [count] = await pgRows<{ n: string }>(a, 'SELECT count(*)::text AS n FROM drizzle.__drizzle_migrations');
        expect(Number(count?.n)).toBe(total);
        const [locks] = await pgRows<{ n: string }>(
          a,
          "SELECT count(*)::text AS n FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
        );
        expect(locks?.n).toBe('0');
      } finally {
        await db.close();
      }
    },
  );
});
