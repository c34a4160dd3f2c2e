/**
 * How a Kafka connection is split for storage and put back together: identity (immutable),
 * slow attributes (versions), fast values (samples, binary), and unknown fields by path.
 * Head entries hold absolute samples of an open batch; chunks hold one connection's samples
 * over a sealed batch, delta-encoded (docs/storage.md describes both byte layouts). Fields absent
 * on the wire are kept too (presence.ts): slow ones with the version, fast ones per sample.
 */
import { stringifyJson, type JsonValue } from '../../api/codec/lossless-json.ts';
import type { KafkaConnection } from '../../api/schema/connection.ts';
import { ByteReader, ByteWriter, type Num } from '../encoding/bytes.ts';
import { A_ITEMS, fastAbsentMask, itemMasks, slowAbsent } from './presence.ts';

/** Fast numeric fields, in storage order: idle first, then totals, then recent statistics. */
export const FAST_FIELDS = 9;
/** Named slots of a sample's values (FastSample.v), in storage order. */
export const FAST = {
  idleDuration: 0,
  total: { fetchBytes: 1, produceBatchCount: 2, produceBytes: 3, requestCount: 4 },
  recent: { fetchBytes: 5, produceBatchCount: 6, produceBytes: 7, requestCount: 8 },
} as const;
/** Flag bits of a sample (bits 0..2 and 12; the chunk form adds bits 3..11 for non-zero deltas). */
export const HAS_MORE = 1;
/** Flag: the sample has sampled in-flight requests. */
export const INFLIGHT = 2;
/** Flag: the sample has unknown fields (extra JSON). */
export const EXTRA = 4;
/** Flag: some fast field was absent on the wire (a presence mask follows the in-flight list). */
export const ABSENT = 1 << 12;
/** The flag bits that say what follows a sample's values (the same in head and chunk form). */
export const TAIL_FLAGS = HAS_MORE | INFLIGHT | EXTRA | ABSENT;

/** The fast part of one connection row. */
export interface FastSample {
  /** idle, total fetchBytes/produceBatchCount/produceBytes/requestCount, recent (same four): read them by FAST slot */
  readonly v: Num[];
  readonly hasMore: boolean;
  /** sampled in-flight requests as [apiKey, inFlightDuration] */
  readonly inflight: readonly (readonly [number, Num])[] | undefined;
  /** JSON of unknown fields inside the fast parts, by path */
  readonly extra: string | undefined;
  /** fast fields absent on the wire (presence.ts); 0 when all were present */
  readonly absent: number;
  /** with A_ITEMS in `absent`: per sampled request, its absent fields (bit 0 apiKey, bit 1 inFlightDuration) */
  readonly items: readonly number[] | undefined;
}

/**
 * Unknown fields of a connection's slow parts as JSON by path, with the slow fields absent on
 * the wire under `#absent` (by path), or undefined when there is neither (the common case).
 */
export function slowUnknown(c: KafkaConnection): string | undefined {
  const absent = slowAbsent(c);
  if (
    absent === undefined &&
    c.$unknown === undefined &&
    c.authenticationInfo.$unknown === undefined &&
    c.source.$unknown === undefined &&
    c.tlsInfo.$unknown === undefined
  ) {
    return undefined;
  }
  const out: Record<string, JsonValue> = {};
  if (c.$unknown !== undefined) out[''] = c.$unknown;
  if (c.authenticationInfo.$unknown !== undefined) out.authenticationInfo = c.authenticationInfo.$unknown;
  if (c.source.$unknown !== undefined) out.source = c.source.$unknown;
  if (c.tlsInfo.$unknown !== undefined) out.tlsInfo = c.tlsInfo.$unknown;
  if (absent !== undefined) out['#absent'] = absent as Record<string, string[]>;
  return stringifyJson(out);
}

