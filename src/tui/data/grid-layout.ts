/** The widths of a grid's columns: the layout rule of every table (src/report/columns/layout.ts) over a sample of its rows. */
import { layoutTable, sampleIndexes, type ColumnFit } from '../../report/columns/layout.ts';
import type { Grid } from './grid.ts';

/** Spaces between columns. */
export const GRID_GAP = 2;
/** Rows sampled to size the columns (once per grid, not per keypress). */
const WIDTH_SAMPLE = 200;
/** The selection gutter in front of every row (`›✖ `). */
const GUTTER = 3;

/** Column widths and elisions for a grid drawn `width` columns wide. */
export function gridLayout(grid: Grid, width: number): ColumnFit[] {
  const rows = sampleIndexes(grid.rowCount, WIDTH_SAMPLE).map((i) => grid.cells(i));
  const specs = grid.columns.map((c) => ({ ...c, flexible: c.flexible === true }));
  return layoutTable(specs, rows, Math.max(10, width - GUTTER), { gap: GRID_GAP });
}

/**
 * What the columns dropped for being the same on every row say, within `room` columns
 * (`every row: state OPEN, group -`; `+2 more` for what does not fit); '' when none or no room.
 */
export function sameNote(grid: Grid, fits: readonly ColumnFit[], room: number): string {
  const parts = fits.flatMap((f, j) =>
    f.same === undefined ? [] : [`${(grid.columns[j]?.header ?? '').toLowerCase()} ${f.same}`],
  );
  if (parts.length === 0) return '';
  for (let n = parts.length; n > 0; n--) {
    const more = parts.length - n;
    const text = `every row: ${parts.slice(0, n).join(', ')}${more > 0 ? ` +${more} more` : ''}`;
    if (Array.from(text).length <= room) return text;
  }
  return '';
}
