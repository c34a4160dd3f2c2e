/** Draws a screen model in the body area: panel lines, then the table with the rest of the height. */
import React from 'react';
import { Box } from 'ink';
import type { Screen } from '../data/screen.ts';
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

/** How the body height is split between the panel and the table (pure, shared with the key handler). */
export function splitBody(screen: Screen, height: number): { panel: number; title: number; table: number } {
  const title = screen.tableTitle !== undefined ? 1 : 0;
  const minTable = Math.min(4, Math.max(1, height - title));
  const panel = Math.max(0, Math.min(screen.panel.length, screen.maxPanel ?? Infinity, height - title - minTable));
  return { panel, title, table: Math.max(1, height - panel - title) };
}

/** The screen view. */
export function ScreenView({ screen, table, height, width, theme }: ScreenViewProps): React.ReactElement {
  const split = splitBody(screen, height);
  return (
    <Box flexDirection="column" height={height}>
      {screen.panel.slice(0, split.panel).map((l, i) => (
        <Line key={`p${i}`} line={l} width={width} theme={theme} />
      ))}
      {screen.tableTitle !== undefined ? <Line line={[{ text: screen.tableTitle, token: 'title' }]} width={width} theme={theme} /> : null}
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
