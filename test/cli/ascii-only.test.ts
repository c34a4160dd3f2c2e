/**
 * The bundles are made ASCII only (scripts/ascii-only.mjs): a character outside ASCII is written
 * as its \uXXXX escape, which must mean the same character wherever esbuild leaves one (comments,
 * regular expression literals) and wherever else it could stand (strings, untagged templates).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module of the scripts, without type declarations
import { asciiOnlyFile, escapeNonAscii } from '../../scripts/ascii-only.mjs';

const escape = escapeNonAscii as (text: string) => string;
const rewrite = asciiOnlyFile as (file: string) => number;
const ascii = (s: string): boolean => /^\p{ASCII}*$/u.test(s);

describe('escapeNonAscii', () => {
  it('keeps the meaning of regular expressions, strings and templates, astral characters included', () => {
    const source = [
      '// µs → comment',
      'const re = /(ns|us|µs|μs)/y;',
      'const ru = /^😀+$/u;',
      "const str = 'a µ 😀 ×';",
      'const tpl = `${str} ≥ 1`;',
      '({ matches: [re.exec("µs")?.[1], /(ns|μs)/.exec("xμs")?.[1]], astral: ru.test("😀😀"), str, tpl })',
    ].join('\n');
    const escaped = escape(source);
    expect(ascii(escaped)).toBe(true);
    expect(runInNewContext(escaped)).toEqual(runInNewContext(source));
    expect(runInNewContext(escaped)).toEqual({
      matches: ['µs', 'μs'],
      astral: true,
      str: 'a µ 😀 ×',
      tpl: 'a µ 😀 × ≥ 1',
    });
  });

  it('rewrites a file only when it has something to escape, and says how many characters', () => {
    const dir = mkdtempSync(join(tmpdir(), 'flightrec-ascii-'));
    try {
      const file = join(dir, 'a.cjs');
      writeFileSync(file, "module.exports = /µs/.test('µs'); // →\n");
      expect(rewrite(file)).toBe(3);
      const text = readFileSync(file, 'utf8');
      expect(ascii(text)).toBe(true);
      expect(runInNewContext(`const module = {}; ${text}; module.exports`)).toBe(true);
      expect(rewrite(file)).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
