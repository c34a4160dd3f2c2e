/**
 * The one connection a filter names: a `uid = "…"` (exact, no wildcard) that every matching row
 * must satisfy, i.e. the whole filter or a conjunct of its top-level AND. A range query with such
 * a filter reads that connection's history instead of every sample of the range.
 */
import type { CheckedNode } from '../filter/ast.ts';

/** The uid every row matching the filter `ast` has, when the filter pins one; else undefined. */
export function pinnedUid(ast: CheckedNode | undefined): string | undefined {
  if (ast === undefined) return undefined;
  if (ast.kind === 'and') {
    for (const child of ast.children) {
      const uid = pinnedUid(child);
      if (uid !== undefined) return uid;
    }
    return undefined;
  }
  if (ast.kind !== 'restriction' || ast.path.text !== 'uid' || ast.path.steps.length !== 1) return undefined;
  const t = ast.test;
  if (t.kind !== 'compare' || t.op !== '=' || t.value.kind !== 'string') return undefined;
  return t.value.wildcard === 'none' ? t.value.text : undefined;
}
