/** One line of styled segments, truncated to the width; never wraps. */
import React from 'react';
import { Text } from 'ink';
import { sanitizeCell } from '../../api/safe-text.ts';
import type { PanelLine } from '../data/screen.ts';
import { truncate, textWidth } from '../text.ts';
import type { Theme } from '../theme.ts';

/** Props of a line. */
export interface LineProps {
  readonly line: PanelLine;
  readonly width: number;
  readonly theme: Theme;
}

/** The line without its optional segments (rightmost first) while it is wider than `width`. */
export function fitLine(line: PanelLine, width: number): PanelLine {
  let out = line;
  let total = out.reduce((n, s) => n + textWidth(s.text), 0);
  for (let i = out.length - 1; i >= 0 && total > width; i--) {
    const s = out[i]!;
    if (s.optional !== true) continue;
    total -= textWidth(s.text);
    out = [...out.slice(0, i), ...out.slice(i + 1)];
  }
  return out;
}

/** Draws segments left to right, control characters escaped, cutting at `width` columns. */
export function Line({ line, width, theme }: LineProps): React.ReactElement {
  let room = width;
  const parts: React.ReactElement[] = [];
  fitLine(line, width).forEach((s, i) => {
    if (room <= 0) return;
    // last line of defence: whatever reaches the screen is one line without control characters
    const text = truncate(sanitizeCell(s.text), room);
    room -= textWidth(text);
    parts.push(
      <Text key={i} {...(s.token ? theme[s.token] : {})}>
        {text}
      </Text>,
    );
  });
  // an empty line still takes its line
  return <Text wrap="truncate">{parts.length > 0 && room < width ? parts : ' '}</Text>;
}
