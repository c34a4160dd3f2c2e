/**
 * Chunks: one connection's fast samples over a sealed batch, delta-encoded (idle time as a
 * delta of deltas), and chunk groups: the chunks of up to CHUNK_GROUP connections of a batch
 * in one row, so reading a whole batch costs a few hundred rows instead of one per connection.
 */
import { ByteReader, ByteWriter, isZero, normal, subNum, toBig, type Num } from '../encoding/bytes.ts';
import { CorruptDataError } from '../errors.ts';
import {
  ABSENT,
  EXTRA,
  FAST,
  FAST_FIELDS,
  INFLIGHT,
  readTail,
  readTailInto,
  sampleSlot,
  skipTail,
  TAIL_FLAGS,
  tailFlags,
  writeTail,
  type FastSample,
  type SampleSlot,
} from './codec.ts';

/**
 * Payload budget of a chunk group row: small enough to stay inside its b-tree page (SQLite keeps
 * at most ~1 KB of a WITHOUT ROWID row local with 4 KB pages; larger rows spill into overflow
 * pages whose unused tails cost about 20 %).
 */
export const CHUNK_GROUP_BYTES = 900;
/**
 * The same budget on PostgreSQL, sized so that five rows fill a heap page: 8,168 bytes a page
 * (8 KiB less its header) hold five rows of at most 1,633 bytes with their line pointer, which
 * leaves 1,577 bytes of `data` after the row header (24), the three keys (24) and the length (4).
 * Against SQLite's budget it nearly halves the rows, and with them the 28 bytes of header and line
 * pointer and the 40-byte index entry each row costs; well under the 2 KB past which PostgreSQL
 * would move `data` out of the row (TOAST).
 */
export const PG_CHUNK_GROUP_BYTES = 1580;
/** Most connections per chunk group row. */
export const CHUNK_GROUP_MAX = 64;
/** The idle duration's slot: the first value of a sample, encoded as a delta of deltas (the others as deltas). */
const IDLE = FAST.idleDuration;

function addExact(a: Num, b: Num): Num {
  if (typeof a === 'number' && typeof b === 'number') {
    const s = a + b;
    return s < 2 ** 51 && s > -(2 ** 51) ? s : BigInt(s);
  }
  return normal(toBig(a) + toBig(b));
}

/** Appends a chunk: one connection's samples at the given batch sequence numbers (ascending). */
export function writeChunk(w: ByteWriter, seqs: readonly number[], samples: readonly FastSample[]): void {
  w.uint(samples.length);
  let prevSeq = -1;
  for (const s of seqs) {
    w.uint(s - prevSeq - 1);
    prevSeq = s;
  }
  const prev: Num[] = new Array<Num>(FAST_FIELDS).fill(0);
  let prevIdleDelta: Num = 0;
  const enc: Num[] = new Array<Num>(FAST_FIELDS);
  samples.forEach((s, k) => {
    let flags = tailFlags(s);
    const idleDelta = subNum(s.v[IDLE]!, prev[IDLE]!);
    enc[IDLE] = k < 2 ? idleDelta : subNum(idleDelta, prevIdleDelta);
    prevIdleDelta = idleDelta;
    for (let i = IDLE + 1; i < FAST_FIELDS; i++) enc[i] = subNum(s.v[i]!, prev[i]!);
    for (let i = 0; i < FAST_FIELDS; i++) {
      if (!isZero(enc[i]!)) flags |= 8 << i;
      prev[i] = s.v[i]!;
    }
    w.uint(flags);
    for (let i = 0; i < FAST_FIELDS; i++) if (flags & (8 << i)) w.num(enc[i]!);
    writeTail(w, s);
  });
}

