/**
 * The narrow connection read for counter trends: per successful ListKafkaConnections poll, the
 * listed rows as one shared, frozen object per version (the slow fields: uid, grouping keys,
 * state, open and close time) and, column by column, the cumulative totals asked for
 * (`totalRequestStatistics`), exact as bigints. No full rows are built: a sealed batch's chunks
 * are decoded once, reading only those totals (the idle time, the recent statistics and the
 * in-flight lists are skipped), and the head blob of an open batch is read entry by entry.
 */
import type { PollRow } from '../../api/schema/resources.ts';
import { ByteReader, normal, toBig, type Num } from '../encoding/bytes.ts';
import { ABSENT, EXTRA, FAST, FAST_FIELDS, INFLIGHT, readHeadEntry, skipTail } from '../connections/codec.ts';
import { indexOfSorted, readChunkGroup, type ChunkGroup } from '../connections/chunk.ts';
import type { ConnPartsLoader } from '../connections/parts.ts';
import type { ConnReader, Frame } from '../connections/reader.ts';
import { buildVersionRow, type ConnectionVersion } from '../connections/rows.ts';
import { CorruptDataError, damaged } from '../errors.ts';
import type { SqlSession } from '../sql-session.ts';
import { decodeIdList } from '../encoding/sql-values.ts';
import { sealedBatchQueries } from '../connections/sealed-batch-queries.ts';

/** A cumulative counter of `totalRequestStatistics`. */
export type TotalCounter = keyof typeof FAST.total;

/** One successful ListKafkaConnections poll, narrow: each row's version and the totals asked for. */
export interface CounterFrame {
  readonly poll: PollRow;
  /** each row's slow fields, in answer order (one shared frozen object per stored version) */
  readonly versions: readonly ConnectionVersion[];
  /** per counter asked for (in that order), each row's value, exact: a number below 2^51, else a bigint */
  readonly totals: readonly (readonly Num[])[];
}

/** Most frames a stored batch may claim (the writer seals at a few). */
const MAX_FRAMES = 65_536;
/** Most sample indexes (connections x frames) of one decoded batch. */
const MAX_INDEXES = 2 ** 25;

/** A sealed batch decoded: the asked totals of entity slot `s` at sequence `seq` at index `s * stride + seq`. */
interface DecodedBatch {
  readonly batch: number;
  readonly stride: number;
  /** the batch's entities, ascending (an entity's slot is its index) */
  readonly entities: readonly number[];
  readonly present: Uint8Array;
  /** per counter asked for */
  readonly values: Num[][];
}

/** Reads counter frames; keeps the version objects and the last sealed batch decoded. */
export class ConnCounterReader {
  readonly #conns: ConnReader;
  readonly #parts: ConnPartsLoader;
  readonly #q;
  readonly #versions = new Map<number, ConnectionVersion>();
  #decoded: { readonly key: string; readonly batch: DecodedBatch } | undefined;

  constructor(sqlite: SqlSession, conns: ConnReader, parts: ConnPartsLoader) {
    this.#conns = conns;
    this.#parts = parts;
    this.#q = sealedBatchQueries(sqlite);
  }

  /** Forgets what is cached (after a rollback or a prune). */
  reset(): void {
    this.#versions.clear();
    this.#decoded = undefined;
  }

  /** The counter frame of a poll (call inside a read transaction), or undefined when it has none. */
  frameOf(poll: PollRow, pollId: number, counters: readonly TotalCounter[]): CounterFrame | undefined {
    const f = this.#conns.frame(pollId);
    if (f === undefined) return undefined;
    const ids = decodeIdList(f.versions, f.rows);
    const n = ids.length;
    const versions = this.#versionsOf(ids);
    const slots = counters.map((c) => FAST.total[c]);
    const totals = counters.map(() => new Array<Num>(n));
    if (f.head !== null) {
      const r = new ByteReader(f.head);
      try {
        for (let i = 0; i < n; i++) {
          const e = readHeadEntry(r);
          if (e.entity !== versions[i]!.entityId) throw new Error(`row ${i} belongs to another connection`);
          for (let c = 0; c < slots.length; c++) totals[c]![i] = e.sample.v[slots[c]!]!;
        }
      } catch (err) {
        throw damaged(err, { table: 'conn_frame', poll: f.poll, entity: 'its head blob' });
      }
      return { poll, versions, totals };
    }
    const d = this.#batch(f.batch, slots);
    const seq = f.seq;
    for (let i = 0; i < n; i++) {
      const entity = versions[i]!.entityId;
      const slot = indexOfSorted(d.entities, entity);
      const at = slot * d.stride + seq;
      if (slot < 0 || d.present[at] !== 1) missing(f, entity);
      for (let c = 0; c < slots.length; c++) totals[c]![i] = d.values[c]![at]!;
    }
    return { poll, versions, totals };
  }

