/**
 * Reads what growth.ts computes from: the stored bytes of the polls of the last day and week
 * before the newest poll. Each table's pages (with its indexes, from SQLite's dbstat) are shared
 * out by rows: a table with a poll column by the share of its rows that belong to the window's
 * polls, the other connection tables (entities, versions, batches) by the window's share of
 * connection samples, any other table by its share of polls. Read-only.
 */
import type { SqlSession } from '../sql-session.ts';
import type { StoreSession } from '../engines/store-engine.ts';
import { DAY_NS, type GrowthInputs, type WindowBytes } from './growth.ts';

const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** Reads the growth inputs for windows of `days` (default 1 and 7); `fileBytes` is the fallback when dbstat is missing. */
export function readGrowthInputs(
  { sqlite, engine }: StoreSession,
  fileBytes: number,
  days: readonly number[] = [1, 7],
): GrowthInputs {
  return sqlite
    .transaction((): GrowthInputs => {
      const [oldest, newest] = sqlite
        .prepare('SELECT min(started_at), max(started_at) FROM poll')
        .raw()
        .safeIntegers()
        .get() as [bigint | null, bigint | null];
      if (oldest === null || newest === null) return { windows: days.map((d) => ({ days: d, bytes: 0, polls: 0 })) };
      const tables = sqlite
        .prepare(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%'",
        )
        .pluck()
        .all() as string[];
      const sizes = pageBytes(engine);
      const count = (sql: string, ...params: unknown[]): number =>
        Number(
          sqlite
            .prepare(sql)
            .pluck()
            .get(...params) ?? 0,
        );
      const totalPolls = count('SELECT count(*) FROM poll');
      const totalConnSamples = count('SELECT coalesce(sum(rows), 0) FROM conn_frame');
      const windows: WindowBytes[] = days.map((d) => {
        const since = newest - BigInt(d) * DAY_NS;
        const inWindow = 'SELECT id FROM poll WHERE started_at > ?';
        const polls = count('SELECT count(*) FROM poll WHERE started_at > ?', since);
        const pollShare = totalPolls === 0 ? 0 : polls / totalPolls;
        const connShare =
          totalConnSamples === 0
            ? 0
            : count(`SELECT coalesce(sum(rows), 0) FROM conn_frame WHERE poll IN (${inWindow})`, since) /
              totalConnSamples;
        if (sizes === undefined) return { days: d, bytes: Math.round(fileBytes * pollShare), polls };
        let bytes = 0;
        for (const t of tables) {
          const size = sizes.get(t) ?? 0;
          if (size === 0) continue;
          const column = pollColumn(sqlite, t);
          let share: number;
          if (t === 'poll') share = pollShare;
          else if (column !== undefined) {
            const all = count(`SELECT count(*) FROM ${quote(t)}`);
            share =
              all === 0
                ? 0
                : count(`SELECT count(*) FROM ${quote(t)} WHERE ${quote(column)} IN (${inWindow})`, since) / all;
          } else share = t.startsWith('conn_') ? connShare : pollShare;
          bytes += size * share;
        }
        return { days: d, bytes: Math.round(bytes), polls };
      });
      return { oldest, newest, windows };
    })
    .deferred();
}

/** Each table's bytes with its indexes, as the engine tells them; undefined when it cannot. */
function pageBytes(engine: StoreSession['engine']): ReadonlyMap<string, number> | undefined {
  try {
    return engine.tableBytes();
  } catch {
    return undefined;
  }
}

/** The column of `table` that names its poll (`poll` or `poll_id`), if any. */
function pollColumn(sqlite: SqlSession, table: string): string | undefined {
  const cols = sqlite.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(table) as string[];
  return cols.find((c) => c === 'poll' || c === 'poll_id');
}
