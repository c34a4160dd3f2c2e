/**
 * The column model (k9s style): per resource, a list of columns with a header, an alignment and
 * a pure `value(row)` giving the display text. The text renderers and the TUI table both draw
 * from it; nothing here prints.
 */
import { sanitizeCell } from '../../api/safe-text.ts';
import type { ResourceName } from '../../api/schema/resources.ts';
import { NONE } from '../format-units.ts';

/** Semantic colour of a cell; the renderer (or the TUI theme) maps it to a colour. */
export type Tone = 'ok' | 'warn' | 'error' | 'dim';

/** Lags above which rows are marked (the timeline's thresholds in force); default: their defaults. */
export interface LagMarks {
  /** records behind, per shadow partition: `shadow.lagRecords` */
  readonly shadowLag: bigint;
  /** records not yet committed, per Iceberg partition: `iceberg.commitLag` */
  readonly commitLag: bigint;
}

/** What a cell may need beyond its row: the instant the row was observed (for ages), the marks in force. */
export interface ColumnContext {
  /** the poll time of the row, ns since the epoch */
  readonly now: bigint;
  /** the lag thresholds that mark rows (default: the timeline's defaults) */
  readonly marks?: LagMarks;
}

/** One column of a resource table. */
export interface Column<R> {
  /** stable identifier (for the TUI's sort and hide settings) */
  readonly id: string;
  readonly header: string;
  readonly align: 'left' | 'right';
  /** shown only in the `wide` output */
  readonly wide?: boolean;
  /** terminal-safe display text of the cell */
  readonly value: (row: R, ctx: ColumnContext) => string;
  /** semantic colour of the cell, if any */
  readonly tone?: (row: R, ctx?: ColumnContext) => Tone | undefined;
  /** the order_by expression that sorts by this column, when there is one */
  readonly orderBy?: string;
  /** on a narrow terminal: 1 keeps the column longest, higher numbers drop out first (default 2) */
  readonly priority?: number;
  /** narrowest a text column may be cut to on a narrow terminal (never below its header) */
  readonly min?: number;
  /** the row's identifying column: never dropped, never cut so far that two rows read the same */
  readonly identity?: boolean;
  /** never dropped on a narrow terminal (only shrunk) */
  readonly keep?: boolean;
}

/** The column model of one resource. */
export interface ColumnModel<R = never> {
  readonly resource: ResourceName;
  readonly columns: readonly Column<R>[];
  /** a short terminal-safe identity of a row, for diffs and titles (`orders-7 (10.0.3.4:5312)`) */
  readonly label: (row: R) => string;
}

/** Cluster text made safe for one cell; `-` when empty. */
export function cell(text: string): string {
  return text === '' ? NONE : sanitizeCell(text);
}

/** Cluster text made safe and put in double quotes (`"orders."`, `""`). */
export function quoted(text: string): string {
  return `"${sanitizeCell(text)}"`;
}

/** Options shared by the column builders. */
export interface ColumnOptions<R> {
  readonly wide?: boolean;
  readonly tone?: (row: R, ctx?: ColumnContext) => Tone | undefined;
  readonly orderBy?: string;
  readonly priority?: number;
  readonly min?: number;
  readonly identity?: boolean;
  readonly keep?: boolean;
}

/** A left-aligned text column. */
export function textColumn<R>(
  id: string,
  header: string,
  value: (row: R, ctx: ColumnContext) => string,
  opts: ColumnOptions<R> = {},
): Column<R> {
  return { id, header, align: 'left', value, ...opts };
}

/** A right-aligned numeric column. */
export function numberColumn<R>(
  id: string,
  header: string,
  value: (row: R, ctx: ColumnContext) => string,
  opts: ColumnOptions<R> = {},
): Column<R> {
  return { id, header, align: 'right', value, ...opts };
}

/** Tones of enum states by their short name; anything else has no tone. */
export function stateTone(
  ok: readonly string[],
  warn: readonly string[],
  error: readonly string[],
  dim: readonly string[] = [],
) {
  return (short: string): Tone | undefined => {
    if (ok.includes(short)) return 'ok';
    if (warn.includes(short)) return 'warn';
    if (error.includes(short)) return 'error';
    if (dim.includes(short)) return 'dim';
    return undefined;
  };
}
