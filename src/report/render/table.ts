/**
 * Text tables (`table` and `wide` output): columns padded to their widest cell, two spaces
 * apart, numbers right-aligned; when a terminal width is given, text columns are cut by the
 * layout rule the browser follows too (src/report/columns/layout.ts), without dropping any.
 * Cells are sanitised again here, so nothing unsafe is drawn.
 */
import { sanitizeCell } from '../../api/safe-text.ts';
import { elide, layoutTable, type ColumnFit, type TableView } from '../columns/index.ts';
import { paint } from './color.ts';

/** Options of renderTable. */
export interface TableOptions {
  readonly color: boolean;
  /** terminal width in columns; no truncation when undefined */
  readonly width?: number;
}

const GAP = 2;
/** A truncated column keeps at least this many cells (and its header). */
const MIN_WIDTH = 6;

const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]|[\u{1f300}-\u{1faff}\u{20000}-\u{3fffd}]/u;
// eslint-disable-next-line no-misleading-character-class -- a class of combining and zero-width code points, each matched alone on purpose
const ZERO = /[\u0300-\u036f\u200b-\u200d\ufe00-\ufe0f]/u;

/** Terminal columns one character takes (East Asian wide characters and emoji two, combining marks none). */
function charWidth(ch: string): number {
  return ZERO.test(ch) ? 0 : WIDE.test(ch) ? 2 : 1;
}

/** Printable ASCII only: one column per character. */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** Terminal columns a string takes (East Asian wide characters and emoji count two, combining marks none). */
export function displayWidth(text: string): number {
  if (PRINTABLE_ASCII.test(text)) return text.length;
  let w = 0;
  for (const ch of text) w += charWidth(ch);
  return w;
}

/** Cuts text to at most `width` columns, ending in `…` when cut. */
export function truncate(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width <= 0) return '';
  let out = '';
  let w = 0;
  for (const ch of text) {
    const cw = ZERO.test(ch) ? 0 : WIDE.test(ch) ? 2 : 1;
    if (w + cw > width - 1) break;
    out += ch;
    w += cw;
  }
  return `${out}…`;
}

function pad(text: string, width: number, align: 'left' | 'right'): string {
  return padTo(text, displayWidth(text), width, align);
}

/** `text` (`textWidth` columns wide) padded with spaces to `width` columns. */
function padTo(text: string, textWidth: number, width: number, align: 'left' | 'right'): string {
  const fill = ' '.repeat(Math.max(0, width - textWidth));
  return align === 'right' ? fill + text : text + fill;
}

/** Column widths (and elisions) that fit `limit`: the layout rule, shrinking only. */
function fitColumns(view: TableView, rows: readonly (readonly string[])[], limit: number | undefined): ColumnFit[] {
  if (limit === undefined) {
    return view.columns.map((c, i) => {
      let width = displayWidth(c.header);
      for (const r of rows) width = Math.max(width, displayWidth(r[i] ?? ''));
      return { width };
    });
  }
  return layoutTable(view.columns, rows, limit, { gap: GAP, drop: false, defaultMin: MIN_WIDTH, charWidth });
}

/** Body rows per piece of renderTablePieces: well below 128 KB of text (json.ts's ROWS_PER_PIECE). */
const ROWS_PER_PIECE = 128;

/** Renders a table view as text lines (header first), each ending in a newline. */
export function renderTable(view: TableView, opts: TableOptions): string {
  return [...renderTablePieces(view, opts)].join('');
}

/** renderTable's text in pieces, in order: the header line, then up to ROWS_PER_PIECE lines each. */
export function* renderTablePieces(view: TableView, opts: TableOptions): Generator<string, void, undefined> {
  const rows = view.rows.map((r) => r.cells.map((c) => sanitizeCell(c)));
  // widths by loops, never Math.max(...rows): spreading 100k rows as arguments overflows the stack
  const fits = fitColumns(view, rows, opts.width);
  const widths = fits.map((f) => f.width);
  const gap = ' '.repeat(GAP);
  const aligns = view.columns.map((c) => c.align);
  // the header: cut to its column, bold
  yield `${view.columns
    .map((c, k) => {
      const shown = truncate(c.header, widths[k]!);
      const padded = k === view.columns.length - 1 && c.align === 'left' ? shown : pad(shown, widths[k]!, c.align);
      return paint(padded, 'bold', opts.color);
    })
    .join(gap)}\n`;
  // the body, cell by cell without arrays per row: a cell that fits is drawn whole, measured once
  let piece = '';
  for (let i = 0; i < rows.length; i++) {
    const cells = rows[i]!;
    const tones = view.rows[i]!.tones;
    const last = cells.length - 1;
    let text = '';
    for (let k = 0; k < cells.length; k++) {
      const cell = cells[k]!;
      const align = aligns[k]!;
      const width = widths[k]!;
      const textWidth = displayWidth(cell);
      let padded: string;
      if (width > 0 && textWidth <= width) {
        padded = k === last && align === 'left' ? cell : padTo(cell, textWidth, width, align);
      } else {
        const shown = elide(cell, width, fits[k]?.elision, charWidth);
        padded = k === last && align === 'left' ? shown : pad(shown, width, align);
      }
      if (k > 0) text += gap;
      text += paint(padded, tones?.[k] as Parameters<typeof paint>[1], opts.color);
    }
    piece += `${text}\n`;
    if ((i + 1) % ROWS_PER_PIECE === 0 || i === rows.length - 1) {
      yield piece;
      piece = '';
    }
  }
}
