/** The bottom two lines when no prompt is open: a status line (message or filter) and the keys of the view. */
import React from 'react';
import { Box, Text } from 'ink';
import { sanitizeCell } from '../../api/safe-text.ts';
import { bindingsFor } from '../keymap.ts';
import type { Flash } from '../state/app.ts';
import type { ViewKind } from '../state/views.ts';
import { textWidth, truncate, wrapText } from '../text.ts';
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

/** Footer keys that stay whatever the width: help and quit. */
const KEPT = new Set(['help', 'quit']);

/**
 * The keys of a view as one footer line within `width` (`Enter open  Esc back ... ? help  q quit`):
 * `? help` and `q quit` always end it; the others are listed in keymap order while they fit.
 */
export function footerKeys(view: ViewKind, width = Infinity): string {
  const withFooter = bindingsFor(view).filter((b) => b.footer !== undefined);
  const tail = withFooter.filter((b) => KEPT.has(b.command)).map((b) => `${b.label} ${b.footer}`);
  const room = width - tail.reduce((n, t) => n + t.length + 2, 0);
  const head: string[] = [];
  let used = 0;
  for (const b of withFooter) {
    if (KEPT.has(b.command)) continue;
    const text = `${b.label} ${b.footer}`;
    if (used + text.length + 2 > room) break;
    head.push(text);
    used += text.length + 2;
  }
  return [...head, ...tail].join('  ');
}

/** The status lines within `width`: the message (or the status) whole on one line, or wrapped on two (the second cut when even that is short). */
export function footerStatus(flash: Flash | undefined, status: string, width: number): string[] {
  const text = flash !== undefined ? `${GLYPH[flash.tone]} ${sanitizeCell(flash.text)}` : sanitizeCell(status);
  if (textWidth(text) <= width) return [text];
  const lines = wrapText(text, width);
  const rest = lines.slice(1).join(' ');
  return [lines[0] ?? '', truncate(rest, width)];
}

/** The footer. */
export function Footer({ view, flash, status, width, theme }: FooterProps): React.ReactElement {
  const tone = flash !== undefined ? theme[flash.tone] : theme.label;
  return (
    <Box flexDirection="column">
      {footerStatus(flash, status, width).map((l, i) => (
        <Text key={i} wrap="truncate" {...tone}>
          {l}
        </Text>
      ))}
      <Text wrap="truncate" {...theme.muted}>
        {truncate(footerKeys(view, width), width)}
      </Text>
    </Box>
  );
}
