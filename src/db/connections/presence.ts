/**
 * Which fields of a connection row were absent on the wire, in the forms the store keeps: the
 * slow parts' absent names go with the version's side JSON (`#absent`, by path), the fast parts'
 * as a bit mask in the sample (docs/storage.md, "Presence"). A row the server wrote whole, the
 * common case, has neither: no byte is spent on presence.
 */
import { KafkaConnection as KafkaConnectionSchema, type KafkaConnection } from '../../api/schema/connection.ts';
import type { AbsentFields } from '../../api/schema/fields.ts';

/** Fast mask bit: idleDuration absent. */
export const A_IDLE = 1 << 0;
/** Fast mask bit: totalRequestStatistics absent (bits 2..5: its four counters). */
export const A_TOTAL = 1 << 1;
const TOTAL_SHIFT = 2;
/** Fast mask bit: recentRequestStatistics absent (bits 7..10: its four counters). */
export const A_RECENT = 1 << 6;
const RECENT_SHIFT = 7;
/** Fast mask bit: inFlightRequests absent. */
export const A_INFLIGHT = 1 << 11;
/** Fast mask bit: inFlightRequests.hasMoreRequests absent. */
export const A_HAS_MORE = 1 << 12;
/** Fast mask bit: inFlightRequests.sampledInFlightRequests absent. */
export const A_SAMPLED = 1 << 13;
/** Fast mask bit: some sampled request has absent fields (one mask per request follows). */
export const A_ITEMS = 1 << 14;

const STATS = ['fetchBytes', 'produceBatchCount', 'produceBytes', 'requestCount'] as const;
const ITEM = ['apiKey', 'inFlightDuration'] as const;
const FAST_TOP = new Set(['idleDuration', 'inFlightRequests', 'recentRequestStatistics', 'totalRequestStatistics']);
/** Field order of a connection, for merging slow and fast absent names into schema order. */
const ORDER = new Map(Object.keys(KafkaConnectionSchema.fields).map((name, i) => [name, i]));

/** Frozen name lists for every subset of `names` (bit i = names[i]), shared by every row. */
function subsets(names: readonly string[]): readonly (AbsentFields | undefined)[] {
  return Array.from({ length: 1 << names.length }, (_, bits) =>
    bits === 0 ? undefined : Object.freeze(names.filter((_, i) => (bits & (1 << i)) !== 0)),
  );
}
const STAT_LISTS = subsets(STATS);
const ITEM_LISTS = subsets(ITEM);
const INFLIGHT_LISTS = subsets(['hasMoreRequests', 'sampledInFlightRequests']);

function bitsOf(absent: AbsentFields | undefined, names: readonly string[]): number {
  if (absent === undefined) return 0;
  let bits = 0;
  names.forEach((name, i) => {
    if (absent.includes(name)) bits |= 1 << i;
  });
  return bits;
}

/** The fast presence mask of a row: 0 when every fast field is present (the server's style). */
export function fastAbsentMask(c: KafkaConnection): number {
  const f = c.inFlightRequests;
  const t = c.totalRequestStatistics.$absent;
  const r = c.recentRequestStatistics.$absent;
  let m = 0;
  if (c.$absent !== undefined) {
    const top = c.$absent;
    if (top.includes('idleDuration')) m |= A_IDLE;
    if (top.includes('totalRequestStatistics')) m |= A_TOTAL;
    if (top.includes('recentRequestStatistics')) m |= A_RECENT;
    if (top.includes('inFlightRequests')) m |= A_INFLIGHT;
  }
  if (t !== undefined) m |= bitsOf(t, STATS) << TOTAL_SHIFT;
  if (r !== undefined) m |= bitsOf(r, STATS) << RECENT_SHIFT;
  if (f.$absent !== undefined) m |= bitsOf(f.$absent, ['hasMoreRequests', 'sampledInFlightRequests']) << 12;
  for (const q of f.sampledInFlightRequests) {
    if (q.$absent !== undefined) {
      m |= A_ITEMS;
      break;
    }
  }
  return m;
}

/** The masks of a row's sampled in-flight requests (bit 0 apiKey, bit 1 inFlightDuration), when A_ITEMS. */
export function itemMasks(c: KafkaConnection): number[] {
  return c.inFlightRequests.sampledInFlightRequests.map((q) => bitsOf(q.$absent, ITEM));
}

/** The absent counters of a statistics window, from a fast mask. */
export function statsAbsent(mask: number, recent: boolean): AbsentFields | undefined {
  return STAT_LISTS[(mask >> (recent ? RECENT_SHIFT : TOTAL_SHIFT)) & 15];
}

/** The absent fields of inFlightRequests, from a fast mask. */
export function inFlightAbsent(mask: number): AbsentFields | undefined {
  return INFLIGHT_LISTS[(mask >> 12) & 3];
}

/** The absent fields of one sampled request, from its item mask. */
export function itemAbsent(bits: number): AbsentFields | undefined {
  return ITEM_LISTS[bits & 3];
}

/** Sets `$absent` on a rebuilt object (only when something was absent). */
export function markAbsent<T extends object>(o: T, absent: AbsentFields | undefined): T {
  if (absent !== undefined) (o as { $absent?: AbsentFields }).$absent = absent;
  return o;
}

/**
 * The absent names of a row's slow parts by path (`''`: the connection's own fields except the
 * four fast ones; `authenticationInfo`, `source`, `tlsInfo`), or undefined when all are present.
 */
export function slowAbsent(c: KafkaConnection): Record<string, AbsentFields> | undefined {
  const top = c.$absent;
  const auth = c.authenticationInfo.$absent;
  const source = c.source.$absent;
  const tls = c.tlsInfo.$absent;
  if (top === undefined && auth === undefined && source === undefined && tls === undefined) return undefined;
  const out: Record<string, AbsentFields> = {};
  const slowTop = top?.filter((name) => !FAST_TOP.has(name));
  if (slowTop !== undefined && slowTop.length > 0) out[''] = slowTop;
  if (auth !== undefined) out.authenticationInfo = auth;
  if (source !== undefined) out.source = source;
  if (tls !== undefined) out.tlsInfo = tls;
  return Object.keys(out).length === 0 ? undefined : out;
}

/** The names of the fast top-level fields a mask says were absent. */
function fastTopNames(mask: number): string[] {
  const out: string[] = [];
  if (mask & A_IDLE) out.push('idleDuration');
  if (mask & A_INFLIGHT) out.push('inFlightRequests');
  if (mask & A_RECENT) out.push('recentRequestStatistics');
  if (mask & A_TOTAL) out.push('totalRequestStatistics');
  return out;
}

const TOP_FAST_BITS = A_IDLE | A_TOTAL | A_RECENT | A_INFLIGHT;

/** A row's top-level absent names: the version's slow ones and the sample's fast ones, in schema order. */
export function topAbsent(slow: AbsentFields | undefined, mask: number): AbsentFields | undefined {
  if ((mask & TOP_FAST_BITS) === 0) return slow;
  const names = [...(slow ?? []), ...fastTopNames(mask)];
  return names.sort((a, b) => ORDER.get(a)! - ORDER.get(b)!);
}
