/** The `?` screen: every key of the current view from the keymap, what Enter does here, and the colour legend. */
import React from 'react';
import { Box } from 'ink';
import { bindingsFor, ENTER_HELP, type Binding } from '../keymap.ts';
import type { PanelLine } from '../data/screen.ts';
import { seg } from '../data/screen.ts';
import { CHANGE_STYLE, SEVERITY_STYLE } from '../glyphs.ts';
import type { ViewKind } from '../state/views.ts';
import { fit } from '../text.ts';
import type { Theme } from '../theme.ts';
import { Line } from './Line.tsx';

/** Props of the help screen. */
export interface HelpViewProps {
  readonly view: ViewKind;
  readonly height: number;
  readonly width: number;
  readonly theme: Theme;
}

const GROUPS: readonly [Binding['group'], string][] = [
  ['navigate', 'Navigate'],
  ['time', 'Time travel'],
  ['view', 'This view'],
  ['general', 'General'],
];

/** The help lines of a view (pure: the tests and the screen read the same list). */
export function helpLines(view: ViewKind): PanelLine[] {
  const lines: PanelLine[] = [[seg(`Help: ${view}`, 'title'), seg('   Esc or ? closes', 'muted')]];
  const bindings = bindingsFor(view);
  for (const [group, title] of GROUPS) {
    const inGroup = bindings.filter((b) => b.group === group);
    if (inGroup.length === 0) continue;
    lines.push([seg(title, 'header')]);
    for (const b of inGroup) {
      const help = b.command === 'enter' ? (ENTER_HELP[view] ?? b.help) : b.help;
      const keys = b.keys.map((k) => (k === ' ' ? 'space' : k)).join(' ');
      lines.push([seg(`  ${fit(keys, 17)}`, 'accent'), seg(help, 'value')]);
    }
  }
  if (view === 'connections') {
    lines.push([seg('Rows', 'header')]);
    for (const s of Object.values(CHANGE_STYLE)) lines.push([seg(`  ${fit(s.glyph, 17)}`, s.token), seg(s.word, s.token)]);
  }
  if (view === 'timeline' || view === 'overview') {
    lines.push([seg('Severity', 'header')]);
    for (const [name, s] of Object.entries(SEVERITY_STYLE)) lines.push([seg(`  ${fit(s.glyph, 17)}`, s.token), seg(name, s.token)]);
  }
  return lines;
}

/** The help screen; lays the lines out in two columns when one does not fit. */
export function HelpView({ view, height, width, theme }: HelpViewProps): React.ReactElement {
  const lines = helpLines(view);
  if (lines.length <= height || width < 80) {
    return (
      <Box flexDirection="column" height={height}>
        {lines.slice(0, height).map((l, i) => (
          <Line key={i} line={l} width={width} theme={theme} />
        ))}
      </Box>
    );
  }
  const half = Math.floor(width / 2);
  const left = lines.slice(0, height);
  const right = lines.slice(height, height * 2);
  return (
    <Box flexDirection="row" height={height}>
      <Box flexDirection="column" width={half}>
        {left.map((l, i) => (
          <Line key={i} line={l} width={half - 1} theme={theme} />
        ))}
      </Box>
      <Box flexDirection="column" width={width - half}>
        {right.map((l, i) => (
          <Line key={i} line={l} width={width - half} theme={theme} />
        ))}
      </Box>
    </Box>
  );
}
