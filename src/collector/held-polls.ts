/**
 * Polls held in memory while the store refuses writes, capped by an estimate of the memory they
 * take (and by count). Past the cap the oldest are dropped, and each dropped stream (cluster,
 * operation, target) is remembered as a run: when writes resume, the run is stored as one
 * `not_stored` poll saying how many polls between which instants were lost, and why.
 */
import { formatTimestampShort } from '../api/codec/timestamp.ts';
import type { PollRecord } from '../db/poll-record.ts';

/** Default cap on the memory of held polls: 256 MiB. */
export const DEFAULT_MAX_HELD_BYTES = 256 * 1024 * 1024;
/** Most polls held, whatever their size. */
export const MAX_HELD_POLLS = 10_000;
/** Outcome of the poll that records polls lost while the store refused writes. */
export const NOT_STORED = 'not_stored';

/** A decoded answer takes about 1.4 times its JSON size in memory (measured on 20,000 connections); 2 leaves room. */
const DECODED_PER_BYTE = 2;
const RECORD_OVERHEAD = 1024;

/** An estimate of the memory a record holds: its raw bytes, its decoded answer or failure, and overhead. */
export function estimateRecordBytes(r: PollRecord): number {
  const o = r.outcome;
  const raw = o.raw?.length ?? 0;
  const decoded = o.ok
    ? o.bytes * DECODED_PER_BYTE
    : o.message.length * 2 + (o.details === undefined ? 0 : Math.min(o.bytes, raw || o.bytes) * DECODED_PER_BYTE);
  return raw + decoded + RECORD_OVERHEAD;
}

/** Polls of one stream dropped while the store refused writes. */
export interface LostRun {
  readonly first: PollRecord;
  count: number;
  lastEndedAt: bigint;
}

/** The held polls of a collector. */
export class HeldPolls {
  readonly #queue: { record: PollRecord; bytes: number }[] = [];
  readonly #lost = new Map<string, LostRun>();
  readonly #maxBytes: number;
  readonly #maxPolls: number;
  #bytes = 0;
  /** polls dropped since the collector started (a counter a metrics page can read) */
  droppedTotal = 0;

  constructor(maxBytes = DEFAULT_MAX_HELD_BYTES, maxPolls = MAX_HELD_POLLS) {
    this.#maxBytes = maxBytes;
    this.#maxPolls = maxPolls;
  }

  /** Polls held. */
  get size(): number {
    return this.#queue.length;
  }

  /** Estimated bytes held. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Polls dropped and not yet recorded as lost. */
  get lostPending(): number {
    let n = 0;
    for (const r of this.#lost.values()) n += r.count;
    return n;
  }

  /** The oldest held record. */
  head(): PollRecord | undefined {
    return this.#queue[0]?.record;
  }

  /** Appends a record (newest last). */
  push(record: PollRecord): void {
    const bytes = estimateRecordBytes(record);
    this.#queue.push({ record, bytes });
    this.#bytes += bytes;
  }

  /** Replaces the newest record by a lighter copy (e.g. without raw bytes the store will not keep). */
  replaceNewest(record: PollRecord): void {
    const last = this.#queue.at(-1);
    if (last === undefined) return;
    this.#bytes -= last.bytes;
    last.record = record;
    last.bytes = estimateRecordBytes(record);
    this.#bytes += last.bytes;
  }

  /** Removes the oldest record (it was written). */
  shift(): void {
    const first = this.#queue.shift();
    if (first !== undefined) this.#bytes -= first.bytes;
  }

  /** Drops the oldest records while over the caps; returns how many were dropped. */
  enforce(): number {
    let dropped = 0;
    while (this.#queue.length > 0 && (this.#bytes > this.#maxBytes || this.#queue.length > this.#maxPolls)) {
      const { record } = this.#queue[0]!;
      this.shift();
      const key = `${record.cluster}\u0000${record.operation}\u0000${record.target}`;
      const run = this.#lost.get(key);
      if (run === undefined) this.#lost.set(key, { first: record, count: 1, lastEndedAt: record.endedAt });
      else {
        run.count++;
        if (record.endedAt > run.lastEndedAt) run.lastEndedAt = record.endedAt;
      }
      dropped++;
    }
    this.droppedTotal += dropped;
    return dropped;
  }

  /** The lost runs not yet recorded, oldest first, each with the record that reports it. */
  lostRecords(cause: string, roundId: () => string): { key: string; record: PollRecord }[] {
    return [...this.#lost.entries()]
      .sort((a, b) =>
        a[1].first.startedAt < b[1].first.startedAt ? -1 : a[1].first.startedAt > b[1].first.startedAt ? 1 : 0,
      )
      .map(([key, run]) => ({ key, record: lostRecord(run, cause, roundId()) }));
  }

  /** Forgets a lost run once its record was written. */
  recorded(key: string): void {
    this.#lost.delete(key);
  }
}

/** The `not_stored` poll of a run of lost polls. */
export function lostRecord(run: LostRun, cause: string, round: string): PollRecord {
  const f = run.first;
  const what = `${run.count} poll${run.count === 1 ? '' : 's'} between ${formatTimestampShort(f.startedAt)} and ${formatTimestampShort(run.lastEndedAt)}`;
  return {
    cluster: f.cluster,
    operation: f.operation,
    target: f.target,
    request: f.request,
    round,
    attempt: 1,
    scheduledAt: f.scheduledAt,
    startedAt: f.startedAt,
    endedAt: run.lastEndedAt,
    outcome: {
      ok: false,
      code: NOT_STORED,
      kind: 'store',
      message: `${what} not stored: the database refused writes: ${cause}`,
      bytes: 0,
    },
  };
}
