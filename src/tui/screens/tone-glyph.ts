/** A glyph for a report tone, so a coloured state also reads as a sign. */
import type { Tone } from '../../report/columns/types.ts';

/** `✓` ok, `▲` warn, `✖` error, `·` dim, ` ` none. */
export function toneGlyph(tone: Tone | undefined): string {
  switch (tone) {
    case 'ok':
      return '✓';
    case 'warn':
      return '▲';
    case 'error':
      return '✖';
    case 'dim':
      return '·';
    default:
      return ' ';
  }
}
