import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { sanitizeCell } from '../../src/api/safe-text.ts';
import { elide, layoutTable, type ColumnFit, type TableView } from '../../src/report/columns/index.ts';
import type { Tone } from '../../src/report/columns/types.ts';
import { paint } from '../../src/report/render/color.ts';
import { displayWidth, renderTable, truncate } from '../../src/report/render/table.ts';

const piece = fc.oneof(
  fc.string({ unit: 'grapheme-ascii' }),
  fc.constantFrom('漢字', '😀', 'e\u0301', '\u200b', '\t', 'ｱ', 'Ω', '\u0000'),
);

describe('table widths', () => {
  it('measures printable ASCII by its length and every string as the sum of its characters', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 6 }), (pieces) => {
        const text = pieces.join('');
        const sum = [...text].reduce((w, ch) => w + displayWidth(ch), 0);
        expect(displayWidth(text)).toBe(sum);
        if (/^[\x20-\x7e]*$/.test(text)) expect(displayWidth(text)).toBe(text.length);
      }),
    );
    expect(displayWidth('a漢😀e\u0301')).toBe(6);
  });

  it('pads cells that fit and cuts the ones that do not, wide characters counted twice', () => {
    const view = {
      columns: [
        { key: 'a', header: 'A', align: 'left' as const },
        { key: 'n', header: 'N', align: 'right' as const },
        { key: 'z', header: 'Z', align: 'left' as const },
      ],
      rows: [
        { cells: ['漢字x', '7', 'end'], tones: [] },
        { cells: ['ab', '12345', 'e'], tones: [] },
      ],
    };
    expect(renderTable(view as never, { color: false })).toBe('A          N  Z\n漢字x      7  end\nab     12345  e\n');
    expect(renderTable(view as never, { color: false, width: 12 })).toBe('A       N  Z\n…       7  …\nab  12345  e\n');
  });
});

/** renderTable as it was before the body was drawn without arrays per row (the reference). */
function referenceTable(view: TableView, opts: { color: boolean; width?: number }): string {
  const WIDE =
    /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]|[\u{1f300}-\u{1faff}\u{20000}-\u{3fffd}]/u;
  // eslint-disable-next-line no-misleading-character-class -- as in table.ts
  const ZERO = /[\u0300-\u036f\u200b-\u200d\ufe00-\ufe0f]/u;
  const charWidth = (ch: string): number => (ZERO.test(ch) ? 0 : WIDE.test(ch) ? 2 : 1);
  const padTo = (text: string, textWidth: number, width: number, align: 'left' | 'right'): string => {
    const fill = ' '.repeat(Math.max(0, width - textWidth));
    return align === 'right' ? fill + text : text + fill;
  };
  const pad = (text: string, width: number, align: 'left' | 'right'): string =>
    padTo(text, displayWidth(text), width, align);
  const rows = view.rows.map((r) => r.cells.map((c) => sanitizeCell(c)));
  const fits: ColumnFit[] =
    opts.width === undefined
      ? view.columns.map((c, i) => {
          let width = displayWidth(c.header);
          for (const r of rows) width = Math.max(width, displayWidth(r[i] ?? ''));
          return { width };
        })
      : layoutTable(view.columns, rows, opts.width, { gap: 2, drop: false, defaultMin: 6, charWidth });
  const widths = fits.map((f) => f.width);
  const line = (cells: readonly string[], tones: readonly (string | undefined)[] | undefined, header: boolean) =>
    `${cells
      .map((text, i) => {
        const col = view.columns[i]!;
        const last = i === cells.length - 1;
        const width = widths[i]!;
        const textWidth = displayWidth(text);
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
      })
      .join('  ')}\n`;
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

describe('the table body drawn cell by cell', () => {
  const text = fc.oneof(
    { weight: 3, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 14 }) },
    { weight: 1, arbitrary: fc.array(piece, { maxLength: 4 }).map((p) => p.join('')) },
    { weight: 1, arbitrary: fc.constantFrom('', '-', 'orders.v2.payments', 'a\nb', '\u001b[31mx', 'x\u202ey') },
  );
  const tone = fc.constantFrom<Tone | undefined>(undefined, 'ok', 'warn', 'error', 'dim');
  const view = fc.integer({ min: 1, max: 5 }).chain((n) =>
    fc.record({
      columns: fc.array(
        fc.record({
          id: fc.constant('c'),
          header: fc.constantFrom('UID', 'NODE', 'CLIENT ID', 'A', 'PRODUCE/S'),
          align: fc.constantFrom<'left' | 'right'>('left', 'right'),
          min: fc.option(fc.integer({ min: 1, max: 12 }), { nil: undefined }),
          identity: fc.option(fc.constant(true), { nil: undefined }),
        }),
        { minLength: n, maxLength: n },
      ),
      rows: fc.array(
        fc.record({
          cells: fc.array(text, { minLength: n, maxLength: n }),
          tones: fc.array(tone, { minLength: n, maxLength: n }),
        }),
        { maxLength: 6 },
      ),
    }),
  );

  it('draws every view as the reference does, cut to a width or not, in colour or not', () => {
    fc.assert(
      fc.property(
        view,
        fc.option(fc.integer({ min: 4, max: 70 }), { nil: undefined }),
        fc.boolean(),
        (v, width, color) => {
          const opts = width === undefined ? { color } : { color, width };
          expect(renderTable(v, opts)).toBe(referenceTable(v, opts));
        },
      ),
      { numRuns: 800 },
    );
  });
});
