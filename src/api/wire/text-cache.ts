/**
 * A direct-mapped cache from short ASCII texts, seen as bytes, to their string and decoded value.
 * Answers repeat most of their texts poll after poll (uids, client ids, addresses, enum names,
 * open times): a hit costs a byte comparison instead of a new string and a decode. Keys and
 * values are immutable (strings, bigints), so sharing them between answers is invisible.
 */

/** Longest text (in bytes) worth caching. */
export const MAX_CACHED_TEXT = 128;

/** Lookups between two checks of the hit rate. */
const ROUND = 1024;
/** Lookups skipped after a round of few hits (texts that rarely repeat: ids, times). */
const PAUSE = 16 * ROUND;

/** Texts and their decoded values, by a hash of the text's bytes. */
export class TextCache<V> {
  readonly #mask: number;
  readonly #hashes: Int32Array;
  readonly #keys: (string | undefined)[];
  readonly #values: (V | undefined)[];
  #lookups = 0;
  #hits = 0;
  #paused = 0;

  /** A cache of 2^bits slots. */
  constructor(bits: number) {
    const size = 1 << bits;
    this.#mask = size - 1;
    this.#hashes = new Int32Array(size);
    this.#keys = new Array<string | undefined>(size).fill(undefined);
    this.#values = new Array<V | undefined>(size).fill(undefined);
  }

  /**
   * False while lookups are paused: after a round in which fewer than one in eight found their
   * text, the cache rests for a while (it only saves work when texts repeat).
   */
  active(): boolean {
    if (this.#paused > 0) {
      this.#paused--;
      return false;
    }
    if (++this.#lookups === ROUND) {
      if (this.#hits < ROUND / 8) this.#paused = PAUSE;
      this.#lookups = 0;
      this.#hits = 0;
    }
    return true;
  }

  /** The value cached for the ASCII text in bytes [start, end) of hash `h` (see hashBytes), or undefined. */
  get(b: Uint8Array, start: number, end: number, h: number): V | undefined {
    const slot = h & this.#mask;
    const key = this.#keys[slot];
    if (key === undefined || this.#hashes[slot] !== h || key.length !== end - start) return undefined;
    for (let i = 0, p = start; p < end; i++, p++) if (key.charCodeAt(i) !== b[p]) return undefined;
    this.#hits++;
    return this.#values[slot];
  }

  /** Caches `value` for the text `key` of hash `h` (replacing whatever held its slot). */
  set(h: number, key: string, value: V): void {
    const slot = h & this.#mask;
    this.#hashes[slot] = h;
    this.#keys[slot] = key;
    this.#values[slot] = value;
  }
}
