/**
 * The browser on a database without polls suggests starting a collector with the command that
 * works for the way flightrec was started (issue 39: never a bare or npx name that resolves elsewhere).
 */
import { describe, expect, it } from 'vitest';
import { emptyScreen } from '../../src/tui/screens/index.ts';

const text = (launcher?: string): string =>
  emptyScreen(launcher)
    .panel.flat()
    .map((s) => s.text)
    .join('');

describe('the empty screen', () => {
  it('names the collector command as the user starts flightrec', () => {
    expect(text()).toContain('Start a collector (flightrec collect)');
    expect(text("node '/opt/fr/bin/flightrec.js'")).toContain("(node '/opt/fr/bin/flightrec.js' collect)");
  });
});
