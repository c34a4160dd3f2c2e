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

/** A column to lay out: its header, alignment, the widest content seen, and how it gives way. */
export interface ColumnShape {
  readonly header: string;
  readonly align: 'left' | 'right';
  /** widest cell text seen (header excluded) */
  readonly content: number;
  /** the column may be shrunk below its content, down to `min` (long free text) */
  readonly flexible?: boolean;
  /** 1 keeps the column longest; higher numbers drop out first when the table does not fit (default 2) */
  readonly priority?: number;
  /** narrowest a flexible column may become (never below its header); default 8 */
  readonly min?: number;
}

/** Default narrowest width of a flexible column. */
const FLEX_MIN = 8;

/** Cuts the widest of the `allowed` columns down together (water-filling) until `fits`, never below their floors. */
function waterFill(widths: number[], floors: readonly number[], allowed: readonly boolean[], over: () => number): void {
  while (over() > 0) {
    const candidates = widths.map((w, i) => (allowed[i] === true && w > (floors[i] ?? 0) ? w : -1));
    const top = Math.max(...candidates);
    if (top <= 0) return;
    const widest = candidates.flatMap((w, i) => (w === top ? [i] : []));
    const next = Math.max(...widest.map((i) => floors[i] ?? 0), ...candidates.filter((w) => w >= 0 && w < top));
    const cut = Math.max(1, Math.min(top - next, Math.ceil(over() / widest.length)));
    for (const i of widest) widths[i] = Math.max(floors[i] ?? 0, top - cut);
  }
}

/**
 * Widths for columns separated by `gap` spaces within `total` columns. Each gets its content
 * width (at least its header's). When that does not fit, flexible columns (free text) give way
 * down to their minimum (never below their header, so every header stays readable); numbers,
 * times and states are never cut, so they keep their units. When the minimums still do not fit,
 * the column of the highest priority number (the rightmost among equals) drops out (width 0),
 * and the layout starts again. Only when a single column is left is it cut to the width.
 */
export function layoutColumns(shapes: readonly ColumnShape[], total: number, gap = 2): number[] {
  const want = shapes.map((s) => Math.max(textWidth(s.header), s.content, 1));
  const floor = shapes.map((s, i) =>
    s.flexible === true ? Math.min(want[i] ?? 1, Math.max(textWidth(s.header), s.min ?? FLEX_MIN)) : (want[i] ?? 1),
  );
  const shown = shapes.map(() => true);
  const room = (ws: readonly number[]): number =>
    ws.reduce((a, w) => a + w, 0) + gap * Math.max(0, ws.filter((w) => w > 0).length - 1);
  for (;;) {
    const widths = want.map((w, i) => (shown[i] ? w : 0));
    const over = (): number => room(widths) - total;
    if (over() <= 0) return widths;
    const floors = floor.map((f, i) => (shown[i] ? f : 0));
    if (room(floors) <= total) {
      waterFill(
        widths,
        floors,
        shapes.map((s, i) => shown[i] === true && s.flexible === true),
        over,
      );
      return widths;
    }
    const visible = shown.flatMap((v, i) => (v ? [i] : []));
    if (visible.length <= 1) {
      const only = visible[0];
      if (only !== undefined) widths[only] = Math.max(0, Math.min(want[only] ?? 0, total));
      return widths;
    }
    // drop the least important column: highest priority number, rightmost among equals
    let drop = visible[0] as number;
    for (const i of visible) if ((shapes[i]?.priority ?? 2) >= (shapes[drop]?.priority ?? 2)) drop = i;
    shown[drop] = false;
  }
}

/** Joins cells into one line using the widths (hidden columns skipped). */
export function joinCells(
  cells: readonly string[],
  widths: readonly number[],
  aligns: readonly ('left' | 'right')[],
  gap = 2,
): string {
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
