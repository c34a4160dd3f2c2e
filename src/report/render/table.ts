/**
 * Text tables (`table` and `wide` output): columns padded to their widest cell, two spaces
 * apart, numbers right-aligned; when a terminal width is given, text columns are cut by the
 * layout rule the browser follows too (src/report/columns/layout.ts), without dropping any.
 * Cells are sanitised again here, so nothing unsafe is drawn.
 */
import { sanitizeCell } from '../../api/safe-text.ts';
import { elide, layoutTable, type ColumnFit, type TableView } from '../columns/index.ts';
import { ByteOut } from './byte-out.ts';
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

/** `text` padded with spaces to `width` columns. */
function pad(text: string, width: number, align: 'left' | 'right'): string {
  const fill = spaces(width - displayWidth(text));
  return align === 'right' ? fill + text : text + fill;
}

/**
 * Column widths (and elisions) that fit `limit`: the layout rule, shrinking only. `widths` holds
 * each cell's width (row i, column k at `i * stride + k`), measured once for the rows' drawing too.
 */
function fitColumns(
  view: TableView,
  rows: readonly (readonly string[])[],
  widths: CellWidths,
  limit: number | undefined,
): ColumnFit[] {
  if (limit === undefined) {
    return view.columns.map((c, k) => {
      let width = displayWidth(c.header);
      for (let i = 0; i < rows.length; i++) width = Math.max(width, cellWidth(widths, rows, i, k));
      return { width };
    });
  }
  return layoutTable(view.columns, rows, limit, { gap: GAP, drop: false, defaultMin: MIN_WIDTH, charWidth });
}

/** Renders a table view as text lines (header first), each ending in a newline. */
export function renderTable(view: TableView, opts: TableOptions): string {
  return [...renderTablePieces(view, opts)].join('');
}

/** renderTable's text in pieces, in order (renderTableChunks decoded: each chunk holds whole lines). */
export function* renderTablePieces(view: TableView, opts: TableOptions): Generator<string, void, undefined> {
  for (const chunk of renderTableChunks(view, opts)) yield chunk.toString('utf8');
}

const NEWLINE = Buffer.from('\n', 'latin1');
const GAP_BYTES = Buffer.from(' '.repeat(GAP), 'latin1');

/**
 * renderTable's text as UTF-8 bytes in chunks of about 64 KB of whole lines (byte-out.ts), in
 * order, each made when asked for: the header line, then the body cell by cell, written straight
 * into the chunk (no padded copy of a cell, no string per line or piece to convert).
 */
export function* renderTableChunks(view: TableView, opts: TableOptions): Generator<Buffer, void, undefined> {
  const stride = view.columns.length;
  const cellWidths: CellWidths = { stride, of: new Int32Array(view.rows.length * stride) };
  const rows = view.rows.map((r, i) => cleanCells(r.cells, cellWidths, i));
  // widths by loops, never Math.max(...rows): spreading 100k rows as arguments overflows the stack
  const fits = fitColumns(view, rows, cellWidths, opts.width);
  const widths = fits.map((f) => f.width);
  const gap = ' '.repeat(GAP);
  const aligns = view.columns.map((c) => c.align);
  const ready: Buffer[] = [];
  const o = new ByteOut((chunk) => ready.push(chunk));
  // the header: cut to its column, bold
  o.text(
    `${view.columns
      .map((c, k) => {
        const shown = truncate(c.header, widths[k]!);
        const padded = k === view.columns.length - 1 && c.align === 'left' ? shown : pad(shown, widths[k]!, c.align);
        return paint(padded, 'bold', opts.color);
      })
      .join(gap)}\n`,
  );
  for (let i = 0; i < rows.length; i++) {
    const cells = rows[i]!;
    const tones = view.rows[i]!.tones;
    const last = cells.length - 1;
    for (let k = 0; k < cells.length; k++) {
      const cell = cells[k]!;
      const align = aligns[k]!;
      const width = widths[k]!;
      let shown = cell;
      let shownWidth = cellWidth(cellWidths, rows, i, k);
      if (!(width > 0 && shownWidth <= width)) {
        shown = elide(cell, width, fits[k]?.elision, charWidth);
        shownWidth = displayWidth(shown);
      }
      const fill = k === last && align === 'left' ? 0 : width - shownWidth;
      if (k > 0) o.bytes(GAP_BYTES);
      const tone = opts.color ? (tones?.[k] as Parameters<typeof paint>[1]) : undefined;
      if (tone !== undefined) {
        const padded = align === 'right' ? spaces(fill) + shown : shown + spaces(fill);
        o.string(paint(padded, tone, true));
      } else if (align === 'right') {
        o.spaces(fill);
        o.string(shown);
      } else {
        o.string(shown);
        o.spaces(fill);
      }
    }
    o.bytes(NEWLINE);
    o.boundary();
    if (ready.length > 0) yield* ready.splice(0);
  }
  o.end();
  yield* ready;
}

/** The widths of a table's cells, measured once: row i, column k at `i * stride + k` (rows have `stride` cells or fewer). */
interface CellWidths {
  readonly stride: number;
  readonly of: Int32Array;
}

/** The width of row i's cell k (as displayWidth gives it), measured by cleanCells. */
function cellWidth(widths: CellWidths, rows: readonly (readonly string[])[], i: number, k: number): number {
  return k < widths.stride ? widths.of[i * widths.stride + k]! : displayWidth(rows[i]![k] ?? '');
}

/**
 * The row's cells sanitised (the same array when every cell already is: no copy per row), and
 * their widths into `widths` (row i). Printable ASCII, most cells, is safe and one column a
 * character: one pass over its characters instead of the sanitiser's test and the width's.
 */
function cleanCells(cells: readonly string[], widths: CellWidths, i: number): readonly string[] {
  let out: string[] | undefined;
  const base = i * widths.stride;
  for (let k = 0; k < cells.length; k++) {
    const cell = cells[k]!;
    let width = printableAsciiLength(cell);
    if (width < 0) {
      const clean = sanitizeCell(cell);
      if (clean !== cell) {
        out ??= cells.slice();
        out[k] = clean;
      }
      width = displayWidth(clean);
    }
    if (k < widths.stride) widths.of[base + k] = width;
  }
  return out ?? cells;
}

/** The length of a string of printable ASCII only (U+0020 to U+007E), else -1. */
function printableAsciiLength(text: string): number {
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) return -1;
  }
  return n;
}

/** Runs of spaces up to this length are made once and shared. */
const SHARED_SPACES = 256;
const spaceRuns: string[] = [];

/** `n` spaces (none when `n` is not positive). */
function spaces(n: number): string {
  if (n <= 0) return '';
  if (n > SHARED_SPACES) return ' '.repeat(n);
  let run = spaceRuns[n];
  if (run === undefined) {
    run = ' '.repeat(n);
    spaceRuns[n] = run;
  }
  return run;
}
