/** Draws a screen model in the body area: panel lines, then the table with the rest of the height. */
import React from 'react';
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

/** The screen view. */
export function ScreenView({ screen, table, height, width, theme }: ScreenViewProps): React.ReactElement {
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