function fastExtra(c: KafkaConnection): string | undefined {
  const f = c.inFlightRequests;
  let items = false;
  for (const r of f.sampledInFlightRequests) if (r.$unknown !== undefined) items = true;
  if (
    !items &&
    f.$unknown === undefined &&
    c.totalRequestStatistics.$unknown === undefined &&
    c.recentRequestStatistics.$unknown === undefined
  ) {
    return undefined;
  }
  const out: Record<string, JsonValue> = {};
  if (c.totalRequestStatistics.$unknown !== undefined) out.totalRequestStatistics = c.totalRequestStatistics.$unknown;
  if (c.recentRequestStatistics.$unknown !== undefined)
    out.recentRequestStatistics = c.recentRequestStatistics.$unknown;
  if (f.$unknown !== undefined) out.inFlightRequests = f.$unknown;
  f.sampledInFlightRequests.forEach((r, i) => {
    if (r.$unknown !== undefined) out[`sampled.${i}`] = r.$unknown;
  });
  return stringifyJson(out);
}

/** Writes one head entry: entity id and the connection's absolute fast values. */
export function writeHeadEntry(w: ByteWriter, entity: number, c: KafkaConnection): void {
  const t = c.totalRequestStatistics;
  const r = c.recentRequestStatistics;
  const inflight = c.inFlightRequests.sampledInFlightRequests;
  const extra = fastExtra(c);
  const absent = fastAbsentMask(c);
  w.uint(entity);
  w.uint(
    (c.inFlightRequests.hasMoreRequests ? HAS_MORE : 0) |
      (inflight.length > 0 ? INFLIGHT : 0) |
      (extra !== undefined ? EXTRA : 0) |
      (absent !== 0 ? ABSENT : 0),
  );
  w.big(c.idleDuration);
  w.big(t.fetchBytes);
  w.big(t.produceBatchCount);
  w.big(t.produceBytes);
  w.big(t.requestCount);
  w.big(r.fetchBytes);
  w.big(r.produceBatchCount);
  w.big(r.produceBytes);
  w.big(r.requestCount);
  if (inflight.length > 0) {
    w.uint(inflight.length);
    for (const q of inflight) {
      w.int(q.apiKey);
      w.big(q.inFlightDuration);
    }
  }
  if (absent !== 0) writeAbsent(w, absent, absent & A_ITEMS ? itemMasks(c) : undefined);
  if (extra !== undefined) w.string(extra);
}

/** Writes a presence mask (and, with A_ITEMS, one mask per sampled request). */
function writeAbsent(w: ByteWriter, absent: number, items: readonly number[] | undefined): void {
  w.uint(absent);
  if (items !== undefined) for (const m of items) w.uint(m);
}

/** Reads the presence mask and item masks written by writeAbsent (`count`: sampled requests). */
function readAbsent(r: ByteReader, count: number): { absent: number; items: number[] | undefined } {
  const absent = r.uint();
  let items: number[] | undefined;
  if (absent & A_ITEMS) {
    items = new Array<number>(count);
    for (let i = 0; i < count; i++) items[i] = r.uint();
  }
  return { absent, items };
}

/** Reads one head entry written by writeHeadEntry. */
export function readHeadEntry(r: ByteReader): { entity: number; sample: FastSample } {
  const entity = r.uint();
  const flags = r.uint();
  const v: Num[] = new Array<Num>(FAST_FIELDS);
  for (let i = 0; i < FAST_FIELDS; i++) v[i] = r.num();
  return { entity, sample: readTail(r, v, flags) };
}

/**
 * Moves a reader past one head entry and returns its entity id: the same reads as
 * readHeadEntry (so the same entries fail), without building the sample.
 */
export function skipHeadEntry(r: ByteReader): number {
  const entity = r.uint();
  const flags = r.uint();
  for (let i = 0; i < FAST_FIELDS; i++) r.num();
  let n = 0;
  if (flags & INFLIGHT) {
    n = r.count(2);
    for (let i = 0; i < n; i++) {
      r.int();
      r.num();
    }
  }
  if (flags & ABSENT) readAbsent(r, n);
  if (flags & EXTRA) r.string();
  return entity;
}

/** Reads the in-flight list, presence mask and extra JSON that follow a sample's values. */
export function readTail(r: ByteReader, v: Num[], flags: number): FastSample {
  let inflight: [number, Num][] | undefined;
  if (flags & INFLIGHT) {
    const n = r.count(2);
    inflight = new Array<[number, Num]>(n);
    for (let i = 0; i < n; i++) inflight[i] = [r.int(), r.num()];
  }
  const { absent, items } = flags & ABSENT ? readAbsent(r, inflight?.length ?? 0) : NOTHING_ABSENT;
  const extra = flags & EXTRA ? r.string() : undefined;
  return { v, hasMore: (flags & HAS_MORE) !== 0, inflight, extra, absent, items };
}

