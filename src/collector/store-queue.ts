/**
 * The write side of the record sink: records (already scrubbed) reach the store through
 * `HistoryWriter.storePoll` in time order. A record the store cannot take as it is comes back
 * stored as a failed poll (said, counted); a store that refuses writes makes the queue hold
 * records in memory within a byte budget, drop the oldest past it and write each run of dropped
 * polls as a `not_stored` poll when writes resume. The database file is checked before every
 * write; when it is lost for good the queue stops writing and reports it once. It runs on the
 * collector's thread, or in the store thread (src/cli/store-thread.ts) with the same logic.
 */
import { StoreLostError, StoreRefusedError, type HistoryWriter, type PollRecord } from '../db/poll-record.ts';
import { HeldPolls, MAX_HELD_POLLS } from './held-polls.ts';
import type { CollectorStats } from './output.ts';

/** The counters of the collector's stats the queue keeps. */
export type StoreCounters = Pick<
  CollectorStats,
  'unwritten' | 'heldBytes' | 'dropped' | 'lostRecorded' | 'unstorable' | 'reopened'
>;

/** The names of StoreCounters (what the store thread sends back after each request). */
export const STORE_COUNTERS = ['unwritten', 'heldBytes', 'dropped', 'lostRecorded', 'unstorable', 'reopened'] as const;

/** What the queue needs. */
export interface StoreQueueDeps {
  readonly writer: HistoryWriter;
  readonly counters: StoreCounters;
  /** prints one line (errors, recoveries) */
  readonly line: (text: string) => void;
  readonly maxHeldBytes: number;
  readonly keepRawAnswers: boolean;
  /** a new round id (for the `not_stored` polls) */
  readonly roundId: () => string;
  /** called once when the database file is lost for good */
  readonly onFatal: (err: StoreLostError) => void;
}

/** What the record sink writes through: this queue, or the store thread's proxy of one. */
export interface RecordQueue {
  /** the error that stopped the writes, if any */
  readonly fatal: StoreLostError | undefined;
  /** records never written: held, or dropped and not yet recorded as lost */
  readonly unwritten: number;
  /** takes one record behind the held ones; a promise when the write happens elsewhere */
  push(record: PollRecord): void | Promise<void>;
  /** writes what is held, oldest first, until the store refuses one */
  flush(): void | Promise<void>;
  /** checks the database file; false once it is lost for good */
  checkFile(): boolean;
  /** ends what the queue runs on (the store thread); the writer is closed by its owner */
  close?(): Promise<void>;
  /** settles once the records handed over and not written yet are back within their budget; undefined when they are */
  behind?(): Promise<void> | undefined;
}

/** Writes records in time order, holding them while the store refuses writes; see the module comment. */
export class StoreQueue implements RecordQueue {
  readonly #d: StoreQueueDeps;
  readonly #held: HeldPolls;
  /** why the store refuses writes, while it does */
  #refusal: string | undefined;
  #fatal: StoreLostError | undefined;

  constructor(deps: StoreQueueDeps) {
    this.#d = deps;
    this.#held = new HeldPolls(deps.maxHeldBytes, MAX_HELD_POLLS);
  }

  get fatal(): StoreLostError | undefined {
    return this.#fatal;
  }

  get unwritten(): number {
    return this.#held.size + this.#held.lostPending;
  }

  push(record: PollRecord): void {
    // behind any held records, so that polls reach the store (and get their ids) in time order
    this.#held.push(record);
    this.flush();
    if (this.#held.size > 0) this.#lighten(record); // still held: it is the newest
    const dropped = this.#held.enforce();
    if (dropped > 0) this.#d.counters.dropped += dropped;
    this.#updateHeld();
  }

  /** A held successful answer keeps no raw bytes the store will not keep anyway. */
  #lighten(record: PollRecord): void {
    const o = record.outcome;
    if (!o.ok || o.raw === undefined || this.#d.keepRawAnswers) return;
    const { raw: _raw, ...rest } = o;
    this.#held.replaceNewest({ ...record, outcome: rest });
  }

  #updateHeld(): void {
    this.#d.counters.unwritten = this.#held.size;
    this.#d.counters.heldBytes = this.#held.bytes;
  }

  checkFile(): boolean {
    if (this.#fatal !== undefined) return false;
    try {
      const check = this.#d.writer.checkFile?.();
      if (check?.reopened === true) {
        this.#d.counters.reopened++;
        this.#d.line(`error: ${check.message ?? 'the database file was replaced; a new one was opened'}`);
      }
      return true;
    } catch (err) {
      if (!(err instanceof StoreLostError)) throw err;
      this.#fatal = err;
      this.#d.line(`error: ${err.message}; recording stopped`);
      this.#d.onFatal(err);
      return false;
    }
  }

  flush(): void {
    if (!this.checkFile()) return;
    while (this.#held.size > 0 || this.#held.lostPending > 0) {
      if (this.#held.lostPending > 0) {
        if (!this.#writeLost()) break;
        continue;
      }
      const head = this.#held.head()!;
      if (!this.#store(head)) break;
      this.#held.shift();
    }
    this.#updateHeld();
  }

  #writeLost(): boolean {
    for (const { key, record } of this.#held.lostRecords(this.#refusal ?? 'unknown cause', this.#d.roundId)) {
      if (!this.#store(record)) return false;
      this.#held.recorded(key);
      this.#d.counters.lostRecorded++;
      this.#d.line(
        `error: ${record.cluster} ${record.operation}${record.target === '' ? '' : ` ${record.target}`}: ${record.outcome.ok ? '' : record.outcome.message}`,
      );
    }
    return true;
  }

  /** Stores one record; false when the store refuses it (it stays held). */
  #store(record: PollRecord): boolean {
    try {
      const stored = this.#d.writer.storePoll(record);
      if (stored.substituted !== undefined) {
        this.#d.counters.unstorable++;
        this.#d.line(
          `error: ${record.cluster} ${record.operation}: this answer cannot be stored as received (${stored.substituted}); ` +
            `it was stored as failed poll ${stored.id} with its raw bytes`,
        );
      }
      if (this.#refusal !== undefined) {
        this.#refusal = undefined;
        this.#d.line('the database accepts writes again');
      }
      return true;
    } catch (err) {
      const cause =
        err instanceof StoreRefusedError
          ? err.message
          : err instanceof Error
            ? `${err.name}: ${err.message}`
            : String(err);
      if (this.#refusal === undefined) {
        this.#refusal = cause;
        this.#d.line(
          `error: cannot write a poll (${record.cluster} ${record.operation}) to the database: ${cause}; ` +
            `polls are kept in memory (up to ${Math.round(this.#d.maxHeldBytes / 1048576)} MiB, then the oldest are dropped and recorded as lost) ` +
            'and written when the database accepts writes again',
        );
      }
      return false;
    }
  }
}
