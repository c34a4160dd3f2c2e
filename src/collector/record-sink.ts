/**
 * The collector's side of the store: every record scrubbed of the cluster's secrets, counted and
 * shown to the observers, then handed to the write queue (store-queue.ts), which writes it in
 * time order or holds it while the store refuses writes. The queue runs on this thread, or in
 * the store thread (src/cli/store-thread.ts), where the round waits for its records all the same.
 */
import type { Redactor } from '../api/client/index.ts';
import type { HistoryWriter, PollRecord, StoreLostError } from '../db/poll-record.ts';
import type { CollectorStats, Reporter } from './output.ts';
import { scrubRecord } from './scrub.ts';
import { StoreQueue, type RecordQueue } from './store-queue.ts';

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
  /** writes elsewhere (the store thread) instead of through `writer` on this thread */
  readonly queue?: RecordQueue;
}

/** Writes the collector's records; see the module comment. */
export class RecordSink {
  readonly #d: RecordSinkDeps;
  readonly #queue: RecordQueue;
  /** cluster and operation whose secret removal was already said */
  readonly #redactionSaid = new Set<string>();
  /** the last write of each round still in progress in the store thread */
  readonly #writing = new Map<string, Promise<void>>();

  constructor(deps: RecordSinkDeps) {
    this.#d = deps;
    this.#queue =
      deps.queue ??
      new StoreQueue({
        writer: deps.writer,
        counters: deps.stats,
        line: (text) => deps.reporter.line(text),
        maxHeldBytes: deps.maxHeldBytes,
        keepRawAnswers: deps.keepRawAnswers,
        roundId: deps.roundId,
        onFatal: deps.onFatal,
      });
  }

  /** The error that stopped the writes (the database file lost for good), if any. */
  get fatal(): StoreLostError | undefined {
    return this.#queue.fatal;
  }

  /** Records never written: held, or dropped and not yet recorded as lost. */
  get unwritten(): number {
    return this.#queue.unwritten;
  }

  /**
   * Takes one record: scrubs it, holds it behind older ones, writes what the store accepts. A
   * promise when the store thread is behind: the caller's next call waits for it.
   */
  record(record: PollRecord): Promise<void> | undefined {
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
    const written = this.#queue.push(clean);
    if (written !== undefined) {
      const round = clean.round;
      const settled = written.finally(() => {
        if (this.#writing.get(round) === settled) this.#writing.delete(round);
        this.#d.reporter.status(this.#d.stats);
      });
      this.#writing.set(round, settled);
    }
    this.#d.reporter.status(this.#d.stats);
    return this.#queue.behind?.();
  }

  /** Settles when the records of `round` handed over so far are written (at once on this thread). */
  written(round: string): Promise<void> | undefined {
    return this.#writing.get(round);
  }

  /** Checks the database file; false once it is lost for good (said once, onFatal called). */
  checkFile(): boolean {
    return this.#queue.checkFile();
  }

  /** Writes what is held, oldest first, until the store refuses one. */
  flush(): void | Promise<void> {
    return this.#queue.flush();
  }

  /** Ends the store thread, when the writes go through one. */
  async close(): Promise<void> {
    await this.#queue.close?.();
  }
}
