/** Strings a JSON writer must escape for a terminal: C1, bidi and line separators, quotes, astral and lone surrogates. */
export const TERMINAL_UNSAFE_STRINGS: readonly string[] = [
  '\u2028',
  '\u2029',
  '\u202e',
  '\u2066',
  '\u200e',
  '\u061c',
  '\u007f',
  '\u0085',
  '"\\',
  '\ud800',
  '😀',
];
