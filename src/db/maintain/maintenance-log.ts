/**
 * The maintenance log: one row per pruning action (the collector's retention, `db prune` by
 * hand) saying when, for which cluster, up to which cut-off, and what went. `flightrec db log`
 * reads it.
 */
import type { SqlSession } from '../sql-session.ts';

/** The actions the log records. */
export type MaintenanceAction =
  'retention-raw' | 'retention-partitions' | 'retention-size' | 'retention-rollups' | 'prune';

/** One row of the maintenance log. */
export interface MaintenanceEntry {
  /** when the action ended, ns since the epoch */
  readonly at: bigint;
  /** undefined for an action over the whole store */
  readonly cluster?: string;
  readonly action: MaintenanceAction;
  /** what was older than this went (undefined when not one instant) */
  readonly cutoff?: bigint;
  readonly polls: number;
  readonly samples: number;
  readonly bytes: number;
  readonly durationMs: number;
}

/** Appends one entry (inside the caller's transaction when there is one). */
export function recordMaintenance(sqlite: SqlSession, e: MaintenanceEntry): void {
  sqlite
    .prepare(
      `INSERT INTO maintenance_log (at, cluster, action, cutoff, polls, samples, bytes, duration_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      e.at,
      e.cluster ?? null,
      e.action,
      e.cutoff ?? null,
      e.polls,
      e.samples,
      Math.round(e.bytes),
      Math.round(e.durationMs),
    );
}

interface LogRow {
  at: bigint;
  cluster: string | null;
  action: string;
  cutoff: bigint | null;
  polls: bigint;
  samples: bigint;
  bytes: bigint;
  duration_ms: bigint;
}

const ACTIONS: readonly string[] = [
  'retention-raw',
  'retention-partitions',
  'retention-size',
  'retention-rollups',
  'prune',
];

function isAction(text: string): text is MaintenanceAction {
  return ACTIONS.includes(text);
}

function actionOf(text: string): MaintenanceAction {
  return isAction(text) ? text : 'prune';
}

/** The newest `limit` entries, oldest first (none when the table is missing). */
export function readMaintenanceLog(sqlite: SqlSession, limit = 100): MaintenanceEntry[] {
  const present = sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'maintenance_log'").get();
  if (present === undefined) return [];
  const rows = sqlite
    .prepare(
      `SELECT at, cluster, action, cutoff, polls, samples, bytes, duration_ms FROM
         (SELECT * FROM maintenance_log ORDER BY at DESC, id DESC LIMIT ?) AS newest ORDER BY at, id`,
    )
    .safeIntegers()
    .all(limit) as LogRow[];
  return rows.map((r) => ({
    at: r.at,
    ...(r.cluster === null ? {} : { cluster: r.cluster }),
    action: actionOf(r.action),
    ...(r.cutoff === null ? {} : { cutoff: r.cutoff }),
    polls: Number(r.polls),
    samples: Number(r.samples),
    bytes: Number(r.bytes),
    durationMs: Number(r.duration_ms),
  }));
}
