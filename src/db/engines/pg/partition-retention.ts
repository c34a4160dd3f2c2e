/**
 * Retention by day partition on PostgreSQL, through the synchronous handle (the bridge): before
 * the row-deleting steps, a day whose every poll the row pruner would delete goes whole, its
 * partitions dropped instead of its rows deleted. "Would delete" is the pruner's rule exactly
 * (src/db/maintain/retention.ts `step`): a poll older than the cut-off and than the newest poll of its
 * operation in its cluster; a connection poll only with its whole batch, sealed and ended before
 * that cut-off. The connection batches the dropped days touch go in the same transaction, as the
 * pruner removes them (their polls of kept days too, their chunks by cascade); identities,
 * superseded versions and documents are left to the pruner's cleanup steps.
 *
 * It runs in one write transaction (the advisory write lock, as every writer), with a lock
 * time-out: DROP and DETACH take the parent tables' ACCESS EXCLUSIVE lock, so a long reader makes
 * the drop fail (rolled back, nothing lost) and rows go the usual way instead.
 */
import type { SqlSession } from '../../sql-session.ts';
import type { DroppedDay, PartitionDrop } from '../store-engine.ts';
import { isPerPollTable, PER_POLL_TABLES, sampleCountSql } from '../../schema/per-poll-tables.ts';
import { DAYS_AHEAD } from './migrate.ts';
import { PARTITIONED_TABLES, type DayPartition } from './partitions.ts';

export type { DroppedDay, PartitionDrop };

const NS_PER_DAY = 86_400_000_000_000n;
/** How long the drop waits for a reader's lock on the partitioned tables before it gives up. */
const LOCK_TIMEOUT = '5s';
const DAY_SUFFIX = /_d(\d{4})(\d{2})(\d{2})$/;

const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** The day partitions of the per-poll tables (the synchronous twin of `listDayPartitions`). */
export function dayPartitionsOf(sqlite: SqlSession): DayPartition[] {
  const tables = PARTITIONED_TABLES.map((t) => t.table);
  const rows = sqlite
    .prepare(
      `SELECT p.relname AS parent, c.relname AS name FROM pg_inherits i
         JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
         WHERE p.relnamespace = current_schema()::regnamespace AND p.relname IN (${tables.map(() => '?').join(', ')})`,
    )
    .all(...tables) as { parent: string; name: string }[];
  const out: DayPartition[] = [];
  for (const { parent, name } of rows) {
    const m = DAY_SUFFIX.exec(name);
    if (m === null || name !== `${parent}_d${m[1]}${m[2]}${m[3]}`) continue;
    out.push({ table: parent, name, day: Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) / 86_400_000 });
  }
  return out.sort((a, b) => a.day - b.day || a.name.localeCompare(b.name));
}

/**
 * The first poll of a day partition the row pruner would keep (undefined when it would delete
 * them all): the pruner's rule, evaluated per poll against its cluster's newest polls.
 */
function keptPoll(sqlite: SqlSession, pollPart: string, cutoff: bigint): unknown {
  return sqlite
    .prepare(
      `SELECT p.id FROM ${quote(pollPart)} p WHERE p.started_at >= ?
         OR p.started_at >= (SELECT max(q.started_at) FROM poll q WHERE q.cluster_id = p.cluster_id AND q.operation = p.operation)
         OR EXISTS (SELECT 1 FROM conn_frame f LEFT JOIN conn_batch b ON b.id = f.batch AND b.cluster_id = f.cluster_id
              LEFT JOIN poll l ON l.id = b.last_poll AND l.cluster_id = b.cluster_id
              WHERE f.poll = p.id AND f.cluster_id = p.cluster_id AND (b.sealed IS NULL OR b.sealed <> 1 OR l.started_at IS NULL
                OR l.started_at >= ? OR l.started_at >= (SELECT max(n.started_at) FROM poll n
                  WHERE n.cluster_id = p.cluster_id AND n.operation = 'ListKafkaConnections')))
         LIMIT 1`,
    )
    .pluck()
    .get(cutoff, cutoff);
}

function count(sqlite: SqlSession, sql: string): number {
  return Number(sqlite.prepare(sql).pluck().get() ?? 0);
}

/** What a day's partitions hold, measured before they go. */
function measure(sqlite: SqlSession, parts: readonly DayPartition[]): Omit<DroppedDay, 'day' | 'partitions'> {
  let polls = 0;
  let samples = 0;
  let bytes = 0;
  let clusters: string[] = [];
  for (const p of parts) {
    bytes += Number(sqlite.prepare('SELECT pg_total_relation_size(to_regclass(?))').pluck().get(quote(p.name)) ?? 0);
    if (p.table === 'poll') {
      polls = count(sqlite, `SELECT count(*) FROM ${quote(p.name)}`);
      clusters = sqlite
        .prepare(
          `SELECT name FROM cluster WHERE id IN (SELECT DISTINCT cluster_id FROM ${quote(p.name)}) ORDER BY name`,
        )
        .pluck()
        .all() as string[];
    } else if (isPerPollTable(p.table) && PER_POLL_TABLES[p.table].samples !== 'none')
      samples += count(sqlite, sampleCountSql(p.table, '', quote(p.name)));
  }
  return { polls, samples, bytes, clusters };
}

