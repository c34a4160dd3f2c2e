/**
 * The narrow connection stream: per successful ListKafkaConnections poll, the listed rows as their
 * narrow versions (counter-versions.ts: one shared, frozen object per version holding only the
 * slow fields scans read) plus each row's idle duration and sampled in-flight requests, without
 * full versions or rows. For scans over many polls (the timeline, fleet's open connections): the
 * frames of many polls are read with one statement and the versions they name with one more; a
 * sealed batch's chunks are decoded once with the counters skipped, and a row found near its place
 * in the previous frame reuses what that frame resolved.
 */
import type { SqlSession, SqlStatement } from '../sql-session.ts';
import type { PollRow } from '../../api/schema/resources.ts';
import { ByteReader, type Num } from '../encoding/bytes.ts';
import { FAST, readHeadEntry } from './codec.ts';
import {
  indexOfSorted,
  readChunkGroup,
  readInFlightAt,
  scanChunkIdle,
  type ChunkGroup,
  type IdleSamples,
  type InFlightColumns,
} from './chunk.ts';
import type { CounterVersion, CounterVersionLoader } from './counter-versions.ts';
import { CorruptDataError, damaged } from '../errors.ts';
import { decodeIdList } from '../encoding/sql-values.ts';
import { sealedBatchQueries } from './sealed-batch-queries.ts';
import { alignTo, type PreviousFrame } from './align.ts';

/**
 * One successful ListKafkaConnections poll, narrow: per row, in answer order, its narrow version,
 * idle duration and sampled in-flight requests, column by column. The in-flight requests are
 * flattened: row i's are entries `inFlightOffsets[i]` to `inFlightOffsets[i + 1] - 1` of
 * `inFlightApiKeys` and `inFlightDurations` (without unknown fields).
 */
export interface NarrowFrame {
  readonly poll: PollRow;
  readonly versions: readonly CounterVersion[];
  /** each row's idleDuration, exact: a number below 2^51, else a bigint */
  readonly idle: readonly Num[];
  /** one more than there are rows */
  readonly inFlightOffsets: Int32Array;
  readonly inFlightApiKeys: readonly number[];
  /** exact: numbers below 2^51, bigints beyond */
  readonly inFlightDurations: readonly Num[];
}

/** A stored frame as this reader takes it. */
interface StoredFrame {
  readonly poll: number;
  readonly batch: number;
  readonly seq: number;
  readonly rows: number;
  readonly versions: Buffer;
  readonly head: Buffer | null;
}

type FrameRow = [poll: bigint, batch: bigint, seq: bigint, rows: bigint, versions: Buffer, head: Buffer | null];

/** Most frames a stored batch may claim (the writer seals at a few). */
const MAX_FRAMES = 65_536;
/** Most sample indexes (connections x frames) of one decoded batch. */
const MAX_INDEXES = 2 ** 25;

/** Polls whose frames one statement of `pin` reads. */
const PIN_CHUNK = 1024;
/** Frames `pin` holds at most: the polls past it are read as before. */
export const MAX_PINNED_FRAMES = 16_384;
/**
 * Bytes of frames (their id lists and head blobs) `pin` holds at most: a frame of 10,000
 * connections is about 15 KB, so a fleet of large clusters is held a part at a time, as before.
 */
export const MAX_PINNED_BYTES = 32 * 1024 * 1024;

/** A sealed batch decoded: idle durations and in-flight lists at `slot * stride + seq` (slot: the entity's place in the batch). */
interface DecodedBatch {
  readonly batch: number;
  readonly stride: number;
  /** the batch's entities, ascending (the slot of an entity is its index; storage reused, only `slots` count) */
  readonly entities: Float64Array;
  readonly slots: number;
  readonly groups: readonly ChunkGroup[];
  readonly samples: IdleSamples;
}