/** Reads the chunk at the reader's position: every sample, or up to sequence number `until`. */
export function readChunk(r: ByteReader, until = Infinity): { seqs: number[]; samples: FastSample[] } {
  const n = r.count();
  const seqs = new Array<number>(n);
  let seq = -1;
  for (let i = 0; i < n; i++) {
    seq += r.uint() + 1;
    seqs[i] = seq;
  }
  const samples: FastSample[] = [];
  let prev: Num[] = new Array<Num>(FAST_FIELDS).fill(0);
  let prevIdleDelta: Num = 0;
  for (let k = 0; k < n && seqs[k]! <= until; k++) {
    const flags = r.uint();
    const v = new Array<Num>(FAST_FIELDS);
    for (let i = 0; i < FAST_FIELDS; i++) {
      const d = flags & (8 << i) ? r.num() : 0;
      if (i === IDLE) {
        const idleDelta: Num = k < 2 ? d : addExact(d, prevIdleDelta);
        prevIdleDelta = idleDelta;
        v[IDLE] = addExact(prev[IDLE]!, idleDelta);
      } else {
        v[i] = d === 0 ? prev[i]! : addExact(prev[i]!, d);
      }
    }
    samples.push(readTail(r, v, flags & TAIL_FLAGS));
    prev = v;
  }
  return { seqs: seqs.slice(0, samples.length), samples };
}

/**
 * The sample at sequence number `seq` of the chunk at the reader's position, decoding only up to
 * it, written into `slot` (which the caller reuses from row to row); undefined when the chunk has
 * no sample there.
 */
export function readSampleAt(r: ByteReader, seq: number, slot: SampleSlot = sampleSlot()): SampleSlot | undefined {
  const n = r.count();
  let at = -1;
  let s = -1;
  for (let i = 0; i < n; i++) {
    s += r.uint() + 1;
    if (s === seq) at = i;
  }
  if (at < 0) return undefined;
  const v = slot.v;
  v.fill(0);
  let prevIdleDelta: Num = 0;
  for (let k = 0; ; k++) {
    const flags = r.uint();
    for (let i = 0; i < FAST_FIELDS; i++) {
      const d = flags & (8 << i) ? r.num() : 0;
      if (i === IDLE) {
        const idleDelta: Num = k < 2 ? d : addExact(d, prevIdleDelta);
        prevIdleDelta = idleDelta;
        v[IDLE] = addExact(v[IDLE]!, idleDelta);
      } else if (d !== 0) {
        v[i] = addExact(v[i]!, d);
      }
    }
    if (k === at) return readTailInto(r, slot, flags & TAIL_FLAGS);
    skipTail(r, flags);
  }
}

const seqScratch: number[] = [];

/** Idle durations of many samples by index, and where their in-flight lists are, as scanChunkIdle fills them. */
export interface IdleSamples {
  /** 1 where a sample was read */
  present: Uint8Array;
  /** idle durations that are numbers (below 2^51) */
  idle: Float64Array;
  /** idle durations that are bigints */
  readonly bigIdle: Map<number, bigint>;
  /** 1 + the offset of the sample's in-flight list in its group's data (readInFlightAt), or 0 when it has none */
  inFlightAt: Int32Array;
  /** the index of that group among those scanned (the `group` argument of scanChunkIdle) */
  inFlightGroup: Int32Array;
}

/**
 * Reads one connection's chunk of a group for scans that need no counters: each sample's idle
 * duration and the place of its in-flight list go to index `base + seq` of `into` (`seq` below
 * `stride`; `group` names the group there); the other values and the unknown fields are skipped.
 * Varints are read straight from the bytes, and idle durations computed in plain numbers while
 * they stay below 2^51 (as they do but for durations of years); otherwise the chunk is read
 * again exactly.
 */
export function scanChunkIdle(
  g: ChunkGroup,
  group: number,
  k: number,
  into: IdleSamples,
  base: number,
  stride: number,
): void {
  if (!scanSamples(g, group, k, into, base, stride, false)) scanSamples(g, group, k, into, base, stride, true);
}

const SAFE = 2 ** 51;

