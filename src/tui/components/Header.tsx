/** The header: cluster and database, the instant under the cursor, data freshness and the stale marker, gap and follow badges, breadcrumbs. */
import React from 'react';
import { Box } from 'ink';
import { sanitizeCell } from '../../api/safe-text.ts';
import { formatTimestampShort } from '../../api/codec/timestamp.ts';
import type { PanelLine, Segment } from '../data/screen.ts';
import { seg } from '../data/screen.ts';
import type { ViewRef } from '../state/views.ts';
import { viewTitle } from '../state/views.ts';
import type { Theme } from '../theme.ts';
import { Line } from './Line.tsx';

/** Lines the header takes. */
export const HEADER_LINES = 3;

/** Props of the header. */
export interface HeaderProps {
  readonly cluster: string;
  readonly database: string;
  /** the instant under the cursor, ns */
  readonly at: bigint | undefined;
  readonly index: number;
  readonly count: number;
  /** e.g. `latest poll 5s ago` */
  readonly freshness: string;
  /** the stale marker (`STALE: GetUpgradeStatus 6m old (every 1m)`), when the data shown is stale */
  readonly stale?: string;
  /** the collection gap the instant falls in, as text (`10:00:00Z–10:02:00Z`) */
  readonly gap?: string;
  readonly follow: boolean;
  readonly marks: { readonly a?: bigint; readonly b?: bigint };
  readonly crumbs: readonly ViewRef[];
  /** right side of the breadcrumb line: the active filter and the "shown N of M" badge */
  readonly filter?: string;
  readonly badge?: string;
  readonly width: number;
  readonly theme: Theme;
}

const short = (at: bigint): string => formatTimestampShort(at).replace(/^\d{4}-\d{2}-\d{2}T/, '');

/** Display width of a line's segments. */
const lineWidth = (line: readonly Segment[]): number => line.reduce((n, s) => n + Array.from(s.text).length, 0);

/**
 * The cursor line within the width: the instant, its poll, freshness, and the marks that must stay
 * whole (stale, gap, follow, diff marks). When it does not fit, what repeats or can be read
 * elsewhere goes first: the freshness, `(latest)`, the word `poll`, the stale marker's interval,
 * the poll count, the stale marker's age and operation (the word STALE always stays).
 */
export function secondLine(p: HeaderProps): Segment[] {
  const variants = [0, 1, 2, 3, 4, 5, 6, 7].map((level) => cursorSegments(p, level));
  // the gap's reason comes last and may be cut: its first words must fit
  const cuttable = p.gap === undefined ? 0 : Math.max(0, Array.from(`  ⚠ GAP ${p.gap}`).length - GAP_KEPT);
  return variants.find((v) => lineWidth(v) - cuttable <= p.width) ?? variants[variants.length - 1]!;
}

/** Columns of the gap marker kept whole (`  ⚠ GAP 10:00:00Z–ongoing: GetUpg…`); the rest of its reason may be cut. */
const GAP_KEPT = 40;

/** The cursor line at a level of shortening (0: whole). */
function cursorSegments(p: HeaderProps, level: number): Segment[] {
  const second: Segment[] = [seg('at ', 'label')];
  if (p.at === undefined) second.push(seg('no polls recorded', 'warn'));
  else {
    second.push(seg(formatTimestampShort(p.at), 'accent'));
    if (level < 5) second.push(seg(`  ${level < 3 ? 'poll ' : ''}${p.index + 1}/${p.count}`, 'muted'));
    if (p.index === p.count - 1 && level < 2) second.push(seg(' (latest)', 'muted'));
  }
  if (level < 1) second.push(seg(`  ${p.freshness}`, 'label'));
  if (p.stale !== undefined) {
    // shorter and shorter: without the interval, without the age, the word alone
    const stale =
      level < 4
        ? p.stale
        : level < 6
          ? p.stale.replace(/ \(every [^)]*\)/, '')
          : level < 7
            ? p.stale.replace(/ \(every [^)]*\)/, '').replace(/ \S+ old/, '')
            : 'STALE';
    second.push(seg(`  ⚠ ${stale}`, 'warn'));
  }
  if (p.follow) second.push(seg('  ⟳ FOLLOW', 'badge'));
  if (p.marks.a !== undefined) {
    second.push(seg(`  mark A ${short(p.marks.a)}`, 'accent'));
    if (p.marks.b !== undefined) second.push(seg(` B ${short(p.marks.b)}`, 'accent'));
  }
  if (p.gap !== undefined) second.push(seg(`  ⚠ GAP ${p.gap}`, 'gap'));
  return second;
}

/**
 * The breadcrumbs, the filter and the badge within the width: when they do not fit, the filter
 * goes first (the status line shows it too), then the oldest crumbs give way to `…`.
 */
export function crumbLine(p: HeaderProps): Segment[] {
  const build = (from: number, filter: boolean): Segment[] => {
    const third: Segment[] = [];
    if (from > 0) third.push(seg('… › ', 'muted'));
    p.crumbs.slice(from).forEach((v, i, shown) => {
      if (i > 0) third.push(seg(' › ', 'muted'));
      third.push(seg(sanitizeCell(viewTitle(v)), i === shown.length - 1 ? 'title' : 'label'));
    });
    if (filter && p.filter !== undefined) third.push(seg(`   filter: ${p.filter}`, 'badge'));
    if (p.badge !== undefined) third.push(seg(`   [${p.badge}]`, 'accent'));
    return third;
  };
  const whole = build(0, true);
  if (lineWidth(whole) <= p.width) return whole;
  for (let from = 0; from < p.crumbs.length - 1; from++) {
    const line = build(from, false);
    if (lineWidth(line) <= p.width) return line;
  }
  return build(Math.max(0, p.crumbs.length - 1), false);
}

/** The header component. */
export function Header(p: HeaderProps): React.ReactElement {
  const first: Segment[] = [
    seg('flightrec', 'title'),
    seg('  cluster ', 'label'),
    seg(sanitizeCell(p.cluster), 'value'),
    seg('  db ', 'label'),
    seg(sanitizeCell(p.database), 'value'),
  ];
  const second = secondLine(p);
  const third = crumbLine(p);
  const lines: PanelLine[] = [first, second, third];
  return (
    <Box flexDirection="column">
      {lines.map((l, i) => (
        <Line key={i} line={l} width={p.width} theme={p.theme} />
      ))}
    </Box>
  );
}
