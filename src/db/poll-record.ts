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
  /** occurrences of a configured secret removed from what the server sent (0 or absent: none) */
  readonly redactions?: number;
  /**
   * The poll id to store the record under (`db copy` keeping the source's ids); the store numbers
   * the poll itself when absent. A store may ignore it: `writePoll` returns the id used.
   */
  readonly id?: bigint;
}

/**
 * The store refused a write for a reason of its own (disk full, read-only file or directory,
 * I/O error, busy or locked, closed): the record itself is fine and can be written later.
 */
export class StoreRefusedError extends Error {
  override readonly name = 'StoreRefusedError';
  /** the SQLite or system code of the refusal (`SQLITE_FULL`, `ENOSPC`), or '' */
  readonly code: string;

  constructor(message: string, code: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** What `storePoll` did with a record. */
export interface StoredPoll {
  readonly id: bigint;
  /**
   * Set when the record could not be stored as received (anything but the store refusing
   * writes): a failed poll with this reason, and its raw bytes, was stored in its place.
   */
  readonly substituted?: string;
}

/** What `checkFile` found. */
export interface FileCheck {
  /** true when the database file had been deleted or replaced and a new one was opened at its path */
  readonly reopened: boolean;
  /** what happened, in words for the user (when reopened) */
  readonly message?: string;
}

/** The database file was deleted or replaced and no database could be opened at its path again. */
export class StoreLostError extends Error {
  override readonly name = 'StoreLostError';
}

/** The state of one cluster's lease after a try to take or renew it. */
export interface LeaseState {
  /** true when this collector holds the lease (it may record the cluster) */
  readonly held: boolean;
  /** the holder: this owner when held, the other collector otherwise */
  readonly owner: string;
  /** the holder's last heartbeat, ms since the epoch */
  readonly heartbeatAt: number;
  /** when held: the previous owner whose lease had expired, if this try took it over */
  readonly tookOverFrom?: string;
}

/**
 * One active collector per cluster and store: a lease per cluster with an owner and a
 * heartbeat, taken and renewed atomically in the store. Engines implement it (SQLite here;
 * an implementation may be asynchronous).
 */
export interface ClusterLeases {
  /** Takes or renews the lease unless another owner renewed it less than `ttlMs` ago. */
  acquire(cluster: string, owner: string, nowMs: number, ttlMs: number): LeaseState | Promise<LeaseState>;
  /** Gives the lease up if `owner` holds it (a standby takes over at its next try). */
  release(cluster: string, owner: string): void | Promise<void>;
}

/** The narrow door through which the collector writes history (one transaction per record). */
export interface HistoryWriter {
  /** Writes one call attempt atomically and returns its poll id; throws on any failure. */
  writePoll(record: PollRecord): bigint;
  /**
   * Writes one call attempt; a record that cannot be stored as received becomes a failed
   * poll saying why (`substituted`), so one bad record never blocks another. Throws
   * StoreRefusedError only when the store refuses writes (the record should be kept and retried).
   */
  storePoll(record: PollRecord): StoredPoll;
  /**
   * Checks that the database path still names the open file; when it was deleted or replaced,
   * opens a new database there (reopened) or throws StoreLostError. Optional: in-memory fakes skip it.
   */
  checkFile?(): FileCheck;
  /** The per-cluster leases of this store; absent when the store cannot share (tests). */
  readonly leases?: ClusterLeases;
  /** Closes the database (after a final checkpoint). */
  close(): void;
}
