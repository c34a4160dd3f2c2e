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

/** The header component. */
export function Header(p: HeaderProps): React.ReactElement {
  const first: Segment[] = [
    seg('flightrec', 'title'),
    seg('  cluster ', 'label'),
    seg(sanitizeCell(p.cluster), 'value'),
    seg('  db ', 'label'),
    seg(sanitizeCell(p.database), 'value'),
  ];
  const second: Segment[] = [seg('at ', 'label')];
  if (p.at === undefined) second.push(seg('no polls recorded', 'warn'));
  else {
    second.push(seg(formatTimestampShort(p.at), 'accent'));
    second.push(seg(`  poll ${p.index + 1}/${p.count}`, 'muted'));
    if (p.index === p.count - 1) second.push(seg(' (latest)', 'muted'));
  }
  second.push(seg(`  ${p.freshness}`, 'label'));
  if (p.stale !== undefined) second.push(seg(`  ⚠ ${p.stale}`, 'warn'));
  if (p.gap !== undefined) second.push(seg(`  ⚠ GAP ${p.gap}`, 'gap'));
  if (p.follow) second.push(seg('  ⟳ FOLLOW', 'badge'));
  if (p.marks.a !== undefined) {
    second.push(seg(`  mark A ${short(p.marks.a)}`, 'accent'));
    if (p.marks.b !== undefined) second.push(seg(` B ${short(p.marks.b)}`, 'accent'));
  }
  const third: Segment[] = [];
  p.crumbs.forEach((v, i) => {
    if (i > 0) third.push(seg(' › ', 'muted'));
    third.push(seg(sanitizeCell(viewTitle(v)), i === p.crumbs.length - 1 ? 'title' : 'label'));
  });
  if (p.filter !== undefined) third.push(seg(`   filter: ${p.filter}`, 'badge'));
  if (p.badge !== undefined) third.push(seg(`   [${p.badge}]`, 'accent'));
  const lines: PanelLine[] = [first, second, third];
  return (
    <Box flexDirection="column">
      {lines.map((l, i) => (
        <Line key={i} line={l} width={p.width} theme={p.theme} />
      ))}
    </Box>
  );
}
