/**
 * The narrow connection read for counter trends: per successful ListKafkaConnections poll, the
 * listed rows as one shared, frozen object per version holding only the slow fields trends read
 * (connections/counter-versions.ts: uid, grouping keys, state, open and close time) and, column by
 * column, the cumulative totals asked for (`totalRequestStatistics`), exact as bigints. No full
 * rows are built: a sealed batch's chunks are decoded once, reading only those totals (the idle
 * time, the recent statistics and the in-flight lists are skipped) and only up to the last frame
 * the caller asks for; the head blob of an open batch is read entry by entry. A row found near its
 * place in the previous frame reuses what that frame resolved (its version and batch slot).
 */
import type { PollRow } from '../../api/schema/resources.ts';
import { ByteReader, type Num } from '../encoding/bytes.ts';
import { FAST, readHeadEntry } from '../connections/codec.ts';
import { readTotalsExact, readTotalsFast, totalsTarget, type TotalsTarget } from '../connections/chunk-totals.ts';
import { alignTo, type PreviousFrame } from '../connections/align.ts';
import { indexOfSorted, readChunkGroup, type ChunkGroup } from '../connections/chunk.ts';
import type { CounterVersion, CounterVersionLoader } from '../connections/counter-versions.ts';
import type { ConnReader, Frame } from '../connections/reader.ts';
import { CorruptDataError, damaged } from '../errors.ts';
import type { SqlSession } from '../sql-session.ts';
import { decodeIdList } from '../encoding/sql-values.ts';
import { sealedBatchQueries } from '../connections/sealed-batch-queries.ts';

/** A cumulative counter of `totalRequestStatistics`. */
export type TotalCounter = keyof typeof FAST.total;

/** One successful ListKafkaConnections poll, narrow: each row's version and the totals asked for. */
export interface CounterFrame {
  readonly poll: PollRow;
  /** each row's slow fields that trends read, in answer order (one shared frozen object per stored version) */
  readonly versions: readonly CounterVersion[];
  /**
   * per counter asked for (in that order), each row's value, exact: a number below 2^51, else a
   * bigint (a Float64Array when the frame's batch holds numbers only)
   */
  readonly totals: readonly ArrayLike<Num>[];
}

/** Most frames a stored batch may claim (the writer seals at a few). */
const MAX_FRAMES = 65_536;
/** Most sample indexes (connections x frames) of one decoded batch. */
const MAX_INDEXES = 2 ** 25;

/** Where a frame sits in the store: its sealed batch and its place (sequence) there. */
export interface FramePlace {
  readonly batch: number;
  readonly seq: number;
}

/** A sealed batch decoded: the asked totals of entity slot `s` at sequence `seq` at index `s * stride + seq`. */
interface DecodedBatch {
  readonly batch: number;
  readonly stride: number;
  /** the last sequence decoded (the samples after it are not) */
  readonly last: number;
  /** the batch's entities, ascending (an entity's slot is its index) */
  readonly entities: readonly number[];
  readonly present: Uint8Array;
  /** per counter asked for */
  readonly values: readonly ArrayLike<Num>[];
}

/** Reads counter frames; keeps the last frame resolved and the last sealed batch decoded. */
export class ConnCounterReader {
  readonly #conns: ConnReader;
  readonly #versions: CounterVersionLoader;
  readonly #q;
  #decoded: { readonly key: string; readonly batch: DecodedBatch } | undefined;
  #prev: PreviousFrame | undefined;

  constructor(sqlite: SqlSession, conns: ConnReader, versions: CounterVersionLoader) {
    this.#conns = conns;
    this.#versions = versions;
    this.#q = sealedBatchQueries(sqlite);
  }

  /** Forgets what is cached (after a rollback or a prune). */
  reset(): void {
    this.#versions.reset();
    this.#decoded = undefined;
    this.#prev = undefined;
  }

  /** Where a poll's frame sits (call inside a read transaction), or undefined when it has none or is in the open batch. */
  placeOf(pollId: number): FramePlace | undefined {
    const f = this.#conns.frame(pollId);
    return f === undefined || f.head !== null ? undefined : { batch: f.batch, seq: f.seq };
  }

  /**
   * The counter frame of a poll (call inside a read transaction), or undefined when it has none.
   * `last`: the last frame the caller will ask for (placeOf), when known: its batch is decoded
   * only up to it (a frame asked for beyond it is still read, its batch decoded again in full).
   */
  frameOf(
    poll: PollRow,
    pollId: number,
    counters: readonly TotalCounter[],
    last?: FramePlace,
  ): CounterFrame | undefined {
    const f = this.#conns.frame(pollId);
    if (f === undefined) return undefined;
    const ids = decodeIdList(f.versions, f.rows);
    const prev = this.#prev;
    const from = prev === undefined ? undefined : alignTo(prev.ids, ids);
    const versions = this.#versions.inOrder(ids, prev?.versions, from);
    const slots = counters.map((c) => FAST.total[c]);
    if (f.head !== null) return this.#headFrame(poll, f.head, f.poll, ids, versions, slots);
    const upTo = last !== undefined && last.batch === f.batch && f.seq <= last.seq ? last.seq : Infinity;
    const d = this.#batch(f.batch, slots, upTo);
    const same = prev !== undefined && prev.batch === f.batch ? from : undefined;
    const rowSlots = new Int32Array(ids.length);
    const at = placesIn(d, f, versions, rowSlots, same === undefined ? undefined : { prev: prev!, same });
    this.#prev = { ids, versions, batch: f.batch, slots: rowSlots };
    return { poll, versions, totals: d.values.map((values) => gather(values, at)) };
  }

