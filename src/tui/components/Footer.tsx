/** The bottom two lines when no prompt is open: a status line (message or filter) and the keys of the view. */
import React from 'react';
import { Box, Text } from 'ink';
import { sanitizeCell } from '../../api/safe-text.ts';
import { bindingsFor } from '../keymap.ts';
import type { Flash } from '../state/app.ts';
import type { ViewKind } from '../state/views.ts';
import { truncate } from '../text.ts';
import type { Theme } from '../theme.ts';

/** Props of the footer. */
export interface FooterProps {
  readonly view: ViewKind;
  readonly flash?: Flash;
  /** the status when there is no message: the active filter, or how to set one */
  readonly status: string;
  readonly width: number;
  readonly theme: Theme;
}

const GLYPH: Readonly<Record<Flash['tone'], string>> = { ok: '✓', info: 'ℹ', warn: '⚠', error: '✗' };

/** The keys of a view as one footer line (`<Enter> open  <Esc> back ...`). */
export function footerKeys(view: ViewKind): string {
  return bindingsFor(view)
    .filter((b) => b.footer !== undefined)
    .map((b) => `<${b.label}> ${b.footer}`)
    .join('  ');
}

/** The footer. */
export function Footer({ view, flash, status, width, theme }: FooterProps): React.ReactElement {
  return (
    <Box flexDirection="column">
      {flash !== undefined ? (
        <Text wrap="truncate" {...theme[flash.tone]}>
          {truncate(`${GLYPH[flash.tone]} ${sanitizeCell(flash.text)}`, width)}
        </Text>
      ) : (
        <Text wrap="truncate" {...theme.label}>
          {truncate(sanitizeCell(status), width)}
        </Text>
      )}
      <Text wrap="truncate" {...theme.muted}>
        {truncate(footerKeys(view), width)}
      </Text>
    </Box>
  );
}
