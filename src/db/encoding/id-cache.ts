/**
 * A cache keyed by row id (a positive integer): values in pages of PAGE_SIZE slots, so ids that
 * sit close together (as SQLite row ids of one table do) cost a pointer each instead of a Map
 * entry, and a lookup is two array reads. Ids far apart cost at most one page each.
 */

const PAGE_BITS = 7;
/** Slots per page. */
export const PAGE_SIZE = 1 << PAGE_BITS;
const SLOT_MASK = PAGE_SIZE - 1;

/** Values by integer id, in pages. */
export class IdCache<T> {
  #pages: (T | undefined)[][] = [];
  #size = 0;

  /** The number of ids held. */
  get size(): number {
    return this.#size;
  }

  /** The value of an id, or undefined. */
  get(id: number): T | undefined {
    return this.#pages[id >>> PAGE_BITS]?.[id & SLOT_MASK];
  }

  /** True when the id has a value. */
  has(id: number): boolean {
    return this.get(id) !== undefined;
  }

  /** Sets the value of an id (a non-negative integer below 2^32). */
  set(id: number, value: T): void {
    if (!Number.isInteger(id) || id < 0 || id > 0xffffffff) throw new RangeError(`IdCache: id ${id} is not a row id`);
    const p = id >>> PAGE_BITS;
    let page = this.#pages[p];
    if (page === undefined) {
      page = new Array<T | undefined>(PAGE_SIZE).fill(undefined);
      this.#pages[p] = page;
    }
    if (page[id & SLOT_MASK] === undefined) this.#size++;
    page[id & SLOT_MASK] = value;
  }

  /** Forgets every value. */
  clear(): void {
    this.#pages = [];
    this.#size = 0;
  }
}