/** scanChunkIdle in plain numbers (false as soon as a value does not fit), or `exact` with Nums. */
function scanSamples(
  g: ChunkGroup,
  group: number,
  k: number,
  into: IdleSamples,
  base: number,
  stride: number,
  exact: boolean,
): boolean {
  const buf = g.data;
  const r = g.reader;
  const { present, idle: idleOut } = into;
  let p = g.starts[k]!;
  let n = buf[p++]!;
  if (n >= 128) {
    r.pos = p - 1;
    n = r.uint();
    p = r.pos;
  }
  // a sample takes a byte at least: a larger count is damage (and would loop on bytes past the end)
  if (!(n <= buf.length - p))
    throw new CorruptDataError(
      `the chunk of connection ${g.entities[k]} counts ${n} samples in ${buf.length - p} bytes`,
    );
  const seqs = seqScratch;
  let seq = -1;
  for (let i = 0; i < n; i++) {
    let gap = buf[p++]!;
    if (gap >= 128) {
      r.pos = p - 1;
      gap = r.uint();
      p = r.pos;
    }
    seq += gap + 1;
    if (!(seq < stride))
      throw new CorruptDataError(
        `chunk of connection ${g.entities[k]}: sample ${seq} beyond the batch's ${stride} frames`,
      );
    seqs[i] = seq;
  }
  let idle = 0;
  let idleDelta = 0;
  let idleExact: Num = 0;
  let idleDeltaExact: Num = 0;
  for (let s = 0; s < n; s++) {
    let flags = buf[p++]!;
    if (flags >= 128) flags = (flags & 127) | (buf[p++]! << 7); // 13 flag bits: two bytes at most
    let d = 0;
    let dExact: Num = 0;
    if (flags & 8) {
      // the idle value's zigzag varint: up to 7 bytes (49 bits) in plain arithmetic
      const start = p;
      let byte = buf[p++]!;
      let z = byte & 127;
      let mul = 128;
      while (byte >= 128 && p - start < 7) {
        byte = buf[p++]!;
        z += (byte & 127) * mul;
        mul *= 128;
      }
      if (byte < 128) d = z % 2 === 0 ? z / 2 : -(z + 1) / 2;
      else if (!exact) return false;
      if (exact) {
        r.pos = start;
        dExact = r.num();
        p = r.pos;
      }
    }
    const at = base + seqs[s]!;
    if (exact) {
      if (s < 2) idleDeltaExact = dExact;
      else if (dExact !== 0) idleDeltaExact = addExact(dExact, idleDeltaExact);
      idleExact = addExact(idleExact, idleDeltaExact);
      if (typeof idleExact === 'number') idleOut[at] = idleExact;
      else into.bigIdle.set(at, idleExact);
    } else {
      idleDelta = s < 2 ? d : d + idleDelta;
      idle += idleDelta;
      if (!(idleDelta < SAFE && idleDelta > -SAFE && idle < SAFE && idle > -SAFE)) return false;
      idleOut[at] = idle;
    }
    present[at] = 1;
    // values 1..8 (counters) are skipped: as many varints as flag bits 4..11, each ending at a byte below 128
    let m = (flags >> 4) & 0xff;
    m -= (m >> 1) & 0x55;
    m = (m & 0x33) + ((m >> 2) & 0x33);
    m = (m + (m >> 4)) & 0x0f;
    while (m > 0) m -= 1 - (buf[p++]! >> 7);
    if (flags & (INFLIGHT | EXTRA | ABSENT)) {
      if (flags & INFLIGHT) {
        into.inFlightAt[at] = p + 1;
        into.inFlightGroup[at] = group;
      }
      r.pos = p;
      skipTail(r, flags);
      p = r.pos;
    }
  }
  if (p > buf.length)
    throw new CorruptDataError(`the chunk of connection ${g.entities[k]} runs past the end of its group`);
  return true;
}

