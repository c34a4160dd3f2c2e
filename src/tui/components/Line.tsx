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

/** Draws segments left to right, control characters escaped, cutting at `width` columns. */
export function Line({ line, width, theme }: LineProps): React.ReactElement {
  let room = width;
  const parts: React.ReactElement[] = [];
  line.forEach((s, i) => {
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
  return <Text wrap="truncate">{parts.length > 0 ? parts : ' '}</Text>;
}
