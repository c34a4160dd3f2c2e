/**
 * How much memory decoding an answer may take, estimated from its bytes before decoding it. A
 * JSON value costs far more in memory than in text: an empty object `{}` (3 bytes with its
 * comma) takes 64 bytes of heap, an empty array 40, any other value at most 8 in its container
 * (measured with V8's JSON.parse on Node 20). The estimate counts the structural characters and
 * adds the text itself twice (the decoded string and the decoded answer's own strings).
 */

/** Heap bytes of an object, of an array, and of a value slot, as measured. */
const OBJECT_BYTES = 64;
const ARRAY_BYTES = 40;
const SLOT_BYTES = 8;
/** The most heap one byte of JSON can cost (`{}` repeated: 64 bytes per 3). */
export const WORST_BYTES_PER_BYTE = 24;

/** Default budget for decoding one answer: 1 GiB of estimated memory. */
export const DEFAULT_MAX_PARSE_BYTES = 1024 * 1024 * 1024;

/**
 * An upper estimate of the heap needed to decode `body`, or a cheap bound when even the worst
 * case fits `budget` (no scan needed then). Counting stops once the estimate passes `budget`.
 */
export function estimateParseBytes(body: Uint8Array, budget: number): number {
  const base = body.length * 2;
  if (body.length * WORST_BYTES_PER_BYTE <= budget) return Math.min(base, body.length * WORST_BYTES_PER_BYTE);
  let estimate = base;
  const step = 1 << 20;
  for (let from = 0; from < body.length; from += step) {
    const end = Math.min(body.length, from + step);
    let objects = 0;
    let arrays = 0;
    let commas = 0;
    for (let i = from; i < end; i++) {
      const c = body[i];
      if (c === 0x7b) objects++;
      else if (c === 0x5b) arrays++;
      else if (c === 0x2c || c === 0x3a) commas++;
    }
    estimate += objects * OBJECT_BYTES + arrays * ARRAY_BYTES + commas * SLOT_BYTES;
    if (estimate > budget) return estimate;
  }
  return estimate;
}
