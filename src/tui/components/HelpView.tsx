/** The `?` screen: every key of the current view from the keymap, what Enter does here, and the colour legend. */
import React from 'react';
import { Box } from 'ink';
import { bindingsFor, ENTER_HELP, type Binding } from '../keymap.ts';
import type { PanelLine } from '../data/screen.ts';
import { seg } from '../data/screen.ts';
import { CHANGE_STYLE, SEVERITY_STYLE } from '../glyphs.ts';
import type { ViewKind } from '../state/views.ts';
import { fit, wrapText } from '../text.ts';
import { sanitizeCell } from '../../api/safe-text.ts';
import type { Thresholds } from '../../report/timeline/thresholds.ts';
import { thresholdEntries } from '../thresholds-help.ts';
import type { Theme, Token } from '../theme.ts';
import { Line } from './Line.tsx';

/** Props of the help screen. */
export interface HelpViewProps {
  readonly view: ViewKind;
  readonly height: number;
  readonly width: number;
  readonly theme: Theme;
  /** first line shown when the help scrolls */
  readonly offset?: number;
  /** the thresholds in force and the file they come from */
  readonly thresholds?: HelpThresholds;
}

/** The thresholds the help lists: their values, and the config file (undefined: the defaults). */
export interface HelpThresholds {
  readonly values: Thresholds;
  readonly from?: string;
}

const GROUPS: readonly [Binding['group'], string][] = [
  ['navigate', 'Navigate'],
  ['time', 'Time travel'],
  ['view', 'This view'],
  ['general', 'General'],
];

/** How a key name reads in the help (arrows as arrows). */
const KEY_TEXT: Readonly<Record<string, string>> = { down: '↓', up: '↑', ' ': 'space' };

export { wrapText } from '../text.ts';

/** One entry of the help: the keys (or glyph) and what they do. */
interface Entry {
  readonly keys: string;
  readonly text: string;
  readonly keyToken: Token;
  readonly textToken: Token;
}

/** The marks in front of an event's start. */
const START_MARKS: readonly Entry[] = [
  {
    keys: '≤',
    text: 'already so at the first observation: the true start lies earlier',
    keyToken: 'warn',
    textToken: 'value',
  },
  {
    keys: '↶',
    text: 'start dated back before the poll that detected it (the detail says when)',
    keyToken: 'warn',
    textToken: 'value',
  },
];

/** The help of a view as titled groups of entries. */
function helpGroups(view: ViewKind): { title: string; entries: Entry[] }[] {
  const bindings = bindingsFor(view);
  const groups: { title: string; entries: Entry[] }[] = [];
  for (const [group, title] of GROUPS) {
    const inGroup = bindings.filter((b) => b.group === group);
    if (inGroup.length === 0) continue;
    groups.push({
      title,
      entries: inGroup.map((b) => ({
        keys: b.keys.map((k) => KEY_TEXT[k] ?? k).join(' '),
        text: b.command === 'enter' ? (ENTER_HELP[view] ?? b.help) : b.help,
        keyToken: 'accent',
        textToken: 'value',
      })),
    });
  }
  if (view === 'connections') {
    groups.push({
      title: 'Rows',
      entries: Object.values(CHANGE_STYLE).map((s) => ({
        keys: s.glyph,
        text: s.word,
        keyToken: s.token,
        textToken: s.token,
      })),
    });
  }
  if (view === 'timeline' || view === 'overview' || view === 'event') {
    groups.push({
      title: 'Severity',
      entries: [
        ...Object.entries(SEVERITY_STYLE).map(([name, s]) => ({
          keys: s.glyph,
          text: name,
          keyToken: s.token,
          textToken: s.token,
        })),
        ...START_MARKS,
      ],
    });
  }
  return groups;
}

/**
 * The help lines of a view for a column `width` wide (pure: the tests and the screen read the
 * same list): keys in their own column, two spaces from what they do; long texts wrap under
 * their first line instead of being cut.
 */
export function helpLines(view: ViewKind, width = 80, thresholds?: HelpThresholds): PanelLine[] {
  const groups = helpGroups(view);
  const keyWidth = Math.max(...groups.flatMap((g) => g.entries.map((e) => Array.from(e.keys).length)));
  const indent = 2 + keyWidth + 2;
  const lines: PanelLine[] = [[seg(`Help: ${view}`, 'title'), seg('   Esc or ? closes', 'muted')]];
  for (const g of groups) {
    lines.push([seg(g.title, 'header')]);
    for (const e of g.entries) {
      const wrapped = wrapText(e.text, width - indent);
      lines.push([seg(`  ${fit(e.keys, keyWidth)}  `, e.keyToken), seg(wrapped[0] ?? '', e.textToken)]);
      for (const more of wrapped.slice(1)) lines.push([seg(' '.repeat(indent)), seg(more, e.textToken)]);
    }
  }
  if (thresholds !== undefined) lines.push(...thresholdLines(thresholds, width));
  return lines;
}

