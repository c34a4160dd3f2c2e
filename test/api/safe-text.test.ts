import { describe, expect, it } from 'vitest';
import { sanitizeCell, sanitizeForTerminal } from '../../src/api/safe-text.ts';

describe('terminal-safe text', () => {
  it('escapes ESC sequences, C0/C1 controls, DEL and bidi overrides', () => {
    const evil = 'a\x1b[31mred\x07\x9b2J\u202egnp.exe\u2066x\u2069\x7f';
    const safe = sanitizeForTerminal(evil);
    expect(safe).toBe('a\\x1b[31mred\\x07\\x9b2J\\u202egnp.exe\\u2066x\\u2069\\x7f');
    // eslint-disable-next-line no-control-regex -- checks that no control character survives
    expect(safe).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/);
  });

  it('keeps newlines and tabs in text, escapes them in cells, and leaves unicode alone', () => {
    expect(sanitizeForTerminal('l1\n\tl2 é✓')).toBe('l1\n\tl2 é✓');
    expect(sanitizeCell('l1\n\tl2')).toBe('l1\\n\\tl2');
  });
});
