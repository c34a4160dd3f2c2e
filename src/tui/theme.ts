/**
 * The one theme of the browser: semantic tokens mapped to colours. Every colour is paired with
 * a glyph or a word where it is drawn, so the screen reads the same under NO_COLOR.
 */

/** A style for ink's <Text>: a colour name (or none), bold, dim, inverse. */
export interface TokenStyle {
  readonly color?: string;
  readonly bold?: boolean;
  readonly dimColor?: boolean;
  readonly inverse?: boolean;
}

/** The semantic tokens screens may use; nothing else picks a colour. */
export const TOKEN_NAMES = [
  'title',
  'label',
  'value',
  'muted',
  'accent',
  'ok',
  'info',
  'warn',
  'error',
  'gap',
  'selected',
  'header',
  'rowNew',
  'rowClosed',
  'rowMoving',
  'rowIdle',
  'rowSame',
  'prompt',
  'badge',
] as const;

/** A semantic token. */
export type Token = (typeof TOKEN_NAMES)[number];

/** A theme: one style per token. */
export type Theme = Readonly<Record<Token, TokenStyle>>;

const COLOUR: Theme = {
  title: { color: 'cyan', bold: true },
  label: { color: 'gray' },
  value: {},
  muted: { dimColor: true },
  accent: { color: 'cyan' },
  ok: { color: 'green' },
  info: { color: 'blue' },
  warn: { color: 'yellow' },
  error: { color: 'red', bold: true },
  gap: { color: 'magenta', bold: true },
  selected: { inverse: true },
  header: { bold: true, color: 'cyan' },
  rowNew: { color: 'green' },
  rowClosed: { color: 'red' },
  rowMoving: { color: 'yellow' },
  rowIdle: { dimColor: true },
  rowSame: {},
  prompt: { color: 'cyan', bold: true },
  badge: { color: 'yellow', bold: true },
};

/** True when every token has a style. */
function isComplete(styles: Partial<Record<Token, TokenStyle>>): styles is Theme {
  return TOKEN_NAMES.every((t) => styles[t] !== undefined);
}

/** Under NO_COLOR: no colour at all; emphasis stays (bold, inverse selection). */
const PLAIN: Theme = (() => {
  const plain: Partial<Record<Token, TokenStyle>> = {};
  for (const t of TOKEN_NAMES) plain[t] = { bold: COLOUR[t].bold, inverse: COLOUR[t].inverse };
  if (!isComplete(plain)) throw new Error('the plain theme misses a token');
  return plain;
})();

/** The theme to use: plain when colour is off (NO_COLOR set to anything non-empty, or --no-color). */
export function pickTheme(opts: { noColor: boolean }): Theme {
  return opts.noColor ? PLAIN : COLOUR;
}

/** True when the environment asks for no colour (https://no-color.org: any non-empty NO_COLOR). */
export function colourDisabled(env: Readonly<Record<string, string | undefined>>): boolean {
  const v = env['NO_COLOR'];
  return v !== undefined && v !== '';
}
