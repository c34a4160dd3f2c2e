/**
 * The one layout rule of every table, text and browser alike: how columns give way when a table
 * does not fit its width. Each column first gets its natural width (its widest cell, at least its
 * header). When the total is too wide, in this order:
 *
 * 1. free text gives up its rare long values: a text column shrinks to the width most of its
 *    values fit (never so far that two different values read the same);
 * 2. columns whose value is the same on every row (or empty) give up their width: they drop out
 *    (after the text of less important columns gave way);
 * 3. the filling column (a description) shrinks to a third of the width, the other text columns
 *    to the width that still tells their values apart, then the filling column to its minimum;
 * 4. text columns shrink to their minimum (never below their header), the row's identifying
 *    column never below the width that tells its values apart;
 * 5. the least important column drops out (highest priority number, rightmost), except the
 *    identifying column and the description, and the layout starts again;
 * 6. what is left is cut further, headers last.
 *
 * Numbers, times and states are never cut (they keep their units); they only drop out. A cut
 * value ends in `…`, or when that reads better for the column (names sharing a prefix), keeps its
 * distinguishing end: `…/dr-primary/payments`, `task/…/role_sync/0/1`. Width freed by a dropped
 * column goes back to the columns that were cut. Pure.
 */

/** How a column gives way when its table does not fit. */
export interface LayoutSpec {
  readonly header: string;
  readonly align: 'left' | 'right';
  /** free text that may be cut (default: left-aligned columns) */
  readonly flexible?: boolean;
  /** 1 keeps the column longest; higher numbers drop out first (default 2) */
  readonly priority?: number;
  /** narrowest a flexible column may be cut to (never below its header) */
  readonly min?: number;
  /** the column never drops out (the row's identity, a description) */
  readonly keep?: boolean;
  /** the row's identifying column: never cut so far that two rows read the same */
  readonly identity?: boolean;
  /** takes the width left over (a description): shrinks before the other text columns */
  readonly fill?: boolean;
  /** a cut value keeps its end (the newest part of a history), not its start */
  readonly keepEnd?: boolean;
}

/**
 * Where a cut value is elided: a number keeps that many display columns of its start before the
 * `…` and its end after it; `lead` keeps the path segments at its end (`…/dr-primary/payments`);
 * `first` its first segment too (`task/…/role_sync/0/1`). Separators: `/ . :`; where whole
 * segments would leave half the width empty, the end is cut anywhere.
 */
export type Elision = number | 'lead' | 'first';

/** Where a column ends up: its width (0: dropped), and how its cut values are elided. */
export interface ColumnFit {
  readonly width: number;
  /** undefined: cut values keep their start (`orders-serv…`), or nothing is cut */
  readonly elision?: Elision;
  /** a dropped column whose value is the same on every row: that value (to say so elsewhere) */
  readonly same?: string;
}

/** Options of the layout. */
export interface LayoutOptions {
  /** spaces between columns (default 2) */
  readonly gap?: number;
  /** may columns drop out (the browser) or only shrink (text output); default true */
  readonly drop?: boolean;
  /** minimum of a flexible column without its own (default 8) */
  readonly defaultMin?: number;
  /** display columns of one character (default 1) */
  readonly charWidth?: (ch: string) => number;
}

/** Rows looked at for the widths most values fit and for telling values apart. */
const SAMPLE = 400;
/** Share of the values a text column keeps whole in step 1. */
const TYPICAL = 0.9;
/** Share of the width the filling column keeps while other text columns still read apart when cut. */
const FILL_SHARE = 0.3;
const one = (): number => 1;

/** Display width of a text. */
export function measureText(text: string, charWidth: (ch: string) => number = one): number {
  if (charWidth === one) {
    let n = 0;
    for (const _ of text) n++;
    return n;
  }
  let n = 0;
  for (const ch of text) n += charWidth(ch);
  return n;
}

/** Where a path-like value may be cut: before each separator. */
const SEPARATOR = /[/.:]/;

/**
 * `text` within `width` display columns: whole when it fits; else cut as `elision` says
 * (undefined: its start and `…`).
 */
