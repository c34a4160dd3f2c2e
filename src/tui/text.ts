/** Fitting text into terminal columns: truncation with an ellipsis, padding. Pure. */
import { elide, type Elision } from '../report/columns/layout.ts';

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

/** Truncates or pads `text` to exactly `width` columns; a cut keeps its start, or what `elision` (a column layout's choice) says. */
export function fit(text: string, width: number, align: 'left' | 'right' = 'left', elision?: Elision): string {
  const t = elision === undefined ? truncate(text, width) : elide(text, width, elision);
  const pad = width - textWidth(t);
  if (pad <= 0) return t;
  return align === 'right' ? ' '.repeat(pad) + t : t + ' '.repeat(pad);
}

/** Splits text into lines of at most `width` columns at spaces (a longer word is cut). */
export function wrapText(text: string, width: number): string[] {
  const w = Math.max(1, width);
  const out: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((x) => x !== '')) {
    let rest = word;
    while (Array.from(rest).length > w) {
      if (line !== '') {
        out.push(line);
        line = '';
      }
      const chars = Array.from(rest);
      out.push(chars.slice(0, w).join(''));
      rest = chars.slice(w).join('');
    }
    if (line === '') line = rest;
    else if (Array.from(`${line} ${rest}`).length <= w) line = `${line} ${rest}`;
    else {
      out.push(line);
      line = rest;
    }
  }
  if (line !== '' || out.length === 0) out.push(line);
  return out;
}
