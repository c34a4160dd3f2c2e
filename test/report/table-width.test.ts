import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { displayWidth, renderTable } from '../../src/report/render/table.ts';

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
