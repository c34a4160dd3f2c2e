/**
 * The collector's side of the store: every record scrubbed of the cluster's secrets, then
 * written through `HistoryWriter.storePoll` in time order. A record the store cannot take as it
 * is comes back stored as a failed poll (said, counted); a store that refuses writes makes the
 * sink hold records in memory within a byte budget, drop the oldest past it and write each run
 * of dropped polls as a `not_stored` poll when writes resume. The database file is checked
 * before every write; when it is lost for good the sink stops writing and reports it once.
 */
import type { Redactor } from '../api/client/index.ts';
import { StoreLostError, StoreRefusedError, type HistoryWriter, type PollRecord } from '../db/poll-record.ts';
import { HeldPolls, MAX_HELD_POLLS } from './held-polls.ts';
import type { CollectorStats, Reporter } from './output.ts';
import { scrubRecord } from './scrub.ts';

/** What the sink needs. */
export interface RecordSinkDeps {
  readonly writer: HistoryWriter;
  readonly stats: CollectorStats;
  readonly reporter: Reporter;
  /** the redactor of each cluster's credentials, by cluster name */
  readonly redactors: ReadonlyMap<string, Redactor>;
  readonly maxHeldBytes: number;
  readonly keepRawAnswers: boolean;
  /** a new round id (for the `not_stored` polls) */
  readonly roundId: () => string;
  /** called once when the database file is lost for good */
  readonly onFatal: (err: StoreLostError) => void;
  /** sees every record once its secrets are removed (metrics, readiness) */
  readonly observe?: (record: PollRecord) => void;
}

/** Writes the collector's records; see the module comment. */
export class RecordSink {
  readonly #d: RecordSinkDeps;
  readonly #held: HeldPolls;
  /** cluster and operation whose secret removal was already said */
  readonly #redactionSaid = new Set<string>();
  /** why the store refuses writes, while it does */
  #refusal: string | undefined;
  #fatal: StoreLostError | undefined;

  constructor(deps: RecordSinkDeps) {
    this.#d = deps;
    this.#held = new HeldPolls(deps.maxHeldBytes, MAX_HELD_POLLS);
  }

  /** The error that stopped the writes (the database file lost for good), if any. */
  get fatal(): StoreLostError | undefined {
    return this.#fatal;
  }

  /** Records never written: held, or dropped and not yet recorded as lost. */
  get unwritten(): number {
    return this.#held.size + this.#held.lostPending;
  }

  /** Takes one record: scrubs it, holds it behind older ones, writes what the store accepts. */
  record(record: PollRecord): void {
    this.#d.stats.polls++;
    if (!record.outcome.ok) this.#d.stats.errors++;
    const redactor = this.#d.redactors.get(record.cluster);
    const clean = redactor === undefined ? record : scrubRecord(record, redactor, record.redactions ?? 0);
    if ((clean.redactions ?? 0) > 0) {
      this.#d.stats.redactions += clean.redactions ?? 0;
      const key = `${record.cluster}\u0000${record.operation}`;
      if (!this.#redactionSaid.has(key)) {
        this.#redactionSaid.add(key);
        this.#d.reporter.line(
          `warning: ${record.cluster} ${record.operation}: the answer held a configured secret (${clean.redactions} occurrence${clean.redactions === 1 ? '' : 's'}); ` +
            'it was removed before storing and the poll records that it was (later ones are counted, not printed)',
        );
      }
    }
    this.#d.observe?.(clean);
    // behind any held records, so that polls reach the store (and get their ids) in time order
    this.#held.push(clean);
    this.flush();
    if (this.#held.size > 0) this.#lighten(clean); // still held: it is the newest
    const dropped = this.#held.enforce();
    if (dropped > 0) this.#d.stats.dropped += dropped;
    this.#updateHeld();
    this.#d.reporter.status(this.#d.stats);
  }

  /** A held successful answer keeps no raw bytes the store will not keep anyway. */
  #lighten(record: PollRecord): void {
    const o = record.outcome;
    if (!o.ok || o.raw === undefined || this.#d.keepRawAnswers) return;
    const { raw: _raw, ...rest } = o;
    this.#held.replaceNewest({ ...record, outcome: rest });
  }

  #updateHeld(): void {
    this.#d.stats.unwritten = this.#held.size;
    this.#d.stats.heldBytes = this.#held.bytes;
  }

  /** Checks the database file; false once it is lost for good (said once, onFatal called). */
  checkFile(): boolean {
    if (this.#fatal !== undefined) return false;
    try {
      const check = this.#d.writer.checkFile?.();
      if (check?.reopened === true) {
        this.#d.stats.reopened++;
        this.#d.reporter.line(`error: ${check.message ?? 'the database file was replaced; a new one was opened'}`);
      }
      return true;
    } catch (err) {
      if (!(err instanceof StoreLostError)) throw err;
      this.#fatal = err;
      this.#d.reporter.line(`error: ${err.message}; recording stopped`);
      this.#d.onFatal(err);
      return false;
    }
  }

  /** Writes lost-poll records, then the held records, oldest first, until the store refuses one. */
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
      this.#d.stats.lostRecorded++;
      this.#d.reporter.line(
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
        this.#d.stats.unstorable++;
        this.#d.reporter.line(
          `error: ${record.cluster} ${record.operation}: this answer cannot be stored as received (${stored.substituted}); ` +
            `it was stored as failed poll ${stored.id} with its raw bytes`,
        );
      }
      if (this.#refusal !== undefined) {
        this.#refusal = undefined;
        this.#d.reporter.line('the database accepts writes again');
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
        this.#d.reporter.line(
          `error: cannot write a poll (${record.cluster} ${record.operation}) to the database: ${cause}; ` +
            `polls are kept in memory (up to ${Math.round(this.#d.maxHeldBytes / 1048576)} MiB, then the oldest are dropped and recorded as lost) ` +
            'and written when the database accepts writes again',
        );
      }
      return false;
    }
  }
}
