/** Filtering and sorting a resource's rows for a table: the filter engine's predicate and order_by per column. */
import type { ResourceName } from '../../api/schema/resources.ts';
import { compileOrderBy } from '../../filter/index.ts';
import { COLUMN_MODELS, type ResourceRows } from '../../report/columns/index.ts';
import type { ColumnModel } from '../../report/columns/types.ts';
import { rowPredicate } from '../data/filter-check.ts';
import type { ActiveFilter } from '../state/app.ts';
import type { SortState } from '../state/table.ts';
import type { SortColumn } from '../data/grid.ts';

/** The column model of a resource, typed for its rows. */
export function modelOf<N extends ResourceName>(resource: N): ColumnModel<ResourceRows[N]> {
  return COLUMN_MODELS[resource];
}

/** Rows kept by the filter (all of them without one). */
export function filterRows<R extends object>(
  rows: readonly R[],
  resource: ResourceName,
  filter: ActiveFilter | undefined,
): readonly R[] {
  if (filter === undefined) return rows;
  const keep = rowPredicate(filter, resource);
  return rows.filter((r) => keep(r));
}

/**
 * Rows ordered by one grid column: by its order_by expression through the filter engine when it
 * has one (numbers sort as numbers), else by its text. `desc` reverses the column's order.
 */
export function sortRows<R extends object>(
  rows: readonly R[],
  resource: ResourceName,
  columns: readonly SortColumn<R>[],
  sort: SortState | undefined,
): readonly R[] {
  if (sort === undefined) return rows;
  const column = columns[sort.column];
  if (column === undefined) return rows;
  let compare: (a: R, b: R) => number;
  if (column.orderBy !== undefined) {
    const order = compileOrderBy(column.orderBy, { resource, dialect: 'extended' });
    compare = (a, b) => order.compare(a, b);
  } else {
    const text = new Map<R, string>();
    for (const r of rows) text.set(r, column.text(r));
    compare = (a, b) => (text.get(a) ?? '').localeCompare(text.get(b) ?? '', undefined, { numeric: true });
  }
  const sorted = [...rows].sort(compare);
  return sort.desc ? sorted.reverse() : sorted;
}

/** `shown N of M` when a filter hides rows, else `N rows`. */
export function countBadge(shown: number, total: number): string {
  const n = (v: number): string => v.toLocaleString('en-US');
  return shown === total ? `${n(total)} rows` : `shown ${n(shown)} of ${n(total)}`;
}
