/**
 * Deterministic randomness for the simulated cluster: stateless hashes of (seed, ids...) so that
 * any value can be recomputed from its coordinates, whatever path the clock took to get there.
 */

/** Mixes one 32-bit value into a running hash (murmur3-style finaliser). */
export function mix(h: number, v: number): number {
  h = Math.imul(h ^ (v | 0), 0x9e3779b1);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A 32-bit hash of up to four integers. */
export function hash(a: number, b = 0, c = 0, d = 0): number {
  return mix(mix(mix(mix(0x2545f491, a), b), c), d);
}

/** A number in [0, 1) derived from up to four integers. */
export function unit(a: number, b = 0, c = 0, d = 0): number {
  return hash(a, b, c, d) / 4294967296;
}

/** FNV-1a hash of a string, to use names (links, topics, groups) as hash coordinates. */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

const HEX = '0123456789abcdef';

function hex8(v: number): string {
  let s = '';
  for (let i = 7; i >= 0; i--) s += HEX[(v >>> (i * 4)) & 15];
  return s;
}

/** One 32-bit word of a wide hash: each word runs its own chain, so words are independent. */
function word(k: number, a: number, b: number, c: number, salt: number): number {
  return mix(mix(mix(mix(mix(0x2545f491 ^ k, a), b), c), salt), k);
}

/** A version-4-shaped UUID derived from up to three integers (and a salt); 122 random bits. */
export function uuidFrom(a: number, b = 0, c = 0, salt = 0): string {
  const w0 = word(0x1111, a, b, c, salt);
  const w1 = (word(0x2222, a, b, c, salt) & 0xffff0fff) | 0x00004000;
  const w2 = (word(0x3333, a, b, c, salt) & 0x3fffffff) | 0x80000000;
  const w3 = word(0x4444, a, b, c, salt);
  const h1 = hex8(w1);
  const h2 = hex8(w2);
  return `${hex8(w0)}-${h1.slice(0, 4)}-${h1.slice(4)}-${h2.slice(0, 4)}-${h2.slice(4)}${hex8(w3)}`;
}
