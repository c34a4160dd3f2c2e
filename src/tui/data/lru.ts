/** A small least-recently-used cache for the source's reads (states at instants, diffs, histories). */

/** Keeps at most `size` entries; `get` refreshes an entry's age. */
export class Lru<K, V> {
  readonly #map = new Map<K, V>();
  readonly #size: number;

  /** A cache of at most `size` entries. */
  constructor(size: number) {
    this.#size = size;
  }

  /** The cached value, or the one `make` computes (and caches). */
  get(key: K, make: () => V): V {
    const hit = this.#map.get(key);
    if (hit !== undefined || this.#map.has(key)) {
      this.#map.delete(key);
      this.#map.set(key, hit as V);
      return hit as V;
    }
    const value = make();
    this.#map.set(key, value);
    if (this.#map.size > this.#size) this.#map.delete(this.#map.keys().next().value as K);
    return value;
  }

  /** Forgets everything. */
  clear(): void {
    this.#map.clear();
  }
}
