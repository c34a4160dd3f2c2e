/** A resource's rows as a filtered, sorted grid with its "shown N of M" badge: the common part of the table screens. */
import type { ResourceName } from '../../api/schema/resources.ts';
import type { ColumnModel, ResourceRows } from '../../report/columns/index.ts';
import { gridFromModel, sortColumns, type Grid, type GridExtras } from '../data/grid.ts';
import type { StackEntry } from '../state/app.ts';
import { countBadge, filterRows, modelOf, sortRows } from './rows.ts';

/** The grid, the rows in display order, and the badge. */
export interface ResourceTable<R> {
  readonly grid: Grid;
  readonly rows: readonly R[];
  readonly badge: string;
}

/** Filters (the entry's filter), sorts (the entry's sort) and draws rows with the resource's column model. */
export function resourceTable<N extends ResourceName, R extends ResourceRows[N]>(
  resource: N,
  rows: readonly R[],
  entry: StackEntry,
  extras: GridExtras<R>,
): ResourceTable<R> {
  const model: ColumnModel<R> = modelOf(resource);
  const kept = filterRows(rows, resource, entry.filter);
  const sorted = sortRows(kept, resource, sortColumns(model, extras, kept), entry.table.sort);
  return { grid: gridFromModel(model, sorted, extras), rows: sorted, badge: countBadge(sorted.length, rows.length) };
}
