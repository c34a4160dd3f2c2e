/**
 * The grid: what the table component draws, built from a report column model (or any list of
 * columns) and rows. Cells are computed on demand, so only visible rows cost anything.
 */
import type { ColumnModel, LagMarks, Tone } from '../../report/columns/types.ts';
import type { Token } from '../theme.ts';
import type { ActiveFilter } from '../state/app.ts';
import type { ViewRef } from '../state/views.ts';

/** A column of the grid. */
export interface GridColumn {
  readonly id: string;
  readonly header: string;
  readonly align: 'left' | 'right';
  /** free text that may be cut first when the table does not fit (descriptions, names) */
  readonly flexible?: boolean;
  /** 1 keeps the column longest; higher numbers drop out first on a narrow terminal (default 2) */
  readonly priority?: number;
  /** narrowest a flexible column may be cut to (never below its header) */
  readonly min?: number;
  /** the row's identifying column: never dropped, never cut so far that two rows read the same */
  readonly identity?: boolean;
  /** never dropped on a narrow terminal (a description) */
  readonly keep?: boolean;
  /** takes the width left over (a description): gives way first, gets spare width first */
  readonly fill?: boolean;
  /** a cut value keeps its end (the newest part of a history) */
  readonly keepEnd?: boolean;
}

/** A table to draw: columns and lazily computed rows. */
export interface Grid {
  readonly columns: readonly GridColumn[];
  readonly rowCount: number;
  /** the cells of row i (terminal-safe text) */
  cells(i: number): readonly string[];
  /** semantic tokens of the cells of row i (undefined: the row's token) */
  cellTokens?(i: number): readonly (Token | undefined)[];
  /** the token of the whole row (what changed, severity) */
  rowToken?(i: number): Token | undefined;
  /** the glyph in front of row i that says in words what the colour says */
  glyph?(i: number): string;
  /** where Enter on row i leads */
  target?(i: number): RowTarget | undefined;
  /** where `e` on row i leads: the evidence of an event */
  evidence?(i: number): RowTarget | undefined;
  /** a stable identity of row i (to find a row again after sorting or filtering) */
  key?(i: number): string;
}

/** Where Enter leads from a row: a view, possibly after moving the time cursor. */
export interface RowTarget {
  readonly view?: ViewRef;
  readonly at?: bigint;
  /** a filter the opened view starts with (an event's broker, client, ...) */
  readonly filter?: ActiveFilter;
  /** a drill-down: one Esc closes the view, filter and all, and puts the time cursor back */
  readonly drill?: boolean;
}

/** A report tone as a theme token. */
export function toneToken(tone: Tone | undefined): Token | undefined {
  switch (tone) {
    case 'ok':
      return 'ok';
    case 'warn':
      return 'warn';
    case 'error':
      return 'error';
    case 'dim':
      return 'muted';
    default:
      return undefined;
  }
}

/** Extra per-row decoration of a column-model grid. */
export interface GridExtras<R> {
  readonly rowToken?: (row: R, i: number) => Token | undefined;
  readonly glyph?: (row: R, i: number) => string;
  readonly target?: (row: R, i: number) => RowTarget | undefined;
  /** the instant ages are computed against (ns) */
  readonly now: bigint;
  /** the lag thresholds in force (marks of the lag columns) */
  readonly marks?: LagMarks;
  /** include the columns marked wide */
  readonly wide?: boolean;
  /** only these column ids, in this order (default: every non-wide column) */
  readonly only?: readonly string[];
  /** columns drawn first (a poll time) or last (a sparkline), computed by the screen */
  readonly before?: readonly ExtraColumn<R>[];
  readonly after?: readonly ExtraColumn<R>[];
}

/** A column a screen adds to a model's columns. */
export interface ExtraColumn<R> extends GridColumn {
  readonly value: (row: R, i: number) => string;
  readonly token?: Token;
}

