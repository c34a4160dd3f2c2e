/** The time range held at each resolution, for `db stats`: raw polls, and the 5-minute and 1-hour rollups. */
import type { SqlSession } from '../sql-session.ts';
import { rollupRange, type RollupResolution } from '../rollups/rollup-tables.ts';

/** What one resolution holds: its oldest and newest instants (ns since the epoch), or nothing. */
export interface HeldRange {
  readonly resolution: 'raw' | RollupResolution;
  readonly from?: bigint;
  readonly to?: bigint;
}

/** Raw history (oldest..newest poll start), then each rollup resolution. */
export function heldRanges(sqlite: SqlSession): HeldRange[] {
  const [from, to] = sqlite.prepare('SELECT min(started_at), max(started_at) FROM poll').raw().safeIntegers().get() as [
    bigint | null,
    bigint | null,
  ];
  const raw: HeldRange = from === null || to === null ? { resolution: 'raw' } : { resolution: 'raw', from, to };
  const rollups = (['5m', '1h'] as const).map((resolution): HeldRange => ({
    resolution,
    ...rollupRange(sqlite, resolution),
  }));
  return [raw, ...rollups];
}