/**
 * The thresholds in force: where from, then as `name value` pairs wrapped, the ones the marks
 * use and the ones the config file changed (`*`); the others are the defaults.
 */
function thresholdLines(t: HelpThresholds, width: number): PanelLine[] {
  const entries = thresholdEntries(t.values);
  const changed = entries.filter((e) => e.changed).length;
  const from =
    t.from === undefined
      ? 'the defaults (browse --config FILE sets them)'
      : `from ${sanitizeCell(t.from)}: ${changed} changed (*), the others the defaults`;
  const lines: PanelLine[] =
    Array.from(`Thresholds   ${from}`).length <= width
      ? [[seg('Thresholds', 'header'), seg(`   ${from}`, 'muted')]]
      : [[seg('Thresholds', 'header')], ...wrapText(from, width - 2).map((l): PanelLine => [seg(`  ${l}`, 'muted')])];
  // `name value` pairs kept whole, as many to a line as fit
  let line = '';
  for (const e of entries) {
    if (!e.marks && !e.changed) continue;
    const pair = `${e.changed ? '*' : ''}${e.name} ${e.value}`;
    if (line !== '' && Array.from(`${line}   ${pair}`).length > width - 2) {
      lines.push([seg(`  ${line}`, 'value')]);
      line = pair;
    } else line = line === '' ? pair : `${line}   ${pair}`;
  }
  if (line !== '') lines.push([seg(`  ${line}`, 'value')]);
  return lines;
}

/** The lines of one column, or two columns side by side, that fit the body; undefined when two columns do not fit either. */
function twoColumns(
  view: ViewKind,
  height: number,
  width: number,
  thresholds?: HelpThresholds,
): { left: PanelLine[]; right: PanelLine[]; half: number } | undefined {
  const half = Math.floor(width / 2);
  const lines = helpLines(view, half - 1, thresholds);
  if (lines.length > height * 2) return undefined;
  // break at a group title when one lies in the second half of the first column
  let split = Math.min(height, lines.length);
  for (let i = split; i > Math.floor(height / 2); i--) {
    const first = lines[i]?.[0];
    if (first !== undefined && first.token === 'header' && lines.length - i <= height) {
      split = i;
      break;
    }
  }
  return { left: lines.slice(0, split), right: lines.slice(split, split + height), half };
}

/** How the help is laid out in the body: one column, two columns, or one scrolling column. */
export type HelpLayout =
  | { readonly kind: 'single'; readonly lines: readonly PanelLine[] }
  | {
      readonly kind: 'two';
      readonly left: readonly PanelLine[];
      readonly right: readonly PanelLine[];
      readonly half: number;
    }
  /** `height` lines of `lines` are shown at a time, above a line saying how to scroll */
  | { readonly kind: 'scroll'; readonly lines: readonly PanelLine[]; readonly height: number };

/** The layout of the help of `view` in a body of `height` lines and `width` columns. */
export function helpLayout(view: ViewKind, height: number, width: number, thresholds?: HelpThresholds): HelpLayout {
  const single = helpLines(view, width, thresholds);
  if (single.length <= height) return { kind: 'single', lines: single };
  const two = width >= 72 ? twoColumns(view, height, width, thresholds) : undefined;
  if (two !== undefined) return { kind: 'two', ...two };
  return { kind: 'scroll', lines: single, height: Math.max(1, height - 1) };
}

/** The help screen: one column when it fits, else two, else one that scrolls (j/k, PgDn); texts wrap, never cut. */
export function HelpView({ view, height, width, theme, offset = 0, thresholds }: HelpViewProps): React.ReactElement {
  const layout = helpLayout(view, height, width, thresholds);
  if (layout.kind !== 'two') {
    let shown = layout.lines;
    if (layout.kind === 'scroll') {
      const top = Math.max(0, Math.min(offset, layout.lines.length - layout.height));
      const below = layout.lines.length - top - layout.height;
      shown = [
        ...layout.lines.slice(top, top + layout.height),
        [
          seg(
            `lines ${top + 1}-${top + layout.height} of ${layout.lines.length}: j/k or PgDn/PgUp scroll${below > 0 ? ` (${below} more below)` : ''}`,
            'muted',
          ),
        ],
      ];
    }
    return (
      <Box flexDirection="column" height={height}>
        {shown.map((l, i) => (
          <Line key={i} line={l} width={width} theme={theme} />
        ))}
      </Box>
    );
  }
  return (
    <Box flexDirection="row" height={height}>
      <Box flexDirection="column" width={layout.half}>
        {layout.left.map((l, i) => (
          <Line key={i} line={l} width={layout.half - 1} theme={theme} />
        ))}
      </Box>
      <Box flexDirection="column" width={width - layout.half}>
        {layout.right.map((l, i) => (
          <Line key={i} line={l} width={width - layout.half} theme={theme} />
        ))}
      </Box>
    </Box>
  );
}