  /** The versions of a frame's rows, in order: cached, or loaded together. */
  #versionsOf(ids: readonly number[]): ConnectionVersion[] {
    const cache = this.#versions;
    const out = new Array<ConnectionVersion>(ids.length);
    let missingIds: number[] | undefined;
    for (let i = 0; i < ids.length; i++) {
      const v = cache.get(ids[i]!);
      if (v !== undefined) out[i] = v;
      else (missingIds ??= []).push(ids[i]!);
    }
    if (missingIds === undefined) return out;
    for (const [id, p] of this.#parts.byIds(missingIds)) if (!cache.has(id)) cache.set(id, buildVersionRow(p));
    for (let i = 0; i < ids.length; i++) {
      if (out[i] !== undefined) continue;
      const v = cache.get(ids[i]!);
      if (v === undefined) throw new Error(`connection version ${ids[i]} is missing`);
      out[i] = v;
    }
    return out;
  }

  /** A sealed batch decoded for these value slots (the last one is kept). */
  #batch(batch: number, slots: readonly number[]): DecodedBatch {
    const key = `${batch}:${slots.join(',')}`;
    if (this.#decoded?.key === key) return this.#decoded.batch;
    this.#decoded = undefined;
    const stride = this.#q.frames.get(batch) ?? 0;
    let entity = -1;
    try {
      const d = this.#decode(batch, stride, slots, (e) => (entity = e));
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
  #decode(batch: number, stride: number, slots: readonly number[], at: (entity: number) => void): DecodedBatch {
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
    const values = slots.map(() => new Array<Num>(size).fill(0));
    const entities: number[] = [];
    for (const g of groups) {
      for (let k = 0; k < g.entities.length; k++) {
        const e = g.entities[k]!;
        at(e);
        if (entities.length > 0 && e <= entities.at(-1)!)
          throw new Error(`connection batch ${batch}: chunks out of entity order`);
        readTotals(g, k, entities.length * stride, stride, slots, present, values);
        entities.push(e);
      }
    }
    return { batch, stride, entities, present, values };
  }
}

/**
 * Reads connection `k`'s chunk of a group, writing the values of `slots` of each sample at
 * `base + seq`: the values are deltas from the previous sample, summed exactly; the other values
 * (the idle time, a delta of deltas, and the recent statistics) are skipped byte by byte, as are
 * the in-flight lists and unknown fields.
 */
function readTotals(
  g: ChunkGroup,
  k: number,
  base: number,
  stride: number,
  slots: readonly number[],
  present: Uint8Array,
  values: Num[][],
): void {
  const buf = g.data;
  const r = g.reader;
  r.pos = g.starts[k]!;
  const n = r.count();
  const seqs = new Array<number>(n);
  let seq = -1;
  for (let i = 0; i < n; i++) {
    seq += r.uint() + 1;
    if (!(seq < stride)) throw new CorruptDataError(`a sample at ${seq} beyond the batch's ${stride} frames`);
    seqs[i] = seq;
  }
  let wanted = 0;
  for (const slot of slots) wanted |= 1 << slot;
  const cur = new Array<Num>(FAST_FIELDS).fill(0);
  let p = r.pos;
  for (let s = 0; s < n; s++) {
    let flags = buf[p++]!;
    if (flags >= 128) flags = (flags & 127) | (buf[p++]! << 7); // 13 flag bits: two bytes at most
    for (let i = 0; i < FAST_FIELDS; i++) {
      if ((flags & (8 << i)) === 0) continue;
      if ((wanted & (1 << i)) === 0) {
        while (buf[p++]! >= 128); // a varint not asked for: to the byte below 128 (or past the end, checked below)
        continue;
      }
      r.pos = p;
      const d = r.num();
      p = r.pos;
      if (d !== 0) cur[i] = addExact(cur[i]!, d);
    }
    if (flags & (INFLIGHT | EXTRA | ABSENT)) {
      r.pos = p;
      skipTail(r, flags);
      p = r.pos;
    }
    if (!(p <= buf.length)) throw new CorruptDataError(`the chunk of connection ${g.entities[k]} runs past its group`);
    const at = base + seqs[s]!;
    present[at] = 1;
    for (let c = 0; c < slots.length; c++) values[c]![at] = cur[slots[c]!]!;
  }
}

/** `a + b` exactly (numbers stay numbers while below 2^51). */
function addExact(a: Num, b: Num): Num {
  if (typeof a === 'number' && typeof b === 'number') {
    const s = a + b;
    if (s < 2 ** 51 && s > -(2 ** 51)) return s;
  }
  return normal(toBig(a) + toBig(b));
}

function missing(f: Frame, entity: number): never {
  throw new Error(`connection ${entity} has no sample at poll ${f.poll}`);
}
