/**
 * Where the rollups (downsampled history at 5-minute and 1-hour resolution) are stored, as far as
 * retention and `db stats` need to know: the tables of each resolution and the column holding a
 * row's bucket start (ns since the epoch). The only place these names live outside the rollups'
 * own code: complete ROLLUP_TABLES with the rollup schema. Tables missing from a database are skipped.
 */
import type { SqlSession } from '../sql-session.ts';

/** The rollup resolutions. */
export type RollupResolution = '5m' | '1h';

/** One rollup table and the column of its rows' bucket start. */
export interface RollupTable {
  readonly resolution: RollupResolution;
  readonly table: string;
  /** the bucket start column, ns since the epoch */
  readonly time: string;
  /** in a table shared by both resolutions: the `resolution` column's value (bucket width, s) */
  readonly resolutionSeconds?: number;
}

/** Every table of the rollups' schema (progress, buckets, groups, states, kept events). */
export const ROLLUP_TABLE_NAMES: readonly string[] = [
  'rollup_progress',
  'rollup_bucket',
  'rollup_group',
  'rollup_conn',
  'rollup_shadow',
  'rollup_iceberg',
  'rollup_state',
  'rollup_event',
];

/** The bucketed rollup tables of src/db/schema/schema.ts (each holds both resolutions, told apart by `resolution`). */
export const ROLLUP_TABLES: readonly RollupTable[] = (
  ['rollup_conn', 'rollup_shadow', 'rollup_iceberg', 'rollup_bucket'] as const
).flatMap((table) => [
  { resolution: '5m', table, time: 'start', resolutionSeconds: 300 },
  { resolution: '1h', table, time: 'start', resolutionSeconds: 3600 },
]);

/** The SQL condition that keeps a table's rows to its resolution (TRUE when the table holds one). */
function scope(t: RollupTable): string {
  const r = t.resolutionSeconds;
  // cluster_id first: the tables' primary keys begin (cluster_id, resolution, start), so the scan is a range
  return r === undefined
    ? '1'
    : Number.isInteger(r)
      ? `cluster_id IN (SELECT id FROM cluster) AND resolution = ${r}`
      : '0';
}

const IDENT = /^[a-z_][a-z0-9_]*$/;

/** The tables of `tables` present in the database (names checked: they go into SQL text). */
export function presentRollupTables(sqlite: SqlSession, tables: readonly RollupTable[] = ROLLUP_TABLES): RollupTable[] {
  const names = new Set(
    sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[],
  );
  return tables.filter((t) => IDENT.test(t.table) && IDENT.test(t.time) && names.has(t.table));
}

/** The oldest and newest bucket start held at one resolution; undefined when it holds nothing (or has no table). */
export function rollupRange(
  sqlite: SqlSession,
  resolution: RollupResolution,
  tables: readonly RollupTable[] = ROLLUP_TABLES,
): { from: bigint; to: bigint } | undefined {
  let from: bigint | undefined;
  let to: bigint | undefined;
  for (const t of presentRollupTables(sqlite, tables).filter((x) => x.resolution === resolution)) {
    const [lo, hi] = sqlite
      .prepare(`SELECT min(${t.time}), max(${t.time}) FROM ${t.table} WHERE ${scope(t)}`)
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
  sqlite: SqlSession,
  cutoff: bigint,
  maxRows: number,
  tables: readonly RollupTable[] = ROLLUP_TABLES,
): number {
  let left = maxRows;
  for (const t of presentRollupTables(sqlite, tables)) {
    if (left <= 0) break;
    // bounded without DELETE ... LIMIT (not compiled in) or a rowid (the table may have none):
    // the bucket start `left` rows in is the batch's edge; only rows older than the cut-off are read
    const edge = sqlite
      .prepare(
        `SELECT ${t.time} FROM ${t.table} WHERE ${scope(t)} AND ${t.time} < ? ORDER BY ${t.time} LIMIT 1 OFFSET ?`,
      )
      .pluck()
      .safeIntegers()
      .get(cutoff, left) as bigint | undefined;
    const remove = (op: '<' | '<='): number =>
      sqlite.prepare(`DELETE FROM ${t.table} WHERE ${scope(t)} AND ${t.time} ${op} ?`).run(edge ?? cutoff).changes;
    let removed = remove('<');
    // the edge is the oldest bucket (more rows in it than the batch): that whole bucket, to make progress
    if (removed === 0 && edge !== undefined) removed = remove('<=');
    left -= removed;
  }
  return maxRows - left;
}