/** Sampled in-flight requests, flattened: API keys and durations (exact: numbers below 2^51, bigints beyond). */
export interface InFlightColumns {
  readonly apiKeys: number[];
  readonly durations: Num[];
}

/** Appends the in-flight list at an offset of a chunk group's data (as scanChunkIdle recorded it) to `out`. */
export function readInFlightAt(g: ChunkGroup, offset: number, out: InFlightColumns): void {
  const buf = g.data;
  let p = offset;
  const count = buf[p++]!;
  if (count >= 128) return readInFlightSlowly(g.reader, offset, out);
  // apiKey: a one-byte zigzag varint in practice; the duration: up to 7 bytes in plain arithmetic
  for (let i = 0; i < count; i++) {
    if (buf[p]! >= 128) return readInFlightSlowly(g.reader, offset, out, i);
    let end = p + 1;
    let byte = buf[end++]!;
    let z = byte & 127;
    let mul = 128;
    while (byte >= 128 && end - p < 8) {
      byte = buf[end++]!;
      z += (byte & 127) * mul;
      mul *= 128;
    }
    if (byte >= 128) return readInFlightSlowly(g.reader, offset, out, i);
    const key = buf[p]!;
    out.apiKeys.push(key & 1 ? -(key + 1) / 2 : key / 2);
    out.durations.push(z % 2 === 0 ? z / 2 : -(z + 1) / 2);
    p = end;
  }
}

/** readInFlightAt through the reader, from the list's `skip`-th request on (those before it were appended). */
function readInFlightSlowly(r: ByteReader, offset: number, out: InFlightColumns, skip = 0): void {
  r.pos = offset;
  const count = r.uint();
  for (let i = 0; i < count; i++) {
    const apiKey = r.int();
    const duration = r.num();
    if (i < skip) continue;
    out.apiKeys.push(apiKey);
    out.durations.push(duration);
  }
}

/** Encodes chunks of connections (ascending ids) into groups that fit a payload budget (CHUNK_GROUP_BYTES). */
export function encodeChunkGroups(
  entities: readonly number[],
  chunkOfEntity: (entity: number) => { seqs: number[]; samples: FastSample[] },
  budget = CHUNK_GROUP_BYTES,
): { first: number; data: Buffer }[] {
  const out: { first: number; data: Buffer }[] = [];
  // the group's chunks back to back in one writer (a seal encodes a chunk for each of 10,000 and
  // more connections: no buffer of its own for each); a chunk that does not fit moves to the next group
  const body = new ByteWriter(Math.max(256, budget * 2));
  let ids: number[] = [];
  let lengths: number[] = [];
  let size = 0;
  const flush = (end: number): void => {
    if (ids.length > 0) out.push({ first: ids[0]!, data: encodeGroup(ids, lengths, body.view(0, end)) });
    body.drop(end);
    ids = [];
    lengths = [];
    size = 0;
  };
  for (const e of entities) {
    const c = chunkOfEntity(e);
    const start = body.length;
    writeChunk(body, c.seqs, c.samples);
    const length = body.length - start;
    if (ids.length > 0 && (size + length + 8 > budget || ids.length >= CHUNK_GROUP_MAX)) flush(start);
    ids.push(e);
    lengths.push(length);
    size += length + 4;
  }
  flush(body.length);
  return out;
}

/** A group: its entity count, entity ids (delta-coded), chunk lengths, then the chunks (`chunks`, back to back). */
function encodeGroup(entities: readonly number[], lengths: readonly number[], chunks: Uint8Array): Buffer {
  const w = new ByteWriter(16 + 6 * lengths.length + chunks.length);
  w.uint(entities.length);
  let prev = 0;
  for (const e of entities) {
    w.uint(e - prev);
    prev = e;
  }
  for (const n of lengths) w.uint(n);
  w.bytes(chunks);
  return w.finish();
}