/** The model columns a grid shows, given the extras' `only` and `wide`. */
export function pickColumns<R>(
  model: ColumnModel<R>,
  extras: Pick<GridExtras<R>, 'only' | 'wide'>,
): ColumnModel<R>['columns'] {
  const only = extras.only;
  return only !== undefined
    ? only.flatMap((id) => model.columns.filter((c) => c.id === id))
    : model.columns.filter((c) => extras.wide === true || c.wide !== true);
}

/** How to sort by one grid column: the model's order_by expression, or the cell text. */
export interface SortColumn<R> {
  readonly orderBy?: string;
  readonly text: (row: R) => string;
}

/** The sort columns parallel to the grid's columns. */
export function sortColumns<R>(model: ColumnModel<R>, extras: GridExtras<R>, rows: readonly R[]): SortColumn<R>[] {
  const ctx = { now: extras.now };
  const index = new Map<R, number>();
  rows.forEach((r, i) => index.set(r, i));
  const extra = (c: ExtraColumn<R>): SortColumn<R> => ({ text: (r) => c.value(r, index.get(r) ?? 0) });
  return [
    ...(extras.before ?? []).map(extra),
    ...pickColumns(model, extras).map((c): SortColumn<R> => ({
      ...(c.orderBy !== undefined ? { orderBy: c.orderBy } : {}),
      text: (r) => c.value(r, ctx),
    })),
    ...(extras.after ?? []).map(extra),
  ];
}

/** A grid over rows drawn with a report column model. */
export function gridFromModel<R>(model: ColumnModel<R>, rows: readonly R[], extras: GridExtras<R>): Grid {
  const columns = pickColumns(model, extras);
  const before = extras.before ?? [];
  const after = extras.after ?? [];
  const ctx = extras.marks === undefined ? { now: extras.now } : { now: extras.now, marks: extras.marks };
  const row = (i: number): R => rows[i] as R;
  // report columns: left-aligned text gives way before numbers; screens' extra columns say so themselves
  const head = (c: GridColumn): GridColumn => ({
    id: c.id,
    header: c.header,
    align: c.align,
    flexible: c.flexible ?? c.align === 'left',
    ...(c.priority !== undefined ? { priority: c.priority } : {}),
    ...(c.min !== undefined ? { min: c.min } : {}),
    ...(c.identity === true ? { identity: true } : {}),
    ...(c.keep === true || c.identity === true ? { keep: true } : {}),
    ...(c.fill === true ? { fill: true } : {}),
    ...(c.keepEnd === true ? { keepEnd: true } : {}),
  });
  return {
    columns: [
      ...before.map((c) => ({ ...head(c), flexible: c.flexible === true })),
      ...columns.map(head),
      ...after.map((c) => ({ ...head(c), flexible: c.flexible === true })),
    ],
    rowCount: rows.length,
    cells: (i) => [
      ...before.map((c) => c.value(row(i), i)),
      ...columns.map((c) => c.value(row(i), ctx)),
      ...after.map((c) => c.value(row(i), i)),
    ],
    cellTokens: (i) => [
      ...before.map((c) => c.token),
      ...columns.map((c) => toneToken(c.tone?.(row(i), ctx))),
      ...after.map((c) => c.token),
    ],
    rowToken: extras.rowToken ? (i) => extras.rowToken?.(row(i), i) : undefined,
    glyph: extras.glyph ? (i) => extras.glyph?.(row(i), i) ?? ' ' : undefined,
    target: extras.target ? (i) => extras.target?.(row(i), i) : undefined,
  };
}

/** A plain grid from precomputed string rows. */
export function gridFromCells(
  columns: readonly GridColumn[],
  rows: readonly (readonly string[])[],
  extras: {
    rowToken?: (i: number) => Token | undefined;
    glyph?: (i: number) => string;
    target?: (i: number) => RowTarget | undefined;
    evidence?: (i: number) => RowTarget | undefined;
    key?: (i: number) => string;
  } = {},
): Grid {
  return { columns, rowCount: rows.length, cells: (i) => rows[i] ?? [], ...extras };
}