export function elide(text: string, width: number, elision?: Elision, charWidth: (ch: string) => number = one): string {
  if (width <= 0) return '';
  if (text.length <= width && charWidth === one) return text;
  const chars = Array.from(text);
  const widths = charWidth === one ? undefined : chars.map(charWidth);
  const w = (i: number): number => (widths === undefined ? 1 : (widths[i] ?? 1));
  let total = 0;
  for (let i = 0; i < chars.length; i++) total += w(i);
  if (total <= width) return text;
  if (elision === 'lead' || elision === 'first') {
    // the first segment when it leaves room, else the end's segments alone, else the end cut anywhere
    const segmented =
      (elision === 'first' ? elideSegments(chars, w, width, true) : undefined) ?? elideSegments(chars, w, width, false);
    if (segmented !== undefined) return segmented;
  }
  const head =
    typeof elision === 'number' ? Math.max(0, Math.min(elision, width - 1)) : elision === undefined ? width - 1 : 0;
  let start = '';
  let used = 0;
  let i = 0;
  for (; i < chars.length && used + w(i) <= head; i++) {
    start += chars[i];
    used += w(i);
  }
  let end = '';
  // a cut at the end keeps no end
  let room = elision === undefined ? 0 : width - 1 - used;
  for (let k = chars.length - 1; k >= i && room > 0 && w(k) <= room; k--) {
    end = chars[k] + end;
    room -= w(k);
  }
  return `${start}…${end}`;
}

/** `first/…/the/longest/end` (or `…/the/longest/end`) within `width`, the end starting at a separator; undefined when none fits. */
function elideSegments(
  chars: readonly string[],
  w: (i: number) => number,
  width: number,
  first: boolean,
): string | undefined {
  let prefix = 0;
  let prefixWidth = 0;
  if (first) {
    while (prefix < chars.length && !SEPARATOR.test(chars[prefix]!)) prefixWidth += w(prefix++);
    if (prefix >= chars.length) return undefined;
    prefixWidth += w(prefix++);
  }
  const widthFrom = (k: number): number => {
    let n = 0;
    for (let i = k; i < chars.length; i++) n += w(i);
    return n;
  };
  // widths of every suffix, to find the longest one that starts at a separator and fits
  let suffixWidth = 0;
  let best: number | undefined;
  for (let k = chars.length - 1; k >= prefix + 1; k--) {
    suffixWidth += w(k);
    if (prefixWidth + 1 + suffixWidth > width) break;
    if (SEPARATOR.test(chars[k]!)) best = k;
  }
  // an end of whole segments that leaves much of the width empty reads worse than a plain cut
  if (best === undefined || prefixWidth + 1 + widthFrom(best) < width / 2) return undefined;
  return `${chars.slice(0, prefix).join('')}…${chars.slice(best).join('')}`;
}

/** Evenly spread indexes of at most `max` elements out of `count` (always the first and last). */
export function sampleIndexes(count: number, max: number): number[] {
  if (count <= max) return Array.from({ length: count }, (_, i) => i);
  const out: number[] = [];
  const step = (count - 1) / (max - 1);
  for (let i = 0; i < max; i++) out.push(Math.round(i * step));
  return out;
}

/** True when every value is the same, or empty (`-`). */
function isConstant(values: readonly string[]): boolean {
  const first = values[0];
  if (first === undefined) return false;
  let same = true;
  let empty = true;
  for (const v of values) {
    if (v !== first) same = false;
    if (v !== '' && v !== '-') empty = false;
    if (!same && !empty) return false;
  }
  return true;
}

/** The elisions tried for a cut column of `width`, in order of preference: the end cut (the usual reading), whole segments, ever more of the end. */
function elisionCandidates(width: number): (Elision | undefined)[] {
  const last = width - 1;
  const out: (Elision | undefined)[] = [undefined, 'first', 'lead'];
  for (let k = 5; k >= 0; k--) {
    const h = Math.round((last * k) / 6);
    if (!out.includes(h)) out.push(h);
  }
  return out;
}

/** One column's values and the memoised answers about them. */
class ColumnValues {
  readonly #values: readonly string[];
  readonly #charWidth: (ch: string) => number;
  readonly #distinct: number;
  readonly #best = new Map<number, { elision: Elision | undefined; distinct: number }>();

  constructor(values: readonly string[], charWidth: (ch: string) => number) {
    this.#values = values;
    this.#charWidth = charWidth;
    this.#distinct = new Set(values).size;
  }

