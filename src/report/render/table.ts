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

/** Renders a table view as text lines (header first), each ending in a newline. */
export function renderTable(view: TableView, opts: TableOptions): string {
  const rows = view.rows.map((r) => r.cells.map((c) => sanitizeCell(c)));
  // widths by loops, never Math.max(...rows): spreading 100k rows as arguments overflows the stack
  const fits = fitColumns(view, rows, opts.width);
  const widths = fits.map((f) => f.width);
  const line = (
    cells: readonly string[],
    tones: readonly (string | undefined)[] | undefined,
    header: boolean,
  ): string => {
    const parts = cells.map((text, i) => {
      const col = view.columns[i]!;
      const last = i === cells.length - 1;
      const width = widths[i]!;
      const textWidth = displayWidth(text);
      // a cell that fits is drawn whole (what elide returns for it), measured once
      const whole = !header && width > 0 && textWidth <= width;
      const shown = whole ? text : header ? truncate(text, width) : elide(text, width, fits[i]?.elision, charWidth);
      const padded =
        last && col.align === 'left'
          ? shown
          : whole
            ? padTo(shown, textWidth, width, col.align)
            : pad(shown, width, col.align);
      const style = header ? 'bold' : (tones?.[i] as Parameters<typeof paint>[1]);
      return paint(padded, style, opts.color);
    });
    return `${parts.join(' '.repeat(GAP))}\n`;
  };
  let out = line(
    view.columns.map((c) => c.header),
    undefined,
    true,
  );
  view.rows.forEach((r, i) => {
    out += line(rows[i]!, r.tones, false);
  });
  return out;
}