  /** A frame of the open batch: the totals read from its head blob, entry by entry. */
  #headFrame(
    poll: PollRow,
    head: Buffer,
    pollId: number,
    ids: readonly number[],
    versions: readonly CounterVersion[],
    slots: readonly number[],
  ): CounterFrame {
    const n = ids.length;
    const totals = slots.map(() => new Array<Num>(n));
    const r = new ByteReader(head);
    try {
      for (let i = 0; i < n; i++) {
        const e = readHeadEntry(r);
        if (e.entity !== versions[i]!.entityId) throw new Error(`row ${i} belongs to another connection`);
        for (let c = 0; c < slots.length; c++) totals[c]![i] = e.sample.v[slots[c]!]!;
      }
    } catch (err) {
      throw damaged(err, { table: 'conn_frame', poll: pollId, entity: 'its head blob' });
    }
    this.#prev = { ids, versions, batch: -1, slots: new Int32Array(0) };
    return { poll, versions, totals };
  }

  /** A sealed batch decoded for these value slots up to sequence `upTo` (the last one is kept). */
  #batch(batch: number, slots: readonly number[], upTo: number): DecodedBatch {
    const stride = this.#q.frames.get(batch) ?? 0;
    const last = Math.min(stride - 1, upTo);
    const key = `${batch}:${last}:${slots.join(',')}`;
    if (this.#decoded?.key === key) return this.#decoded.batch;
    this.#decoded = undefined;
    let entity = -1;
    try {
      const d = this.#decode(batch, stride, last, slots, (e) => (entity = e));
      this.#decoded = { key, batch: d };
      return d;
    } catch (err) {
      throw damaged(err, {
        table: 'conn_chunk',
        entity: entity < 0 ? `batch ${batch}` : `batch ${batch}, connection ${entity}`,
      });
    }
  }

  /** #batch's decoding; `at` is told each entity before its chunk is read (to name it when damaged). */
  #decode(
    batch: number,
    stride: number,
    last: number,
    slots: readonly number[],
    at: (entity: number) => void,
  ): DecodedBatch {
    const groups = this.#q.chunks.all(batch).map(readChunkGroup);
    let count = 0;
    for (const g of groups) count += g.entities.length;
    // bounded before the sample storage is allocated: batches hold a few frames
    if (!(Number.isInteger(stride) && stride >= 0 && stride <= MAX_FRAMES && count * stride <= MAX_INDEXES)) {
      throw new CorruptDataError(`${count} connections over ${stride} frames is not a batch this flightrec writes`, {
        table: 'conn_batch',
      });
    }
    const size = count * stride;
    const present = new Uint8Array(size);
    const t = totalsTarget(stride, last, slots, present);
    const entities: number[] = [];
    for (const g of groups) {
      for (let k = 0; k < g.entities.length; k++) {
        const e = g.entities[k]!;
        at(e);
        if (entities.length > 0 && e <= entities.at(-1)!)
          throw new Error(`connection batch ${batch}: chunks out of entity order`);
        entities.push(e);
      }
    }
    let values: readonly ArrayLike<Num>[] | undefined = this.#readAll(groups, t, at, size);
    if (values === undefined) {
      // a value beyond 2^51 somewhere: the whole batch again, exactly
      present.fill(0);
      const exact = slots.map(() => new Array<Num>(size).fill(0));
      let base = 0;
      for (const g of groups) {
        for (let k = 0; k < g.entities.length; k++, base += stride) {
          at(g.entities[k]!);
          readTotalsExact(g, k, base, t, exact);
        }
      }
      values = exact;
    }
    return { batch, stride, last, entities, present, values };
  }

  /** Every chunk of a batch in plain numbers: the values per counter, or undefined when one did not fit. */
  #readAll(
    groups: readonly ChunkGroup[],
    t: TotalsTarget,
    at: (entity: number) => void,
    size: number,
  ): Float64Array[] | undefined {
    const values = t.slots.map(() => new Float64Array(size));
    let base = 0;
    for (const g of groups) {
      for (let k = 0; k < g.entities.length; k++, base += t.stride) {
        at(g.entities[k]!);
        if (!readTotalsFast(g, k, base, t, values)) return undefined;
      }
    }
    return values;
  }
}

/**
 * The index of each row of a sealed frame in its decoded batch (checked to hold a sample), and its
 * batch slot into `rowSlots`; a row at its place in the previous frame of the same batch
 * (`aligned`) takes that row's batch slot.
 */
function placesIn(
  d: DecodedBatch,
  f: Frame,
  versions: readonly CounterVersion[],
  rowSlots: Int32Array,
  aligned: { readonly prev: PreviousFrame; readonly same: Int32Array } | undefined,
): Int32Array {
  const n = versions.length;
  const { stride, entities, present } = d;
  const seq = f.seq;
  const at = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const j = aligned === undefined ? -1 : aligned.same[i]!;
    // the same version at its place in the previous frame of this batch: the same entity, the same slot
    const slot = j >= 0 ? aligned!.prev.slots[j]! : indexOfSorted(entities, versions[i]!.entityId);
    const k = slot * stride + seq;
    if (slot < 0 || present[k] !== 1) missing(f, versions[i]!.entityId);
    rowSlots[i] = slot;
    at[i] = k;
  }
  return at;
}

/** A column's values at the indexes `at`: a Float64Array from a batch read in plain numbers (one array kind for the loops that read it). */
function gather(values: ArrayLike<Num>, at: Int32Array): ArrayLike<Num> {
  const n = at.length;
  if (values instanceof Float64Array) {
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) out[i] = values[at[i]!]!;
    return out;
  }
  const out = new Array<Num>(n);
  for (let i = 0; i < n; i++) out[i] = values[at[i]!]!;
  return out;
}

function missing(f: Frame, entity: number): never {
  throw new Error(`connection ${entity} has no sample at poll ${f.poll}`);
}