/** Reads narrow connection frames; keeps the last sealed batch decoded (the versions are the loader's). */
export class NarrowFrameReader {
  readonly #versions: CounterVersionLoader;
  readonly #prefetch: (stmt: SqlStatement<never[]>, ...args: unknown[]) => boolean;
  readonly #q;
  readonly #frames: SqlStatement<[string], FrameRow>;
  #decoded: DecodedBatch | undefined;
  #prev: PreviousFrame | undefined;
  /** the frames `pin` read, by poll (a poll pinned without a stored frame is absent), and the polls pinned; until `unpin` */
  #pinned: { readonly frames: Map<number, StoredFrame>; readonly polls: Set<number> } | undefined;

  /**
   * `prefetch` posts a read ahead of need where the engine can (EngineSession.prefetch): a sealed
   * batch's chunks are posted with its frame count, one round trip for both on PostgreSQL
   */
  constructor(
    sqlite: SqlSession,
    versions: CounterVersionLoader,
    prefetch: (stmt: SqlStatement<never[]>, ...args: unknown[]) => boolean = () => false,
  ) {
    this.#versions = versions;
    this.#prefetch = prefetch;
    this.#q = sealedBatchQueries(sqlite);
    this.#frames = sqlite
      .prepare<[string], FrameRow>(
        'SELECT poll, batch, seq, rows, versions, head FROM conn_frame WHERE poll IN (SELECT value FROM json_each(?))',
      )
      .safeIntegers()
      .raw();
  }

  /** Forgets what is cached (after a rollback or a prune; the loader is reset by its owner). */
  reset(): void {
    this.#decoded = undefined;
    this.#prev = undefined;
    this.#pinned = undefined;
  }

  /**
   * Reads the stored frames of these polls now (one statement per PIN_CHUNK polls) and keeps them
   * until `unpin`, for a reader of many clusters' windows (fleet): their frames in a few
   * statements instead of some per cluster. Call both in one read transaction (its snapshot keeps
   * the frames right). Polls past `maxFrames`, or from the first whose frame would take the bytes
   * held past `maxBytes`, and frames the statement could not read, are read as before.
   */
  pin(polls: readonly number[], maxFrames: number = MAX_PINNED_FRAMES, maxBytes: number = MAX_PINNED_BYTES): void {
    this.#pinned = undefined;
    const wanted = polls.slice(0, Math.max(0, maxFrames));
    const frames = new Map<number, StoredFrame>();
    const pinned: number[] = [];
    let bytes = 0;
    try {
      for (let i = 0; i < wanted.length; i += PIN_CHUNK) {
        const chunk = wanted.slice(i, i + PIN_CHUNK);
        const read = this.#readFrames(chunk, new Map());
        for (const poll of chunk) {
          const f = read.get(poll);
          bytes += f === undefined ? 0 : f.versions.length + (f.head?.length ?? 0);
          if (bytes > maxBytes) break;
          pinned.push(poll);
          if (f !== undefined) frames.set(poll, f);
        }
        if (bytes > maxBytes) break;
      }
    } catch {
      return; // each read as before, and its own read says what is wrong
    }
    if (pinned.length > 0) this.#pinned = { frames, polls: new Set(pinned) };
  }

  /** Drops what `pin` read. */
  unpin(): void {
    this.#pinned = undefined;
  }

