/**
 * The day partitions of the per-poll tables on PostgreSQL (made by flightrec_ensure_partitions,
 * drizzle/pg/0002): listing them, and retention by dropping a whole day's partitions instead of
 * deleting its rows, when every poll of that day is past the cut-off and none must be kept.
 */
import { PER_POLL_TABLE_LIST } from '../../schema/per-poll-tables.ts';
import { pgRows, type PgClient } from './migrate.ts';

/** The partitioned tables and their poll-id column: the poll table first, then the per-poll tables (src/db/schema/per-poll-tables.ts). */
export const PARTITIONED_TABLES: readonly { readonly table: string; readonly key: string }[] = [
  { table: 'poll', key: 'id' },
  ...PER_POLL_TABLE_LIST.map(({ table, key }) => ({ table, key })),
];

/** One day partition of a per-poll table. */
export interface DayPartition {
  /** the partitioned table */
  readonly table: string;
  /** the partition, `<table>_dYYYYMMDD` */
  readonly name: string;
  /** the UTC day number (days since 1970-01-01): poll ids `day << 32` up to `(day + 1) << 32` */
  readonly day: number;
}

const NS_PER_DAY = 86_400_000_000_000n;
const DAY_SUFFIX = /_d(\d{4})(\d{2})(\d{2})$/;

/** The UTC day a poll id belongs to (its high 32 bits). */
export function pollIdDay(id: bigint | number): number {
  return typeof id === 'bigint' ? Number(id >> 32n) : Math.floor(id / 2 ** 32);
}

/** The conn_frame partition holding the frames of poll `pollId` (`conn_frame_dYYYYMMDD`). */
export function framePartitionOf(pollId: bigint): string {
  const day = pollIdDay(pollId);
  return `conn_frame_d${new Date(day * 86_400_000).toISOString().slice(0, 10).replace(/-/g, '')}`;
}

/** The day partitions of the per-poll tables in the current schema, oldest day first (DEFAULT partitions excluded). */
export async function listDayPartitions(client: PgClient): Promise<DayPartition[]> {
  const rows = await pgRows<{ parent: string; name: string }>(
    client,
    `SELECT p.relname AS parent, c.relname AS name FROM pg_inherits i
       JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
       WHERE p.relnamespace = current_schema()::regnamespace AND p.relname = ANY($1::text[])`,
    [PARTITIONED_TABLES.map((t) => t.table)],
  );
  const out: DayPartition[] = [];
  for (const { parent, name } of rows) {
    const m = DAY_SUFFIX.exec(name);
    if (m === null || name !== `${parent}_d${m[1]}${m[2]}${m[3]}`) continue;
    out.push({ table: parent, name, day: Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) / 86_400_000 });
  }
  return out.sort((a, b) => a.day - b.day || a.name.localeCompare(b.name));
}

const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** Whether a day's partitions may go: its polls all started before the cut-off and no DEFAULT partition holds its rows. */
async function dayIsDroppable(client: PgClient, day: number, parts: readonly DayPartition[], cutoffNs: bigint) {
  const lo = BigInt(day) << 32n;
  const hi = BigInt(day + 1) << 32n;
  const pollPart = parts.find((p) => p.table === 'poll');
  if (pollPart !== undefined) {
    // poll ids take the database's clock, started_at the collector's: check the rows, not only the day
    const [row] = await pgRows<{ late: boolean }>(
      client,
      `SELECT EXISTS (SELECT 1 FROM ${quote(pollPart.name)} WHERE started_at >= $1) AS late`,
      [cutoffNs.toString()],
    );
    if (row?.late !== false) return false;
  }
  // a row of that day kept in a DEFAULT partition (no day partition was ready) would block the poll's detach
  for (const t of PARTITIONED_TABLES) {
    const [row] = await pgRows<{ busy: boolean }>(
      client,
      `SELECT EXISTS (SELECT 1 FROM ${quote(`${t.table}_default`)} WHERE ${quote(t.key)} >= $1 AND ${quote(t.key)} < $2) AS busy`,
      [lo.toString(), hi.toString()],
    );
    if (row?.busy !== false) return false;
  }
  return true;
}

/**
 * Drops the day partitions whose whole day ends at or before `cutoffNs` (ns since the epoch),
 * whose polls all started before it, and which hold none of `protectedPollIds` (the newest poll
 * of every operation of every cluster, and every poll with a frame in an open connection batch).
 * Each day goes in its own transaction, the per-poll tables' partitions first and the poll's last:
 * call it outside a transaction. Returns the partitions dropped.
 */
export async function dropExpiredDayPartitions(
  client: PgClient,
  cutoffNs: bigint,
  protectedPollIds: readonly bigint[] | readonly number[],
): Promise<string[]> {
  const keep = new Set<number>();
  for (const id of protectedPollIds) keep.add(pollIdDay(id));
  const byDay = new Map<number, DayPartition[]>();
  for (const p of await listDayPartitions(client)) byDay.set(p.day, [...(byDay.get(p.day) ?? []), p]);
  const dropped: string[] = [];
  for (const [day, parts] of byDay) {
    if (BigInt(day + 1) * NS_PER_DAY > cutoffNs || keep.has(day)) continue;
    await pgRows(client, 'BEGIN');
    try {
      if (!(await dayIsDroppable(client, day, parts, cutoffNs))) {
        await pgRows(client, 'ROLLBACK');
        continue;
      }
      const names: string[] = [];
      for (const p of parts.filter((x) => x.table !== 'poll')) {
        await pgRows(client, `DROP TABLE ${quote(p.name)}`);
        names.push(p.name);
      }
      for (const p of parts.filter((x) => x.table === 'poll')) {
        // referenced by the per-poll tables' foreign keys: detached (which checks no row refers to it), then dropped
        await pgRows(client, `ALTER TABLE poll DETACH PARTITION ${quote(p.name)}`);
        await pgRows(client, `DROP TABLE ${quote(p.name)}`);
        names.push(p.name);
      }
      await pgRows(client, 'COMMIT');
      dropped.push(...names);
    } catch (err) {
      await pgRows(client, 'ROLLBACK').catch(() => undefined);
      throw err;
    }
  }
  return dropped;
}