/**
 * Drops, in one write transaction, the day partitions of every day that ended at or before
 * `cutoff` (ns since the epoch; a day by its poll ids) and whose polls the row pruner would all
 * delete, with the connection batches those days touch (their other polls too, as the pruner
 * removes a batch whole). Days that cannot go stay for the row pruner. Call it outside a transaction.
 */
export function dropExpiredDays(sqlite: SqlSession, cutoff: bigint): PartitionDrop {
  return sqlite
    .transaction((): PartitionDrop => {
      sqlite.exec(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
      const byDay = new Map<number, DayPartition[]>();
      for (const p of dayPartitionsOf(sqlite)) byDay.set(p.day, [...(byDay.get(p.day) ?? []), p]);
      const going: { day: number; parts: DayPartition[] }[] = [];
      for (const [day, parts] of byDay) {
        if (BigInt(day + 1) * NS_PER_DAY > cutoff) continue;
        // every table's partition of the day must be there (made together), the poll's above all
        if (parts.length !== PARTITIONED_TABLES.length) continue;
        const pollPart = parts.find((p) => p.table === 'poll');
        if (pollPart === undefined || keptPoll(sqlite, pollPart.name, cutoff) !== undefined) continue;
        going.push({ day, parts });
      }
      if (going.length === 0) return { days: [], batches: 0, batchPolls: 0 };
      // the batches these days' frames belong to: they go whole, as the pruner removes them
      const batches = new Set<number>();
      for (const { parts } of going) {
        const frames = parts.find((p) => p.table === 'conn_frame');
        if (frames === undefined) continue;
        for (const b of sqlite
          .prepare(`SELECT DISTINCT batch FROM ${quote(frames.name)}`)
          .pluck()
          .all() as number[])
          batches.add(Number(b));
      }
      const days: DroppedDay[] = [];
      for (const { day, parts } of going) {
        const measured = measure(sqlite, parts);
        const names: string[] = [];
        for (const p of parts.filter((x) => x.table !== 'poll')) {
          sqlite.exec(`DROP TABLE ${quote(p.name)}`);
          names.push(p.name);
        }
        for (const p of parts.filter((x) => x.table === 'poll')) {
          // the per-poll tables' foreign keys refer to poll: detached (checked: no row refers to it), then dropped
          sqlite.exec(`ALTER TABLE poll DETACH PARTITION ${quote(p.name)}`);
          sqlite.exec(`DROP TABLE ${quote(p.name)}`);
          names.push(p.name);
        }
        days.push({ day, partitions: names, ...measured });
      }
      const list = JSON.stringify([...batches]);
      const batchPolls = sqlite
        .prepare(
          'DELETE FROM poll WHERE id IN (SELECT poll FROM conn_frame WHERE batch IN (SELECT value FROM json_each(?)))',
        )
        .run(list).changes;
      sqlite.prepare('DELETE FROM conn_batch WHERE id IN (SELECT value FROM json_each(?))').run(list);
      return { days, batches: batches.size, batchPolls };
    })
    .immediate();
}

/** The names of a day's partitions, `<table>_dYYYYMMDD` (the poll table's last, as they are dropped). */
export function dayPartitionNames(day: number): string[] {
  const name = new Date(day * 86_400_000).toISOString().slice(0, 10).replace(/-/g, '');
  const names = PARTITIONED_TABLES.map(({ table }) => `${table}_d${name}`);
  return [...names.slice(1), names[0]!];
}

/** The partitions a `retention-partitions` maintenance-log entry dropped (its cut-off is the end of their day). */
export function droppedPartitionsOf(cutoff: bigint): string[] {
  return dayPartitionNames(Number(cutoff / NS_PER_DAY) - 1);
}

/**
 * Makes the day partitions of today and the next days that are missing (a collector running for
 * days would otherwise write into the DEFAULT partitions, which no drop removes): at each pass.
 */
export function ensureDayPartitions(sqlite: SqlSession): number {
  return Number(sqlite.prepare('SELECT flightrec_ensure_partitions(?)').pluck().get(DAYS_AHEAD));
}

/** The SQL making a past (or any) day's partitions of every per-poll table, named as flightrec_ensure_partitions names them. */
export function dayPartitionStatements(day: number): string[] {
  const lo = BigInt(day) << 32n;
  const hi = BigInt(day + 1) << 32n;
  const name = new Date(day * 86_400_000).toISOString().slice(0, 10).replace(/-/g, '');
  return PARTITIONED_TABLES.map(
    ({ table }) =>
      `CREATE TABLE IF NOT EXISTS ${quote(`${table}_d${name}`)} PARTITION OF ${quote(table)} FOR VALUES FROM (${lo}) TO (${hi})`,
  );
}
