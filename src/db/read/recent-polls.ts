/**
 * The newest polls of one operation at or before an instant, newest first and bounded: what a
 * reader needs to tell how fresh an answer is (the newest successful poll, and the recent
 * scheduled times from which the schedule's interval is inferred) without reading the history.
 */
import type { SqlSession, SqlStatement } from '../sql-session.ts';
import type { PollRow } from '../../api/schema/resources.ts';
import { POLL_COLUMNS, POLL_FROM, toInfo, type PollTuple } from './poll-rows.ts';

/** At most this many polls per call. */
export const MAX_RECENT_POLLS = 1000;

/** A prepared query for the newest polls of (cluster, operation) at or before T. */
export class RecentPolls {
  readonly #newest: SqlStatement<[number, string, bigint, number], PollTuple>;

  constructor(sqlite: SqlSession) {
    this.#newest = sqlite
      .prepare<[number, string, bigint, number], PollTuple>(
        `SELECT ${POLL_COLUMNS} FROM ${POLL_FROM}
         WHERE p.cluster_id = ? AND p.operation = ? AND p.started_at <= ?
         ORDER BY p.started_at DESC, p.id DESC LIMIT ?`,
      )
      .raw()
      .safeIntegers();
  }

  /** Up to `limit` (at most 1000) polls, ok or not, newest first. */
  newest(clusterId: number, operation: string, until: bigint, limit: number): PollRow[] {
    const n = Math.max(0, Math.min(MAX_RECENT_POLLS, Math.floor(limit)));
    return this.#newest.all(clusterId, operation, until, n).map((r) => toInfo(r).row);
  }
}
