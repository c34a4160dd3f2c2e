/**
 * A record crosses to the store thread as a structured clone, which keeps bigints, bytes, lone
 * surrogates and `__proto__` keys but not classes: a JsonNumber (an unknown field's number
 * literal kept as sent, `1.50`, `-0`, `1e400`) arrives as a plain `{ text }` object. The sender
 * lists where its JsonNumbers are; the thread turns the objects at those places back into
 * JsonNumbers. The places are explicit, so no field of an answer can pass for one.
 */
import { JsonNumber } from '../api/codec/lossless-json.ts';

/** A place in a record: the keys (object) and indexes (array) from its root. */
export type ValuePath = readonly (string | number)[];

/** The places of the JsonNumbers in `root` (objects and arrays walked without recursion). */
export function jsonNumberPaths(root: unknown): ValuePath[] {
  const found: ValuePath[] = [];
  // a flat stack: each entry's value, its parent entry and its key there (paths built only for finds)
  const values: unknown[] = [root];
  const parents: number[] = [-1];
  const keys: (string | number)[] = [''];
  const stack: number[] = [0];
  while (stack.length > 0) {
    const at = stack.pop()!;
    const v = values[at];
    if (v instanceof JsonNumber) {
      const path: (string | number)[] = [];
      for (let i = at; parents[i]! >= 0; i = parents[i]!) path.push(keys[i]!);
      found.push(path.reverse());
      continue;
    }
    if (v === null || typeof v !== 'object' || ArrayBuffer.isView(v)) continue;
    const array = Array.isArray(v);
    const names = array ? undefined : Object.keys(v);
    const n = array ? (v as unknown[]).length : names!.length;
    for (let i = 0; i < n; i++) {
      const key = array ? i : names![i]!;
      const child = (v as Record<string | number, unknown>)[key];
      if (child === null || typeof child !== 'object') continue;
      values.push(child);
      parents.push(at);
      keys.push(key);
      stack.push(values.length - 1);
    }
  }
  return found;
}

/** Turns the `{ text }` objects at `paths` of a cloned `root` back into JsonNumbers. */
export function restoreJsonNumbers(root: unknown, paths: readonly ValuePath[]): void {
  for (const path of paths) {
    let parent: unknown = root;
    for (let i = 0; i < path.length - 1; i++) parent = (parent as Record<string | number, unknown>)[path[i]!];
    const key = path[path.length - 1]!;
    const holder = parent as Record<string | number, unknown>;
    const plain = holder[key] as { text?: unknown } | undefined;
    if (typeof plain?.text === 'string') holder[key] = new JsonNumber(plain.text);
  }
}
