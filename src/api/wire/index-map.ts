/**
 * Builders of maps whose keys are all array indices (the int32-keyed maps of the contract, such
 * as apiVersions): one object literal per key set, generated once. A literal allocates the
 * object with its elements sized at once, and V8 can allocate it straight in the old generation
 * when such maps live long, as decoded answers do; adding the keys one by one grows the elements
 * in steps and leaves the map to be copied out of the young generation. The object is the same
 * either way: the keys enumerate in ascending order, a repeated key keeps its last value.
 *
 * A map whose values are all numbers is shared: the builders remember, per key set, the last few
 * maps built, and a map with the same values (Object.is) is that object again, frozen (the
 * clients of one library version send the same apiVersions: most rows of an answer, and of every
 * answer after it, repeat a handful of maps). Nothing mutable is shared between answers; a
 * consumer may compare such maps by identity first (the store's ingest does).
 */

/** Key sets remembered per map field. */
const SLOTS = 256;
/** Most keys of a map built by a literal. */
export const MAX_LITERAL_KEYS = 64;
/** Keys a generated literal may hold: canonical array indices below 10^9, digits only. */
const MAX_KEY = 999_999_999;
/** Maps remembered for sharing per key set (a power of two): at most SLOTS x SHARED maps of at most MAX_LITERAL_KEYS keys. */
const SHARED = 8;

import { generate } from './record-literal.ts';

type Build = (values: readonly unknown[]) => Record<string, unknown>;

/** The literal builders of one map field, by key set. */
export class IndexMapBuilders {
  readonly #hashes = new Int32Array(SLOTS);
  readonly #keys: (number[] | undefined)[] = new Array<number[] | undefined>(SLOTS).fill(undefined);
  readonly #builds: (Build | undefined)[] = new Array<Build | undefined>(SLOTS).fill(undefined);
  /** per key-set slot, the maps built lately (by a hash of their values), shared while their values repeat */
  readonly #shared: (SharedMaps | undefined)[] = new Array<SharedMaps | undefined>(SLOTS).fill(undefined);

  /**
   * The map of keys[0..n) to values[0..n), built by the literal of that key set (the same object
   * as a map built before with the same keys and numeric values); undefined when the set cannot
   * have one (too many keys, or every slot taken by other sets).
   */
  build(keys: readonly number[], values: readonly unknown[], n: number): Record<string, unknown> | undefined {
    if (n > MAX_LITERAL_KEYS) return undefined;
    let h = n;
    for (let i = 0; i < n; i++) h = Math.imul(h ^ keys[i]!, 0x01000193);
    const start = h & (SLOTS - 1);
    for (let probe = 0; probe < 4; probe++) {
      const slot = (start + probe) & (SLOTS - 1);
      const known = this.#keys[slot];
      if (known === undefined) {
        const build = literal(keys, n);
        if (build === undefined) return undefined;
        this.#hashes[slot] = h;
        this.#keys[slot] = keys.slice(0, n);
        this.#builds[slot] = build;
        return this.#sharedOrBuilt(slot, build, values, n);
      }
      if (this.#hashes[slot] === h && sameKeys(known, keys, n))
        return this.#sharedOrBuilt(slot, this.#builds[slot]!, values, n);
    }
    return undefined;
  }

  /** The remembered map of this key set with these values, else a new one (remembered when its values are all numbers). */
  #sharedOrBuilt(slot: number, build: Build, values: readonly unknown[], n: number): Record<string, unknown> {
    let h = 0;
    for (let i = 0; i < n; i++) {
      const v = values[i];
      if (typeof v !== 'number') return build(values);
      h = Math.imul(h ^ (v | 0), 0x01000193);
    }
    const at = (h ^ (h >>> 16)) & (SHARED - 1);
    let shared = this.#shared[slot];
    if (shared === undefined) this.#shared[slot] = shared = { values: [], maps: [] };
    const known = shared.values[at];
    if (known !== undefined && sameValues(known, values, n)) return shared.maps[at]!;
    const map = Object.freeze(build(values));
    shared.values[at] = values.slice(0, n) as number[];
    shared.maps[at] = map;
    return map;
  }
}

/** The maps of one key set remembered for sharing, and their values, by a hash of the values. */
interface SharedMaps {
  readonly values: (number[] | undefined)[];
  readonly maps: (Record<string, unknown> | undefined)[];
}

function sameValues(known: readonly number[], values: readonly unknown[], n: number): boolean {
  for (let i = 0; i < n; i++) if (!Object.is(known[i], values[i])) return false;
  return true;
}

function sameKeys(known: readonly number[], keys: readonly number[], n: number): boolean {
  if (known.length !== n) return false;
  for (let i = 0; i < n; i++) if (known[i] !== keys[i]) return false;
  return true;
}

/** `(v) => ({ 3: v[0], 10: v[1], ... })`: generated code holding only the checked integer keys. */
function literal(keys: readonly number[], n: number): Build | undefined {
  const parts: string[] = [];
  for (let i = 0; i < n; i++) {
    const k = keys[i]!;
    if (!Number.isInteger(k) || k < 0 || k > MAX_KEY) return undefined;
    parts.push(`${k}: v[${i}]`);
  }
  return generate<Build>(`return { ${parts.join(', ')} };`);
}
