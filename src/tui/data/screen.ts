/** What one screen shows: panel lines above a table, the table's grid, and what ctrl-s saves. */
import type { Token } from '../theme.ts';
import type { Grid, RowTarget } from './grid.ts';

/** A run of text in one semantic style. */
export interface Segment {
  readonly text: string;
  readonly token?: Token;
  /** left out (rightmost first) when the line does not fit its width, rather than cutting the line */
  readonly optional?: boolean;
}

/** One line of a panel: segments drawn left to right. */
export type PanelLine = readonly Segment[];

/** What ctrl-s writes: a table as CSV, or any data as JSON. */
export type Export =
  | { readonly format: 'csv'; readonly header: readonly string[]; readonly rows: readonly (readonly string[])[] }
  | { readonly format: 'json'; readonly data: unknown };

/** A screen: a title, lines above the table, the table, and a badge such as "shown N of M". */
export interface Screen {
  /** panel lines drawn above the table (the screen trims them to fit) */
  readonly panel: readonly PanelLine[];
  readonly grid: Grid;
  /** e.g. `shown 120 of 10,000`; drawn on the breadcrumb line */
  readonly badge?: string;
  /** the table title line (drawn above the header), e.g. `shadow topics` */
  readonly tableTitle?: string;
  /** the text to draw instead of rows when the grid is empty */
  readonly empty?: string;
  /** how many panel lines to keep at most so the table keeps room (default: all) */
  readonly maxPanel?: number;
  /** a shorter panel drawn when the full one does not fit the terminal */
  readonly compactPanel?: readonly PanelLine[];
  /** the data ctrl-s saves; default: the grid as CSV */
  readonly export?: Export;
  /**
   * a scrolling page of text instead of panel and table (an event's detail), laid out for a
   * width; the table state's `selected` is its first line shown
   */
  readonly document?: (width: number) => readonly PanelLine[];
  /** where Enter leads from a document screen */
  readonly enter?: RowTarget;
  /** where `e` leads from a document screen (an event's evidence) */
  readonly evidence?: RowTarget;
}

/** A segment helper. */
export function seg(text: string, token?: Token): Segment {
  return token === undefined ? { text } : { text, token };
}

/** A segment left out when its line does not fit. */
export function optionalSeg(text: string, token?: Token): Segment {
  return { ...seg(text, token), optional: true };
}
