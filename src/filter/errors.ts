/** Errors of the filter and order_by engine: a message, the offending span and a caret rendering. */
import { sanitizeForTerminal } from '../api/safe-text.ts';

/** Input wider than this is shown as a window around the error. */
const WINDOW = 100;

/** An invalid filter or order_by; `start`/`end` are UTF-16 offsets into `input` (end exclusive). */
export class FilterError extends Error {
  override readonly name = 'FilterError';
  /** offset of the first offending character */
  readonly start: number;
  /** offset just after the last offending character (>= start) */
  readonly end: number;
  /** the whole expression the error is about */
  readonly input: string;
  /** a hint that helps fix the input, if any */
  readonly suggestion?: string;

  constructor(message: string, input: string, start: number, end: number = start + 1, suggestion?: string) {
    super(message);
    const s = Math.max(0, Math.min(start, input.length));
    this.start = s;
    this.end = Math.max(s, Math.min(end, input.length));
    this.input = input;
    if (suggestion !== undefined) this.suggestion = suggestion;
  }

  /** The message, the input and a caret line under start..end, then the suggestion. */
  render(): string {
    const { line, caret } = caretLines(this.input, this.start, this.end);
    const parts = [sanitizeForTerminal(this.message), `  ${line}`, `  ${caret}`];
    if (this.suggestion !== undefined) parts.push(`  hint: ${sanitizeForTerminal(this.suggestion)}`);
    return parts.join('\n');
  }
}

/** A warning about a filter that is valid but probably not what the user meant. */
export interface FilterWarning {
  readonly message: string;
  readonly start: number;
  readonly end: number;
}

/**
 * Shows one code point as one terminal column, safely: C0 controls become Unicode control
 * pictures, DEL, C1 controls and bidi overrides become U+FFFD.
 */
function visible(cp: number): string {
  if (cp < 0x20) return String.fromCodePoint(0x2400 + cp);
  if (cp === 0x7f) return '\u2421';
  if (
    (cp >= 0x80 && cp <= 0x9f) ||
    (cp >= 0x202a && cp <= 0x202e) ||
    (cp >= 0x2066 && cp <= 0x2069) ||
    cp === 0x200e ||
    cp === 0x200f ||
    cp === 0x61c
  ) {
    return '\ufffd';
  }
  return String.fromCodePoint(cp);
}

/** The input as one display line plus a caret line aligned under the span (columns = code points). */
export function caretLines(input: string, start: number, end: number): { line: string; caret: string } {
  const cells: string[] = [];
  const offsets: number[] = [];
  for (let i = 0; i < input.length;) {
    const cp = input.codePointAt(i) as number;
    offsets.push(i);
    cells.push(visible(cp));
    i += cp > 0xffff ? 2 : 1;
  }
  offsets.push(input.length);
  const col = (offset: number): number => {
    let c = 0;
    while (c < offsets.length - 1 && (offsets[c + 1] as number) <= offset) c++;
    return c;
  };
  let from = col(start);
  let to = end > start ? col(end - 1) + 1 : from + 1;
  let first = 0;
  let last = cells.length;
  if (cells.length > WINDOW) {
    first = Math.max(0, Math.min(from - 20, cells.length - WINDOW));
    last = Math.min(cells.length, first + WINDOW);
    to = Math.min(to, last + 1);
  }
  let line = cells.slice(first, last).join('');
  let shift = first;
  if (first > 0) {
    line = `…${line}`;
    shift -= 1;
  }
  if (last < cells.length) line = `${line}…`;
  from -= shift;
  to -= shift;
  const caret = ' '.repeat(from) + '^'.repeat(Math.max(1, to - from));
  return { line, caret };
}

/** Levenshtein distance, with case differences counted as half an edit. */
export function editDistance(a: string, b: string): number {
  const prev = new Array<number>(b.length + 1);
  const cur = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    const ca = a[i - 1] as string;
    for (let j = 1; j <= b.length; j++) {
      const cb = b[j - 1] as string;
      const sub = ca === cb ? 0 : ca.toLowerCase() === cb.toLowerCase() ? 0.5 : 1;
      cur[j] = Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + sub);
    }
    for (let j = 0; j <= b.length; j++) prev[j] = cur[j] as number;
  }
  return prev[b.length] as number;
}

/** The candidates closest to `word` (at most three), or none when nothing is close. */
export function nearest(word: string, candidates: Iterable<string>): string[] {
  const limit = Math.max(2, Math.floor(word.length / 3));
  const scored: { name: string; d: number }[] = [];
  const lower = word.toLowerCase();
  for (const name of candidates) {
    const d = lower === name.toLowerCase() ? 0.5 : editDistance(word, name);
    if (d <= limit) scored.push({ name, d });
  }
  scored.sort((x, y) => x.d - y.d || (x.name < y.name ? -1 : 1));
  const best = scored[0]?.d;
  return scored
    .filter((s) => s.d === best || s.d <= 1)
    .slice(0, 3)
    .map((s) => s.name);
}

/** "did you mean a, b or c?" for a non-empty list. */
export function didYouMean(names: readonly string[]): string | undefined {
  if (names.length === 0) return undefined;
  if (names.length === 1) return `did you mean ${names[0]}?`;
  return `did you mean ${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}?`;
}

/** Quotes user input for a message, shortening long text. */
export function quote(text: string, max = 40): string {
  const shown = text.length > max ? `${text.slice(0, max)}…` : text;
  return JSON.stringify(shown);
}
