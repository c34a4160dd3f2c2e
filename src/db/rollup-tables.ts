/**
 * Where the rollups (downsampled history at 5-minute and 1-hour resolution) are stored, as far as
 * retention and `db stats` need to know: the tables of each resolution and the column holding a
 * row's bucket start (ns since the epoch). The only place these names live outside the rollups'
 * own code: complete ROLLUP_TABLES with the rollup schema. Tables missing from a database are skipped.
 */
import type Database from 'better-sqlite3';

/** The rollup resolutions. */
export type RollupResolution = '5m' | '1h';

/** One rollup table and the column of its rows' bucket start. */
export interface RollupTable {
  readonly resolution: RollupResolution;
  readonly table: string;
  /** the bucket start column, ns since the epoch */
  readonly time: string;
}

/** The rollup tables (filled in with the rollup schema; none yet on this branch). */
export const ROLLUP_TABLES: readonly RollupTable[] = [];

const IDENT = /^[a-z_][a-z0-9_]*$/;

/** The tables of `tables` present in the database (names checked: they go into SQL text). */
export function presentRollupTables(
  sqlite: Database.Database,
  tables: readonly RollupTable[] = ROLLUP_TABLES,
): RollupTable[] {
  const names = new Set(
    sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[],
  );
  return tables.filter((t) => IDENT.test(t.table) && IDENT.test(t.time) && names.has(t.table));
}

/** The oldest and newest bucket start held at one resolution; undefined when it holds nothing (or has no table). */
export function rollupRange(
  sqlite: Database.Database,
  resolution: RollupResolution,
  tables: readonly RollupTable[] = ROLLUP_TABLES,
): { from: bigint; to: bigint } | undefined {
  let from: bigint | undefined;
  let to: bigint | undefined;
  for (const t of presentRollupTables(sqlite, tables).filter((x) => x.resolution === resolution)) {
    const [lo, hi] = sqlite
      .prepare(`SELECT min(${t.time}), max(${t.time}) FROM ${t.table}`)
      .raw()
      .safeIntegers()
      .get() as [bigint | null, bigint | null];
    if (lo !== null && (from === undefined || lo < from)) from = lo;
    if (hi !== null && (to === undefined || hi > to)) to = hi;
  }
  return from === undefined || to === undefined ? undefined : { from, to };
}

/**
 * Deletes up to `maxRows` rollup rows whose bucket starts before `cutoff`, oldest tables first;
 * returns the rows deleted (0: nothing older is left; a batch may pass `maxRows` by one bucket).
 */
export function pruneRollupRows(
  sqlite: Database.Database,
  cutoff: bigint,
  maxRows: number,
  tables: readonly RollupTable[] = ROLLUP_TABLES,
): number {
  let left = maxRows;
  for (const t of presentRollupTables(sqlite, tables)) {
    if (left <= 0) break;
    // bounded without DELETE ... LIMIT (not compiled in) or a rowid (the table may have none):
    // the bucket start `left` rows in is the batch's edge (a whole bucket at least, to make progress)
    const edge = sqlite
      .prepare(`SELECT ${t.time} FROM ${t.table} WHERE ${t.time} < ? ORDER BY ${t.time} LIMIT 1 OFFSET ?`)
      .pluck()
      .safeIntegers()
      .get(cutoff, left) as bigint | undefined;
    const first = sqlite.prepare(`SELECT min(${t.time}) FROM ${t.table}`).pluck().safeIntegers().get() as bigint | null;
    const sql = edge === undefined ? `${t.time} < ?` : edge === first ? `${t.time} <= ?` : `${t.time} < ?`;
    left -= sqlite.prepare(`DELETE FROM ${t.table} WHERE ${sql}`).run(edge ?? cutoff).changes;
  }
  return maxRows - left;
}
