/** The filter prompt's bridge to src/filter: validation as you type, completion, and the row predicate. */
import type { ResourceName } from '../../api/schema/resources.ts';
import { checkFilter, compileFilter, listFieldPaths } from '../../filter/index.ts';
import type { ActiveFilter } from '../state/app.ts';
import { splitNegation } from '../state/prompt.ts';

/** The outcome of checking the prompt text: normalised, or an error with its span in the prompt text. */
export type FilterCheck =
  | {
      readonly ok: true;
      readonly filter: ActiveFilter | undefined;
      readonly normalized: string;
      readonly warnings: readonly string[];
    }
  | { readonly ok: false; readonly start: number; readonly end: number; readonly message: string };

/** Checks the filter prompt text (`!` in front negates) against a resource, extended dialect. */
export function checkFilterText(text: string, resource: ResourceName): FilterCheck {
  const { negate, expr, offset } = splitNegation(text);
  if (expr.trim() === '') return { ok: true, filter: undefined, normalized: '', warnings: [] };
  const r = checkFilter(expr, { resource, dialect: 'extended' });
  if (r.ok)
    return { ok: true, filter: { expr, negate }, normalized: r.normalized, warnings: r.warnings.map((w) => w.message) };
  const suggestion = r.error.suggestion !== undefined ? ` (${r.error.suggestion})` : '';
  return { ok: false, start: r.error.start + offset, end: r.error.end + offset, message: r.error.message + suggestion };
}

/** The row predicate of an active filter (negated with `!`). */
export function rowPredicate(filter: ActiveFilter, resource: ResourceName): (row: object) => boolean {
  const compiled = compileFilter(filter.expr, { resource, dialect: 'extended' });
  return filter.negate ? (row) => !compiled.matches(row) : (row) => compiled.matches(row);
}

/** The filter as the status line shows it. */
export function describeFilter(filter: ActiveFilter): string {
  return filter.negate ? `NOT (${filter.expr})` : filter.expr;
}

const pathCache = new Map<ResourceName, string[]>();

/** Field paths of a resource, for Tab completion in the filter prompt. */
export function fieldPaths(resource: ResourceName): string[] {
  let paths = pathCache.get(resource);
  if (paths === undefined) {
    paths = listFieldPaths(resource).map((p) => p.path);
    pathCache.set(resource, paths);
  }
  return paths;
}