  /** The elision that keeps the most values apart at `width` (the most preferred among equals), and how many it keeps apart. */
  best(width: number): { elision: Elision | undefined; distinct: number } {
    let found = this.#best.get(width);
    if (found !== undefined) return found;
    found = { elision: undefined, distinct: 0 };
    for (const e of elisionCandidates(width)) {
      const seen = new Set<string>();
      for (const v of this.#values) seen.add(elide(v, width, e, this.#charWidth));
      if (seen.size > found.distinct) found = { elision: e, distinct: seen.size };
      if (seen.size === this.#distinct) break;
    }
    this.#best.set(width, found);
    return found;
  }

  /** True when the values still read apart at `width`; `readable`: cut at their end or at whole segments only. */
  apart(width: number, readable = false): boolean {
    if (this.#distinct <= 1) return true;
    const best = this.best(width);
    return best.distinct === this.#distinct && (!readable || typeof best.elision !== 'number');
  }

  /**
   * The narrowest width from `from` up to `to` at which the values still read apart: cut at
   * their end or at whole segments if any width allows it, else cut anywhere.
   */
  narrowestApart(from: number, to: number): number {
    const scan = (readable: boolean): number => {
      let w = from;
      while (w < to && !this.apart(w, readable)) w = w < from + 16 ? w + 1 : Math.min(to, Math.ceil(w * 1.25));
      return Math.min(w, to);
    };
    const readable = scan(true);
    return readable < to ? readable : scan(false);
  }

  /** The width `share` of the values fit in. */
  quantile(share: number, measure: (s: string) => number): number {
    if (this.#values.length === 0) return 0;
    const ws = this.#values.map(measure).sort((a, b) => a - b);
    return ws[Math.min(ws.length - 1, Math.max(0, Math.ceil(share * ws.length) - 1))] ?? 0;
  }
}

/** Cuts the widest of the columns over their target down together until `over()` is 0 or the targets are reached. */
function shrink(widths: number[], targets: readonly (number | undefined)[], over: () => number): void {
  while (over() > 0) {
    let top = -1;
    for (let i = 0; i < widths.length; i++) {
      const t = targets[i];
      if (t !== undefined && widths[i]! > t && widths[i]! > top) top = widths[i]!;
    }
    if (top <= 0) return;
    const widest: number[] = [];
    let next = 0;
    for (let i = 0; i < widths.length; i++) {
      const t = targets[i];
      if (t === undefined || widths[i]! <= t) continue;
      if (widths[i] === top) {
        widest.push(i);
        next = Math.max(next, t);
      } else next = Math.max(next, widths[i]!);
    }
    const cut = Math.max(1, Math.min(top - next, Math.ceil(over() / widest.length)));
    for (const i of widest) widths[i] = Math.max(targets[i] ?? 0, top - cut);
  }
}

/**
 * Lays out columns of `rows` (display texts, parallel to `specs`) within `total` display
 * columns; see the module comment for the rule.
 */
export function layoutTable(
  specs: readonly LayoutSpec[],
  rows: readonly (readonly string[])[],
  total: number,
  opts: LayoutOptions = {},
): ColumnFit[] {
  const gap = opts.gap ?? 2;
  const charWidth = opts.charWidth ?? one;
  const measure = (s: string): number => measureText(s, charWidth);
  const sample = sampleIndexes(rows.length, SAMPLE).map((i) => rows[i] ?? []);
  const header = specs.map((s) => measure(s.header));
  const natural = specs.map((_, j) => {
    let w = Math.max(1, header[j] ?? 1);
    for (const r of rows) w = Math.max(w, measure(r[j] ?? ''));
    return w;
  });
  const flexible = specs.map((s) => s.flexible ?? s.align === 'left');
  const floor = specs.map((s, j) =>
    flexible[j] ? Math.min(natural[j]!, Math.max(header[j]!, s.min ?? opts.defaultMin ?? 8)) : natural[j]!,
  );
  const constant = specs.map((_, j) => rows.length > 1 && isConstant(rows.map((r) => r[j] ?? '')));
  const values = specs.map(
    (_, j) =>
      new ColumnValues(
        sample.map((r) => r[j] ?? ''),
        charWidth,
      ),
  );
  const cache = new Map<string, number>();
  const memo = (key: string, f: () => number): number => {
    let v = cache.get(key);
    if (v === undefined) cache.set(key, (v = f()));
    return v;
  };
  /** the width that tells the column's values apart, from its floor */
  const apart = (j: number): number => memo(`a${j}`, () => values[j]!.narrowestApart(floor[j]!, natural[j]!));
  /** the width most of the column's values fit, values still apart */
  const typical = (j: number): number =>
    memo(`t${j}`, () => {
      const q = Math.max(floor[j]!, Math.min(natural[j]!, values[j]!.quantile(TYPICAL, measure)));
      return values[j]!.narrowestApart(q, natural[j]!);
    });
  const shown = specs.map(() => true);
  const canDrop = opts.drop !== false;
  const room = (ws: readonly number[]): number =>
    ws.reduce((a, w) => a + w, 0) + gap * Math.max(0, ws.filter((w) => w > 0).length - 1);
  const visible = (): number[] => shown.flatMap((v, i) => (v ? [i] : []));
  /** the column to drop among `ok` ones: highest priority number, rightmost among equals */
  const pickDrop = (ok: (j: number) => boolean): number | undefined => {
    let drop: number | undefined;
    for (const j of visible()) {
      if (!ok(j)) continue;
      if (drop === undefined || (specs[j]!.priority ?? 2) >= (specs[drop]!.priority ?? 2)) drop = j;
    }
    return drop;
  };
  const only = (pick: (j: number) => number | undefined): (number | undefined)[] =>
    specs.map((_, j) => (shown[j] ? pick(j) : undefined));

  for (;;) {
    const widths = natural.map((w, j) => (shown[j] ? w : 0));
    const over = (): number => room(widths) - total;
    const fitted = (): ColumnFit[] =>
      finish(widths, natural, values, total - room(widths), specs).map((f, j) =>
        f.width === 0 && constant[j] === true ? { ...f, same: rows[0]?.[j] ?? '' } : f,
      );
    if (over() <= 0) return fitted();
    shrink(
      widths,
      only((j) => (flexible[j] && specs[j]!.fill !== true ? typical(j) : undefined)),
      over,
    );
    if (over() <= 0) return fitted();
    const still = visible();
    const isFill = (j: number): boolean => specs[j]!.fill === true && flexible[j] === true;
    const constantDrop = canDrop
      ? pickDrop((j) => constant[j] === true && specs[j]!.keep !== true && still.length > 1)
      : undefined;
    if (constantDrop !== undefined) {
      // less important free text gives way before a column of one value drops out
      const rank = specs[constantDrop]!.priority ?? 2;
      shrink(
        widths,
        only((j) => (flexible[j] && !isFill(j) && (specs[j]!.priority ?? 2) > rank ? floor[j] : undefined)),
        over,
      );
      if (over() <= 0) return fitted();
      shown[constantDrop] = false;
      continue;
    }
    shrink(
      widths,
      only((j) => (isFill(j) ? Math.max(floor[j]!, Math.min(natural[j]!, Math.floor(total * FILL_SHARE))) : undefined)),
      over,
    );
    shrink(
      widths,
      only((j) => (flexible[j] && !isFill(j) ? apart(j) : undefined)),
      over,
    );
    shrink(
      widths,
      only((j) => (isFill(j) ? floor[j] : undefined)),
      over,
    );
    shrink(
      widths,
      only((j) => (flexible[j] ? (specs[j]!.identity === true ? apart(j) : floor[j]) : undefined)),
      over,
    );
    if (over() <= 0) return fitted();
    const drop = canDrop && still.length > 1 ? pickDrop((j) => specs[j]!.keep !== true) : undefined;
    if (drop !== undefined) {
      shown[drop] = false;
      continue;
    }
    shrink(
      widths,
      only((j) => (flexible[j] ? floor[j] : undefined)),
      over,
    );
    shrink(
      widths,
      only((j) => (flexible[j] ? Math.min(header[j]!, widths[j]!) : undefined)),
      over,
    );
    // the browser cuts even numbers rather than draw past the edge; text output stays whole
    if (canDrop) {
      if (still.length === 1) widths[still[0]!] = Math.max(0, Math.min(natural[still[0]!]!, total));
      shrink(
        widths,
        only(() => 1),
        over,
      );
    }
    return fitted();
  }
}

/** Gives width left over back to the columns that were cut (the filling one first), then chooses each cut column's elision. */
function finish(
  widths: number[],
  natural: readonly number[],
  values: readonly ColumnValues[],
  spare: number,
  specs: readonly LayoutSpec[],
): ColumnFit[] {
  let left = spare;
  const order = specs
    .map((s, j) => ({ j, rank: s.fill === true ? 0 : s.identity === true ? 1 : 2 }))
    .sort((a, b) => a.rank - b.rank);
  for (const { j } of order) {
    if (left <= 0) break;
    const w = widths[j]!;
    if (w <= 0 || w >= natural[j]!) continue;
    const more = Math.min(left, natural[j]! - w);
    widths[j] = w + more;
    left -= more;
  }
  return widths.map((width, j) => {
    if (width <= 0 || width >= natural[j]!) return { width };
    // a history keeps its newest end, a description its start; names what tells them apart
    if (specs[j]!.keepEnd === true) return { width, elision: 0 };
    const elision = specs[j]!.fill === true ? undefined : values[j]!.best(width).elision;
    return elision === undefined ? { width } : { width, elision };
  });
}