  /**
   * The narrow frames of these polls (call inside a read transaction), in their order; a poll
   * without a stored frame is left out. Their frames are read with one statement, the versions
   * not loaded yet with one more (or pieces, version-records.ts).
   */
  framesOf(polls: readonly PollRow[]): NarrowFrame[] {
    const stored = this.#read(polls.map((p) => Number(p.id)));
    const out: NarrowFrame[] = [];
    for (const p of polls) {
      const f = stored.get(Number(p.id));
      if (f === undefined) continue;
      try {
        out.push(this.#frameOf(p, f));
      } catch (err) {
        throw damaged(err, { poll: f.poll });
      }
    }
    return out;
  }

  /** The narrow versions of each poll's rows, in answer order (no chunk read), undefined for a poll without a frame. */
  versionsOf(polls: readonly number[]): (readonly CounterVersion[] | undefined)[] {
    const stored = this.#read(polls);
    return polls.map((p) => {
      const f = stored.get(p);
      if (f === undefined) return undefined;
      try {
        return this.#versions.inOrder(decodeIdList(f.versions, f.rows), undefined, undefined);
      } catch (err) {
        throw damaged(err, { poll: f.poll });
      }
    });
  }

  /** The stored frames of these polls, by poll, with every version they name loaded. */
  #read(polls: readonly number[]): Map<number, StoredFrame> {
    let out = new Map<number, StoredFrame>();
    if (polls.length === 0) return out;
    const pinned = this.#pinned;
    if (pinned !== undefined && polls.every((p) => pinned.polls.has(p))) {
      for (const p of polls) {
        const f = pinned.frames.get(p);
        if (f !== undefined) out.set(p, f);
      }
    } else out = this.#readFrames(polls, out);
    const loader = this.#versions;
    const missing = new Set<number>();
    for (const f of out.values()) {
      let ids: number[];
      try {
        ids = decodeIdList(f.versions, f.rows);
      } catch {
        continue; // the frame read alone says what is wrong with it
      }
      for (const id of ids) if (loader.cached(id) === undefined) missing.add(id);
    }
    if (missing.size > 0) loader.load([...missing]);
    return out;
  }