/** The directory of a chunk group: its entities and where each one's chunk starts. */
export interface ChunkGroup {
  readonly data: Uint8Array;
  readonly entities: number[];
  readonly starts: number[];
  /** one reader over `data`, repositioned for each chunk read */
  readonly reader: ByteReader;
}

/** Reads a chunk group's directory. */
export function readChunkGroup(data: Uint8Array): ChunkGroup {
  const r = new ByteReader(data);
  const n = r.count(2);
  const entities = new Array<number>(n);
  let e = 0;
  for (let i = 0; i < n; i++) entities[i] = e += r.uint();
  // chunk lengths, turned into start offsets: the chunks follow the lengths
  const starts = new Array<number>(n);
  for (let i = 0; i < n; i++) starts[i] = r.uint();
  let p = r.pos;
  for (let i = 0; i < n; i++) {
    const length = starts[i]!;
    starts[i] = p;
    p += length;
  }
  if (p > data.length) throw new CorruptDataError(`the chunks of a group end at byte ${p} of its ${data.length}`);
  return { data, entities, starts, reader: r };
}

/** The group's reader positioned at one entity's chunk, or undefined when it has none. */
export function chunkOf(g: ChunkGroup, entity: number): ByteReader | undefined {
  const i = indexOfSorted(g.entities, entity);
  if (i < 0) return undefined;
  g.reader.pos = g.starts[i]!;
  return g.reader;
}

/** The index of `value` among the first `length` items of an ascending list, or -1 (binary search). */
export function indexOfSorted(list: ArrayLike<number>, value: number, length = list.length): number {
  let lo = 0;
  let hi = length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const e = list[mid]!;
    if (e === value) return mid;
    if (e < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/**
 * The chunks of a whole batch as one directory: the batch's chunk groups concatenated in
 * first-entity order (one blob from SQLite instead of a row per group), with every entity and
 * where its chunk starts in two flat arrays (entities ascend across groups).
 */
export interface BatchChunks {
  readonly entities: Float64Array;
  readonly starts: Float64Array;
  /** one reader over the blob, repositioned for each chunk read */
  readonly reader: ByteReader;
}

/** The directory of a batch's concatenated chunk groups (see BatchChunks). */
export function readBatchChunks(data: Uint8Array): BatchChunks {
  const r = new ByteReader(data);
  // pass 1: count the entities, skipping each group's chunks
  let total = 0;
  while (!r.atEnd()) {
    const n = r.count(2);
    for (let i = 0; i < n; i++) r.uint();
    let bytes = 0;
    for (let i = 0; i < n; i++) bytes += r.uint();
    r.pos += bytes;
    total += n;
  }
  if (r.pos !== data.length)
    throw new CorruptDataError(`chunk groups overrun their blob (${r.pos} of ${data.length} bytes)`);
  // pass 2: fill the directory
  const entities = new Float64Array(total);
  const starts = new Float64Array(total);
  r.pos = 0;
  let k = 0;
  let last = -1;
  while (!r.atEnd()) {
    const n = r.uint();
    let e = 0;
    for (let i = 0; i < n; i++) {
      e += r.uint();
      // the binary search in chunkIn needs one ascending list
      if (e <= last) throw new CorruptDataError(`chunk groups of a batch out of entity order (${e} after ${last})`);
      entities[k + i] = last = e;
    }
    for (let i = 0; i < n; i++) starts[k + i] = r.uint(); // lengths for now
    let p = r.pos;
    for (let i = 0; i < n; i++) {
      const length = starts[k + i]!;
      starts[k + i] = p;
      p += length;
    }
    r.pos = p;
    k += n;
  }
  return { entities, starts, reader: r };
}

/** The batch's reader positioned at one entity's chunk, or undefined when it has none. */
export function chunkIn(b: BatchChunks, entity: number): ByteReader | undefined {
  const i = indexOfSorted(b.entities, entity);
  if (i < 0) return undefined;
  b.reader.pos = b.starts[i]!;
  return b.reader;
}
