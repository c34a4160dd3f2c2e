/**
 * Recorded polls as the records they were written from: the reader's reconstruction (request,
 * answer or failure, raw body when kept, times) completed with the poll columns it does not show
 * (round, attempt, coverage, redactions, the exact HTTP status), so that writing a record through
 * another store's HistoryWriter makes the same poll. Read in id order, in bounded pages.
 */
import type { PollCoverage, PollFailure, PollRecord } from '../poll-record.ts';
import type { FlightrecDb } from '../engines/open.ts';
import { createHistoryReader } from './reader.ts';

/** A stored poll: its id in the store it was read from, and its record. */
export interface RecordedPoll {
  readonly id: bigint;
  readonly record: PollRecord;
}

/** Pages of recorded polls, in id order. */
export interface RecordedPolls {
  /**
   * Up to `limit` polls with `after < id <= upTo`, in id order, read in one read transaction; it
   * ends early, after at least one poll, once their answers add up to `maxBytes` (bounded memory).
   */
  page(after: bigint, upTo: bigint, limit: number, maxBytes?: number): RecordedPoll[];
}

type ColumnRow = [
  id: bigint,
  cluster: string,
  round: string,
  attempt: bigint,
  httpStatus: bigint | null,
  rowsReturned: bigint | null,
  fanoutCalls: bigint | null,
  slice: string | null,
  redactions: bigint | null,
  bytes: bigint,
];

/** Reads the polls of an open database as records. */
export function recordedPolls(db: FlightrecDb): RecordedPolls {
  const reader = createHistoryReader(db);
  const columns = db.sqlite
    .prepare<[bigint, bigint, number], ColumnRow>(
      `SELECT p.id, c.name, p.round, p.attempt, p.http_status, p.rows_returned, p.fanout_calls, p.slice, p.redactions,
         p.bytes
       FROM poll p JOIN cluster c ON c.id = p.cluster_id WHERE p.id > ? AND p.id <= ? ORDER BY p.id LIMIT ?`,
    )
    .raw()
    .safeIntegers();

  const recordOf = (c: ColumnRow): RecordedPoll => {
    const [id, cluster, round, attempt, httpStatus, rowsReturned, fanoutCalls, slice, redactions] = c;
    const r = reader.reconstructAnswer(id);
    const row = r.poll;
    const raw = r.raw === undefined ? {} : { raw: r.raw };
    let outcome: PollRecord['outcome'];
    if (r.failure !== undefined) {
      const f = r.failure;
      const failure: PollFailure = {
        ok: false,
        code: f.code,
        kind: f.kind,
        // the column as written (the reconstruction leaves a 0 out)
        ...(httpStatus === null ? {} : { httpStatus: Number(httpStatus) }),
        message: f.message,
        ...(f.details === undefined ? {} : { details: f.details }),
        ...(f.path === undefined ? {} : { path: f.path }),
        ...raw,
        bytes: f.bytes,
      };
      outcome = failure;
    } else {
      if (r.answer === undefined) throw new Error(`poll ${id} has neither an answer nor a failure`);
      outcome = { ok: true, answer: r.answer, ...raw, bytes: Number(row.bytes) };
    }
    const coverage: PollCoverage | undefined =
      rowsReturned === null
        ? undefined
        : {
            rowsReturned: Number(rowsReturned),
            totalSize: row.totalSize,
            fanoutCalls: Number(fanoutCalls ?? 0n),
            slice: slice ?? '',
          };
    const record: PollRecord = {
      cluster,
      operation: r.operation,
      target: row.target,
      request: r.request,
      round,
      attempt: Number(attempt),
      scheduledAt: row.scheduledTime,
      startedAt: row.startTime,
      endedAt: row.endTime,
      outcome,
      ...(coverage === undefined ? {} : { coverage }),
      ...(redactions === null ? {} : { redactions: Number(redactions) }),
    };
    return { id, record };
  };

  return {
    page: (after, upTo, limit, maxBytes = Infinity) =>
      db.sqlite
        .transaction(() => {
          const out: RecordedPoll[] = [];
          let size = 0;
          for (const c of columns.all(after, upTo, limit)) {
            if (out.length > 0 && size >= maxBytes) break;
            out.push(recordOf(c));
            size += Number(c[9]);
          }
          return out;
        })
        .deferred(),
  };
}
