/** Draws a screen model in the body area: panel lines, then the table with the rest of the height. */
import React, { useMemo } from 'react';
import { Box } from 'ink';
import type { PanelLine, Screen } from '../data/screen.ts';
import type { TableState } from '../state/table.ts';
import type { Theme } from '../theme.ts';
import { Line } from './Line.tsx';
import { Table } from './Table.tsx';

/** Props of a screen view. */
export interface ScreenViewProps {
  readonly screen: Screen;
  readonly table: TableState;
  readonly height: number;
  readonly width: number;
  readonly theme: Theme;
}

/** How the body height is split between the panel and the table, and the panel lines shown (pure, shared with the key handler). */
export function splitBody(
  screen: Screen,
  height: number,
): { panel: number; title: number; table: number; lines: readonly PanelLine[] } {
  const title = screen.tableTitle !== undefined ? 1 : 0;
  const minTable = Math.min(4, Math.max(1, height - title));
  const room = Math.max(0, Math.min(screen.maxPanel ?? Infinity, height - title - minTable));
  // a screen may offer a shorter panel for small terminals (the overview folds its poll list)
  const full = screen.panel.length > room && screen.compactPanel !== undefined ? screen.compactPanel : screen.panel;
  let lines: readonly PanelLine[] = full.slice(0, room);
  if (full.length > room && room > 0) {
    lines = [
      ...full.slice(0, room - 1),
      [
        {
          text: `… ${full.length - room + 1} more lines: a taller terminal shows them, ctrl-s saves this view`,
          token: 'muted',
        },
      ],
    ];
  }
  return { panel: lines.length, title, table: Math.max(1, height - lines.length - title), lines };
}

/** A document screen in a body of `height` lines: its lines, how many show at once, and the last first line. */
export function documentPage(
  lines: readonly PanelLine[],
  height: number,
): { readonly visible: number; readonly maxOffset: number } {
  if (lines.length <= height) return { visible: height, maxOffset: 0 };
  // one line says where the page is and how to scroll
  const visible = Math.max(1, height - 1);
  return { visible, maxOffset: Math.max(0, lines.length - visible) };
}

/** A scrolling page of text: `offset` is its first line shown. */
function DocumentView({
  lines,
  offset,
  height,
  width,
  theme,
}: {
  readonly lines: readonly PanelLine[];
  readonly offset: number;
  readonly height: number;
  readonly width: number;
  readonly theme: Theme;
}): React.ReactElement {
  const page = documentPage(lines, height);
  const top = Math.max(0, Math.min(offset, page.maxOffset));
  const shown: PanelLine[] = lines.slice(top, top + page.visible);
  if (page.maxOffset > 0) {
    const below = lines.length - top - page.visible;
    shown.push([
      {
        text: `lines ${top + 1}-${top + shown.length} of ${lines.length}: j/k or PgDn/PgUp scroll${below > 0 ? ` (${below} more below)` : ''}`,
        token: 'muted',
      },
    ]);
  }
  return (
    <Box flexDirection="column" height={height}>
      {shown.map((l, i) => (
        <Line key={i} line={l} width={width} theme={theme} />
      ))}
    </Box>
  );
}

/** The screen view. */
export function ScreenView({ screen, table, height, width, theme }: ScreenViewProps): React.ReactElement {
  const lines = useMemo(() => screen.document?.(width), [screen, width]);
  if (lines !== undefined)
    return <DocumentView lines={lines} offset={table.selected} height={height} width={width} theme={theme} />;
  const split = splitBody(screen, height);
  return (
    <Box flexDirection="column" height={height}>
      {split.lines.map((l, i) => (
        <Line key={`p${i}`} line={l} width={width} theme={theme} />
      ))}
      {screen.tableTitle !== undefined ? (
        <Line line={[{ text: screen.tableTitle, token: 'title' }]} width={width} theme={theme} />
      ) : null}
      <Table
        grid={screen.grid}
        state={table}
        height={split.table}
        width={width}
        theme={theme}
        sort={table.sort}
        empty={screen.empty}
      />
    </Box>
  );
}