  /** Reads the stored frames of these polls into `out` (one statement). */
  #readFrames(polls: readonly number[], out: Map<number, StoredFrame>): Map<number, StoredFrame> {
    for (const [poll, batch, seq, rows, versions, head] of this.#frames.all(JSON.stringify(polls))) {
      out.set(Number(poll), {
        poll: Number(poll),
        batch: Number(batch),
        seq: Number(seq),
        rows: Number(rows),
        versions,
        head,
      });
    }
    return out;
  }

  /** The narrow frame of a stored frame (its versions loaded). */
  #frameOf(poll: PollRow, f: StoredFrame): NarrowFrame {
    const ids = decodeIdList(f.versions, f.rows);
    const n = ids.length;
    const prev = this.#prev;
    const from = prev === undefined ? undefined : alignTo(prev.ids, ids);
    const versions = this.#versions.inOrder(ids, prev?.versions, from);
    const idle = new Array<Num>(n);
    const inFlightOffsets = new Int32Array(n + 1);
    const inFlight: InFlightColumns = { apiKeys: [], durations: [] };
    const slots = new Int32Array(n);
    if (f.head !== null) {
      const r = new ByteReader(f.head);
      try {
        for (let i = 0; i < n; i++) {
          const e = readHeadEntry(r);
          if (e.entity !== versions[i]!.entityId) throw new Error(`row ${i} belongs to another connection`);
          idle[i] = e.sample.v[FAST.idleDuration]!;
          inFlightOffsets[i] = inFlight.apiKeys.length;
          for (const [apiKey, d] of e.sample.inflight ?? []) {
            inFlight.apiKeys.push(apiKey);
            inFlight.durations.push(d);
          }
        }
      } catch (err) {
        throw damaged(err, { table: 'conn_frame', poll: f.poll, entity: 'its head blob' });
      }
    } else {
      const d = this.#batch(f.batch);
      const { present, idle: idleOf, bigIdle, inFlightAt, inFlightGroup } = d.samples;
      const same = prev !== undefined && prev.batch === f.batch ? from : undefined;
      const seq = f.seq;
      const stride = d.stride;
      for (let i = 0; i < n; i++) {
        const j = same === undefined ? -1 : same[i]!;
        const slot = j >= 0 ? prev!.slots[j]! : indexOfSorted(d.entities, versions[i]!.entityId, d.slots);
        const at = slot * stride + seq;
        if (slot < 0 || present[at] !== 1) missing(f, versions[i]!.entityId);
        slots[i] = slot;
        if (bigIdle.size !== 0 && bigIdle.has(at)) idle[i] = bigIdle.get(at)!;
        else idle[i] = idleOf[at]!;
        inFlightOffsets[i] = inFlight.apiKeys.length;
        const list = inFlightAt[at]!;
        if (list !== 0) {
          try {
            readInFlightAt(d.groups[inFlightGroup[at]!]!, list - 1, inFlight);
          } catch (err) {
            throw damaged(err, {
              table: 'conn_chunk',
              poll: f.poll,
              entity: `batch ${f.batch}, connection ${versions[i]!.entityId}`,
            });
          }
        }
      }
    }
    inFlightOffsets[n] = inFlight.apiKeys.length;
    this.#prev = { ids, versions, batch: f.head === null ? f.batch : -1, slots };
    return {
      poll,
      versions,
      idle,
      inFlightOffsets,
      inFlightApiKeys: inFlight.apiKeys,
      inFlightDurations: inFlight.durations,
    };
  }

  /** A sealed batch decoded (the last one is kept; its storage is reused for the next). */
  #batch(batch: number): DecodedBatch {
    const last = this.#decoded;
    if (last?.batch === batch) return last;
    this.#prefetch(this.#q.chunks as SqlStatement<never[]>, batch);
    const stride = this.#q.frames.get(batch) ?? 0;
    let entity = -1;
    try {
      return this.#decode(batch, stride, (e) => (entity = e));
    } catch (err) {
      throw damaged(err, {
        table: 'conn_chunk',
        entity: entity < 0 ? `batch ${batch}` : `batch ${batch}, connection ${entity}`,
      });
    }
  }

  /** #batch's decoding; `at` is told each entity before its chunk is read (to name it when damaged). */
  #decode(batch: number, stride: number, at: (entity: number) => void): DecodedBatch {
    const last = this.#decoded;
    this.#decoded = undefined; // its storage is reused: no stale answer if this decoding fails
    const groups = this.#q.chunks.all(batch).map(readChunkGroup);
    let slots = 0;
    for (const g of groups) slots += g.entities.length;
    // bounded before the sample storage (17 bytes an index) is allocated: batches hold a few frames
    if (!(Number.isInteger(stride) && stride >= 0 && stride <= MAX_FRAMES && slots * stride <= MAX_INDEXES)) {
      throw new CorruptDataError(`${slots} connections over ${stride} frames is not a batch this flightrec writes`, {
        table: 'conn_batch',
      });
    }
    const samples = reuse(last?.samples, slots * stride);
    const entities = last !== undefined && last.entities.length >= slots ? last.entities : new Float64Array(slots);
    const d: DecodedBatch = { batch, stride, entities, slots, groups, samples };
    let slot = 0;
    for (let gi = 0; gi < groups.length; gi++) {
      const g = groups[gi]!;
      for (let k = 0; k < g.entities.length; k++) {
        const entity = g.entities[k]!;
        at(entity);
        if (slot > 0 && entity <= entities[slot - 1]!)
          throw new Error(`connection batch ${batch}: chunks out of entity order`);
        entities[slot] = entity;
        scanChunkIdle(g, gi, k, samples, slot * stride, stride);
        slot++;
      }
    }
    this.#decoded = d;
    return d;
  }
}

/** Sample storage for `size` indexes: the previous one cleared when large enough, else a new one. */
function reuse(old: IdleSamples | undefined, size: number): IdleSamples {
  if (old === undefined || old.present.length < size) {
    return {
      present: new Uint8Array(size),
      idle: new Float64Array(size),
      bigIdle: new Map(),
      inFlightAt: new Int32Array(size),
      inFlightGroup: new Int32Array(size),
    };
  }
  old.present.fill(0);
  old.bigIdle.clear();
  old.inFlightAt.fill(0);
  return old;
}

function missing(f: StoredFrame, entity: number): never {
  throw new Error(`connection ${entity} has no sample at poll ${f.poll}`);
}
