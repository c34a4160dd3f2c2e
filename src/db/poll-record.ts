/**
 * The boundary between the collector and the store: one record per call attempt to the
 * cluster, success or failure, and the narrow writer interface the collector sees.
 */
import type { OperationName, ResponseOf, RequestOf } from '../api/schema/operations.ts';

/** What the collector knows about a failed call (mirrors the client's CallError, without secrets). */
export interface PollFailure {
  readonly ok: false;
  /** Connect code (`unavailable`, `deadline_exceeded`, ...) */
  readonly code: string;
  /** connect | transport | protocol | invalid_answer */
  readonly kind: string;
  readonly httpStatus?: number;
  readonly message: string;
  /** the Connect error details, as sent */
  readonly details?: readonly unknown[];
  /** JSON path of a validation failure */
  readonly path?: string;
  /** the raw body, when one was received (kept compressed) */
  readonly raw?: Uint8Array;
  readonly bytes: number;
}

/** A decoded successful answer. */
export interface PollSuccess<N extends OperationName = OperationName> {
  readonly ok: true;
  readonly answer: ResponseOf<N>;
  /** the raw body; stored (compressed) only when the store is asked to keep raw answers */
  readonly raw?: Uint8Array;
  readonly bytes: number;
}

/** Coverage of a ListKafkaConnections round (fan-out over brokers/shards). */
export interface PollCoverage {
  readonly rowsReturned: number;
  readonly totalSize: bigint;
  /** number of calls of the round so far, this one included */
  readonly fanoutCalls: number;
  /** the filter used for this call's fan-out slice, e.g. `node_id = 3`, or '' */
  readonly slice: string;
}

/** One call attempt: what was asked, when, and what came back. */
export interface PollRecord<N extends OperationName = OperationName> {
  readonly cluster: string;
  readonly operation: N;
  /** '' | link name | `link/topic`, for the shadow operations */
  readonly target: string;
  readonly request: RequestOf<N>;
  /** groups the calls of one scheduled firing (fan-out and retries share it) */
  readonly round: string;
  /** 1 for the first try, 2.. for retries */
  readonly attempt: number;
  /** nanoseconds since the epoch */
  readonly scheduledAt: bigint;
  readonly startedAt: bigint;
  readonly endedAt: bigint;
  readonly outcome: PollSuccess<N> | PollFailure;
  readonly coverage?: PollCoverage;
}

/** The narrow door through which the collector writes history (one transaction per record). */
export interface HistoryWriter {
  /** Writes one call attempt atomically and returns its poll id. */
  writePoll(record: PollRecord): bigint;
  /** Closes the database (after a final checkpoint). */
  close(): void;
}