const NOTHING_ABSENT = { absent: 0, items: undefined };

type InFlightRequest = KafkaConnection['inFlightRequests']['sampledInFlightRequests'][number];

/**
 * A sample that a reader fills again for each row (valid until the next read). Its sampled
 * in-flight requests come as the row's objects (`requests`), not as `inflight` pairs.
 */
export interface SampleSlot extends FastSample {
  readonly v: Num[];
  hasMore: boolean;
  inflight: undefined;
  extra: string | undefined;
  absent: number;
  items: number[] | undefined;
  /** the sampled in-flight requests as a row holds them (without unknown fields) */
  requests: InFlightRequest[] | undefined;
}

/** An empty SampleSlot. */
export function sampleSlot(): SampleSlot {
  return {
    v: new Array<Num>(FAST_FIELDS).fill(0),
    hasMore: false,
    inflight: undefined,
    extra: undefined,
    absent: 0,
    items: undefined,
    requests: undefined,
  };
}

/** readTail into a slot whose `v` already holds the values: nothing allocated unless in-flight requests are sampled. */
export function readTailInto(r: ByteReader, slot: SampleSlot, flags: number): SampleSlot {
  let requests: InFlightRequest[] | undefined;
  if (flags & INFLIGHT) {
    const n = r.count(2);
    requests = new Array<InFlightRequest>(n);
    for (let i = 0; i < n; i++) requests[i] = { apiKey: r.int(), inFlightDuration: big(r.num()) };
  }
  slot.requests = requests;
  if (flags & ABSENT) {
    const a = readAbsent(r, requests?.length ?? 0);
    slot.absent = a.absent;
    slot.items = a.items;
  } else {
    slot.absent = 0;
    slot.items = undefined;
  }
  slot.extra = flags & EXTRA ? r.string() : undefined;
  slot.hasMore = (flags & HAS_MORE) !== 0;
  return slot;
}

/** Writes the in-flight list, presence mask and extra JSON that follow a sample's values. */
export function writeTail(w: ByteWriter, s: FastSample): void {
  if (s.inflight !== undefined) {
    w.uint(s.inflight.length);
    for (const [k, d] of s.inflight) {
      w.int(k);
      w.num(d);
    }
  }
  if (s.absent !== 0) writeAbsent(w, s.absent, s.items);
  if (s.extra !== undefined) w.string(s.extra);
}

/** The flag bits of a sample's tail (what writeTail writes after its values). */
export function tailFlags(s: FastSample): number {
  return (
    (s.hasMore ? HAS_MORE : 0) |
    (s.inflight !== undefined ? INFLIGHT : 0) |
    (s.extra !== undefined ? EXTRA : 0) |
    (s.absent !== 0 ? ABSENT : 0)
  );
}

/** Moves a reader past a sample's tail (in-flight list, presence mask, extra JSON). */
export function skipTail(r: ByteReader, flags: number): void {
  let count = 0;
  if (flags & INFLIGHT) {
    count = r.uint();
    for (let i = 0; i < count; i++) {
      r.uint();
      r.uint();
    }
  }
  if ((flags & ABSENT) !== 0 && (r.uint() & A_ITEMS) !== 0) for (let i = 0; i < count; i++) r.uint();
  if (flags & EXTRA) {
    const head = r.uint();
    const n = Math.floor(head / 2);
    if (head % 2 === 0) r.pos += n;
    else for (let i = 0; i < n; i++) r.uint();
  }
}

/** bigints 0..1023, shared: counters and recent statistics are often small (a bigint is immutable, sharing is invisible) */
const SMALL_BIGINTS: readonly bigint[] = Array.from({ length: 1024 }, (_, i) => BigInt(i));
/** A Num as a bigint, small ones shared. */
export const big = (v: Num): bigint => (typeof v === 'bigint' ? v : v >= 0 && v < 1024 ? SMALL_BIGINTS[v]! : BigInt(v));

/** Head blob: entries in answer order, then a u32 offset every 64 entries, then the entry count. */
export const HEAD_STRIDE = 64;
