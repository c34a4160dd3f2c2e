/**
 * The verdicts of a pre-filter by row id (passes or not): one byte per id, in pages of PAGE_SIZE
 * ids (0: no verdict yet, 1: fails, 2: passes). An as-of read of 10,000 connections records a
 * verdict for each of its versions before it asks SQL which pass; IdCache's pages of pointers
 * (1 KiB per 128 ids) made that a loop allocating about 350 KB in a process that had just
 * started: about 6 ms of a query that matches nothing, against 44 KB here.
 */

const PAGE_BITS = 10; // 1 KiB pages: ids spread over many pages (a damaged list) cost no more than IdCache did
/** Ids per page. */
export const VERDICT_PAGE_SIZE = 1 << PAGE_BITS;
const SLOT_MASK = VERDICT_PAGE_SIZE - 1;
const FAILS = 1;
const PASSES = 2;

/** Pass or fail by row id (a non-negative integer below 2^32). */
export class IdVerdicts {
  #pages: (Uint8Array | undefined)[] = [];
  #passing = 0;

  /** How many ids pass: none, and no row of a frame can (its scan can stop before looking at each). */
  get passing(): number {
    return this.#passing;
  }

  /** The verdict of an id: true (passes), false (fails), undefined (none yet). */
  get(id: number): boolean | undefined {
    const v = this.#pages[id >>> PAGE_BITS]?.[id & SLOT_MASK];
    return v === undefined || v === 0 ? undefined : v === PASSES;
  }

  /** Records the verdict of an id. */
  set(id: number, passes: boolean): void {
    if (!Number.isInteger(id) || id < 0 || id > 0xffffffff)
      throw new RangeError(`IdVerdicts: id ${id} is not a row id`);
    const page = this.#page(id >>> PAGE_BITS);
    const slot = id & SLOT_MASK;
    this.#passing += (passes ? 1 : 0) - (page[slot] === PASSES ? 1 : 0);
    page[slot] = passes ? PASSES : FAILS;
  }

  /**
   * The ids of `ids` from 0 to `max` (at most 2^32 - 1) without a verdict, each once and in the
   * order of their first mention, now recorded as failing (the caller then records the ones that
   * pass). Ids outside that range are left out; one inside it that is not an integer is a RangeError.
   */
  claim(ids: readonly number[], max: number): number[] {
    const out: number[] = [];
    const pages = this.#pages;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      if (id >>> 0 !== id || id > max) {
        if (id >= 0 && id <= max) throw new RangeError(`IdVerdicts: id ${id} is not a row id`);
        continue;
      }
      const p = id >>> PAGE_BITS;
      const page = pages[p] ?? this.#page(p);
      if (page[id & SLOT_MASK] !== 0) continue;
      page[id & SLOT_MASK] = FAILS;
      out.push(id);
    }
    return out;
  }

  /** The page of index `p`, made when missing. */
  #page(p: number): Uint8Array {
    let page = this.#pages[p];
    if (page === undefined) {
      page = new Uint8Array(VERDICT_PAGE_SIZE);
      this.#pages[p] = page;
    }
    return page;
  }
}
