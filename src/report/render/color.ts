/** Colour for text renderings: semantic tones to ANSI SGR codes, and nothing at all when colour is off. */
import type { Tone } from '../columns/types.ts';

/** Text styles used by the renderers besides the cell tones. */
export type Style = Tone | 'bold' | 'added' | 'removed' | 'changed' | 'muted';

const SGR: Readonly<Record<Style, string>> = {
  ok: '32',
  warn: '33',
  error: '31',
  dim: '2',
  bold: '1',
  added: '32',
  removed: '31',
  changed: '33',
  muted: '2',
};

/** Wraps text in the style's escape sequence when `color` is true; returns it unchanged otherwise. */
export function paint(text: string, style: Style | undefined, color: boolean): string {
  if (!color || style === undefined || text === '') return text;
  return `\u001b[${SGR[style]}m${text}\u001b[0m`;
}
