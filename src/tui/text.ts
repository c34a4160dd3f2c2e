/** Fitting text into terminal columns: truncation with an ellipsis, padding, column widths. Pure. */

/** Display width of a string, counted in code points (cells come sanitised: no controls). */
export function textWidth(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** Cuts `text` to at most `width` columns, ending in `…` when it was longer. */
export function truncate(text: string, width: number): string {
  if (width <= 0) return '';
  if (text.length <= width) return text;
  const chars = Array.from(text);
  if (chars.length <= width) return text;
  return `${chars.slice(0, Math.max(0, width - 1)).join('')}…`;
}

/** Truncates or pads `text` to exactly `width` columns. */
export function fit(text: string, width: number, align: 'left' | 'right' = 'left'): string {
  const t = truncate(text, width);
  const pad = width - textWidth(t);
  if (pad <= 0) return t;
  return align === 'right' ? ' '.repeat(pad) + t : t + ' '.repeat(pad);
}

/** A column to lay out: its header, alignment and the widest content seen. */
export interface ColumnShape {
  readonly header: string;
  readonly align: 'left' | 'right';
  /** widest cell text seen (header excluded) */
  readonly content: number;
  /** the column may be shrunk below its content (long free text) */
  readonly flexible?: boolean;
}

/** Cuts the widest of the `allowed` columns down together (water-filling) until `fits`, never below `floor`. */
function waterFill(widths: number[], allowed: readonly boolean[], floor: number, over: () => number): void {
  while (over() > 0) {
    const candidates = widths.map((w, i) => (allowed[i] === true && w > floor ? w : -1));
    const top = Math.max(...candidates);
    if (top <= floor) return;
    const widest = candidates.flatMap((w, i) => (w === top ? [i] : []));
    const next = Math.max(floor, ...candidates.filter((w) => w >= 0 && w < top));
    const cut = Math.max(1, Math.min(top - next, Math.ceil(over() / widest.length)));
    for (const i of widest) widths[i] = top - cut;
  }
}

/**
 * Widths for columns separated by `gap` spaces within `total` columns: each gets its content
 * width (at least its header's). When that does not fit, the flexible columns (free text) give
 * way first, down to 8, then all of them, widest first, down to 4; columns that still do not
 * fit get width 0 (hidden).
 */
export function layoutColumns(shapes: readonly ColumnShape[], total: number, gap = 2): number[] {
  const want = shapes.map((s) => Math.max(textWidth(s.header), s.content, 1));
  const room = (ws: readonly number[]): number => ws.reduce((a, w) => a + w, 0) + gap * Math.max(0, ws.filter((w) => w > 0).length - 1);
  const widths = [...want];
  const over = (): number => room(widths) - total;
  waterFill(widths, shapes.map((s) => s.flexible === true), 8, over);
  waterFill(widths, shapes.map(() => true), 4, over);
  // still too wide: hide columns from the right
  for (let i = widths.length - 1; i > 0 && room(widths) > total; i--) widths[i] = 0;
  return widths;
}

/** Joins cells into one line using the widths (hidden columns skipped). */
export function joinCells(cells: readonly string[], widths: readonly number[], aligns: readonly ('left' | 'right')[], gap = 2): string {
  const parts: string[] = [];
  for (let i = 0; i < widths.length; i++) {
    const w = widths[i] as number;
    if (w <= 0) continue;
    parts.push(fit(cells[i] ?? '', w, aligns[i] ?? 'left'));
  }
  return parts.join(' '.repeat(gap));
}

/** Evenly spread indexes of at most `max` elements out of `count` (always the first and last). */
export function sampleIndexes(count: number, max: number): number[] {
  if (count <= max) return Array.from({ length: count }, (_, i) => i);
  const out: number[] = [];
  const step = (count - 1) / (max - 1);
  for (let i = 0; i < max; i++) out.push(Math.round(i * step));
  return out;
}
