/**
 * Reading the cumulative totals (`totalRequestStatistics`) of a sealed batch's chunks, for
 * counter trends: per connection chunk, the values of the counters asked for at each sample,
 * summed from their deltas; every other value (the idle time, the other counters, the recent
 * statistics) and the samples' tails (in-flight lists, presence masks, unknown fields) are
 * skipped. First in plain numbers, varints read straight from the bytes, while every value stays
 * below 2^51 (as counters do but after petabytes); else exactly, numbers and bigints.
 */
import { normal, toBig, type Num } from '../encoding/bytes.ts';
import { CorruptDataError } from '../errors.ts';
import type { ChunkGroup } from './chunk.ts';
import { ABSENT, EXTRA, FAST_FIELDS, INFLIGHT, skipTail } from './codec.ts';

/** What a batch's chunks are read for: the counters asked for (FAST slots `slots`), each sample at index `base + seq`. */
export interface TotalsTarget {
  readonly stride: number;
  /** the last sequence wanted: the samples after it are not read */
  readonly last: number;
  readonly slots: readonly number[];
  /** the slots asked for, ascending, each once */
  readonly fields: readonly number[];
  readonly present: Uint8Array;
}

/** The TotalsTarget of a batch. */
export function totalsTarget(
  stride: number,
  last: number,
  slots: readonly number[],
  present: Uint8Array,
): TotalsTarget {
  return { stride, last, slots, fields: [...new Set(slots)].sort((a, b) => a - b), present };
}

const SAFE = 2 ** 51;
/** Sample sequences of the chunk being read (grown as needed). */
let seqScratch = new Int32Array(64);
/** Running values of the chunk being read, by FAST slot. */
const cur = new Float64Array(FAST_FIELDS);

/** The sequences of a chunk's samples, from `p` (after its count): into seqScratch; returns the position after them. */
function readSeqs(g: ChunkGroup, k: number, p: number, n: number, stride: number): number {
  const buf = g.data;
  const r = g.reader;
  if (seqScratch.length < n) seqScratch = new Int32Array(Math.max(n, seqScratch.length * 2));
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
    if (!(seq < stride)) {
      throw new CorruptDataError(
        `chunk of connection ${g.entities[k]}: sample ${seq} beyond the batch's ${stride} frames`,
      );
    }
    seqs[i] = seq;
  }
  return p;
}

/** The number of set bits of each 9-bit mask (the value flags of a sample). */
const BITS = Uint8Array.from({ length: 512 }, (_, m) => {
  let n = 0;
  for (let b = m; b > 0; b >>= 1) n += b & 1;
  return n;
});

/**
 * Reads connection `k`'s chunk of a group in plain numbers into `values` (one array per counter
 * asked for): false, with nothing left half-done that matters, as soon as a value does not fit
 * below 2^51 (the caller then reads the batch with readTotalsExact).
 */
export function readTotalsFast(
  g: ChunkGroup,
  k: number,
  base: number,
  t: TotalsTarget,
  values: readonly Float64Array[],
): boolean {
  const buf = g.data;
  const r = g.reader;
  r.pos = g.starts[k]!;
  const n = r.count();
  let p = readSeqs(g, k, r.pos, n, t.stride);
  const seqs = seqScratch;
  const slots = t.slots;
  const wanted = t.fields;
  cur.fill(0);
  for (let s = 0; s < n; s++) {
    const seq = seqs[s]!;
    if (seq > t.last) break;
    let flags = buf[p++]!;
    if (flags >= 128) flags = (flags & 127) | (buf[p++]! << 7); // 13 flag bits: two bytes at most
    const set = (flags >> 3) & 0x1ff; // a varint follows for each value slot whose bit is set
    let from = 0;
    for (let w = 0; w < wanted.length; w++) {
      const slot = wanted[w]!;
      // the varints of the slots before it that are not asked for: each ends at a byte below 128
      let m = BITS[set & ((1 << slot) - 1) & ~((1 << from) - 1)]!;
      while (m > 0) m -= 1 - (buf[p++]! >> 7);
      from = slot + 1;
      if ((set & (1 << slot)) === 0) continue;
      // a zigzag varint of up to 7 bytes (49 bits) in plain arithmetic
      const start = p;
      let byte = buf[p++]!;
      let z = byte & 127;
      let mul = 128;
      while (byte >= 128 && p - start < 7) {
        byte = buf[p++]!;
        z += (byte & 127) * mul;
        mul *= 128;
      }
      if (!(byte < 128)) return false;
      const v = cur[slot]! + (z % 2 === 0 ? z / 2 : -(z + 1) / 2);
      if (!(v < SAFE && v > -SAFE)) return false;
      cur[slot] = v;
    }
    let m = BITS[set & ~((1 << from) - 1)]!;
    while (m > 0) m -= 1 - (buf[p++]! >> 7);
    if (flags & (INFLIGHT | EXTRA | ABSENT)) {
      r.pos = p;
      skipTail(r, flags);
      p = r.pos;
    }
    if (!(p <= buf.length)) return false; // read again exactly, which names the damage
    const at = base + seq;
    t.present[at] = 1;
    for (let c = 0; c < slots.length; c++) values[c]![at] = cur[slots[c]!]!;
  }
  return true;
}

/**
 * Reads connection `k`'s chunk of a group exactly into `values` (one array per counter asked
 * for): the values are deltas from the previous sample, summed exactly (numbers below 2^51,
 * bigints beyond); the other values are skipped byte by byte, as are the samples' tails.
 */
export function readTotalsExact(
  g: ChunkGroup,
  k: number,
  base: number,
  t: TotalsTarget,
  values: readonly Num[][],
): void {
  const buf = g.data;
  const r = g.reader;
  r.pos = g.starts[k]!;
  const n = r.count();
  let p = readSeqs(g, k, r.pos, n, t.stride);
  const seqs = seqScratch;
  const slots = t.slots;
  let wanted = 0;
  for (const slot of slots) wanted |= 1 << slot;
  const exact = new Array<Num>(FAST_FIELDS).fill(0);
  for (let s = 0; s < n; s++) {
    const seq = seqs[s]!;
    if (seq > t.last) break;
    let flags = buf[p++]!;
    if (flags >= 128) flags = (flags & 127) | (buf[p++]! << 7);
    for (let i = 0; i < FAST_FIELDS; i++) {
      if ((flags & (8 << i)) === 0) continue;
      if ((wanted & (1 << i)) === 0) {
        while (buf[p++]! >= 128); // a varint not asked for: to the byte below 128 (or past the end, checked below)
        continue;
      }
      r.pos = p;
      const d = r.num();
      p = r.pos;
      if (d !== 0) exact[i] = addExact(exact[i]!, d);
    }
    if (flags & (INFLIGHT | EXTRA | ABSENT)) {
      r.pos = p;
      skipTail(r, flags);
      p = r.pos;
    }
    if (!(p <= buf.length)) throw new CorruptDataError(`the chunk of connection ${g.entities[k]} runs past its group`);
    const at = base + seq;
    t.present[at] = 1;
    for (let c = 0; c < slots.length; c++) values[c]![at] = exact[slots[c]!]!;
  }
}

/** `a + b` exactly (numbers stay numbers while below 2^51). */
function addExact(a: Num, b: Num): Num {
  if (typeof a === 'number' && typeof b === 'number') {
    const s = a + b;
    if (s < SAFE && s > -SAFE) return s;
  }
  return normal(toBig(a) + toBig(b));
}
