/** A virtualised table: draws only the rows in view, with a header, a selection and row colours. */
import React, { useMemo } from 'react';
import { Box, Text } from 'ink';
import { sanitizeCell } from '../../api/safe-text.ts';
import type { Grid } from '../data/grid.ts';
import type { SortState, TableState } from '../state/table.ts';
import { visibleRange } from '../state/table.ts';
import type { ColumnFit } from '../../report/columns/layout.ts';
import { gridLayout, sameNote } from '../data/grid-layout.ts';
import { fit, textWidth, truncate } from '../text.ts';
import type { Theme, Token } from '../theme.ts';

/** Props of the table. */
export interface TableProps {
  readonly grid: Grid;
  readonly state: TableState;
  /** lines available, header included */
  readonly height: number;
  readonly width: number;
  readonly theme: Theme;
  readonly sort?: SortState;
  /** shown instead of rows when there are none */
  readonly empty?: string;
}

const GAP = 2;

/** The table component. */
export function Table({ grid, state, height, width, theme, sort, empty }: TableProps): React.ReactElement {
  const fits = useMemo(() => gridLayout(grid, width), [grid, width]);
  const bodyHeight = Math.max(1, height - 1);
  const extent = { rows: grid.rowCount, height: bodyHeight };
  const { start, end } = visibleRange(state, extent);
  const selected = Math.min(state.selected, grid.rowCount - 1);
  const header = grid.columns
    .map((c, j) => {
      const w = fits[j]?.width ?? 0;
      if (w <= 0) return undefined;
      const arrow = sort?.column === j ? (sort.desc ? '▼' : '▲') : '';
      return fit(c.header + arrow, w, c.align);
    })
    .filter((h): h is string => h !== undefined)
    .join(' '.repeat(GAP));
  // columns dropped for holding one value on every row still say it, when there is room
  const note = sameNote(grid, fits, width - 3 - textWidth(header.trimEnd()) - 4);
  const headerText = note === '' ? `   ${header}` : `   ${header.trimEnd()}`;
  const lines: React.ReactElement[] = [];
  for (let i = start; i < end; i++) {
    lines.push(<Row key={i} grid={grid} index={i} fits={fits} selected={i === selected} theme={theme} width={width} />);
  }
  return (
    <Box flexDirection="column" height={height}>
      <Text wrap="truncate">
        <Text {...theme.header}>{truncate(headerText, width)}</Text>
        {note === '' ? null : <Text {...theme.muted}>{`    ${note}`}</Text>}
      </Text>
      {grid.rowCount === 0 ? (
        <Text {...theme.muted} wrap="truncate">
          {`   ${empty ?? 'no rows at this instant'}`}
        </Text>
      ) : (
        lines
      )}
    </Box>
  );
}

interface RowProps {
  readonly grid: Grid;
  readonly index: number;
  readonly fits: readonly ColumnFit[];
  readonly selected: boolean;
  readonly theme: Theme;
  readonly width: number;
}

/** Runs of text in one token: neighbouring cells of the same token share one <Text> (fewer nodes to lay out). */
export function rowRuns(
  cells: readonly string[],
  tokens: readonly (Token | undefined)[] | undefined,
  rowToken: Token,
  fits: readonly ColumnFit[],
  aligns: readonly ('left' | 'right')[],
): { text: string; token: Token }[] {
  const runs: { text: string; token: Token }[] = [];
  let first = true;
  fits.forEach(({ width: w, elision }, j) => {
    if (w <= 0) return;
    // cells come terminal-safe from the column models; escaping again is idempotent and keeps one line per row
    const text = (first ? '' : ' '.repeat(GAP)) + fit(sanitizeCell(cells[j] ?? ''), w, aligns[j] ?? 'left', elision);
    first = false;
    const token = tokens?.[j] ?? rowToken;
    const last = runs[runs.length - 1];
    if (last !== undefined && last.token === token) last.text += text;
    else runs.push({ text, token });
  });
  return runs;
}

/** One row; memoised, so moving the selection re-renders only the two rows it leaves and enters. */
const Row = React.memo(function Row({ grid, index, fits, selected, theme, width }: RowProps): React.ReactElement {
  const rowToken: Token = grid.rowToken?.(index) ?? 'value';
  const glyph = grid.glyph?.(index) ?? ' ';
  const runs = rowRuns(
    grid.cells(index),
    grid.cellTokens?.(index),
    rowToken,
    fits,
    grid.columns.map((c) => c.align),
  );
  // only the selected row is padded: its inverse bar spans the width; other rows stay short (less to draw)
  const pad = selected ? Math.max(0, width - 3 - runs.reduce((n, r) => n + textWidth(r.text), 0)) : 0;
  const style = selected ? theme.selected : {};
  return (
    <Text wrap="truncate" {...style}>
      <Text {...theme[rowToken]}>{`${selected ? '›' : ' '}${fit(glyph, 1)} `}</Text>
      {runs.map((r, i) => (
        <Text key={i} {...theme[r.token]}>
          {i === runs.length - 1 && pad > 0 ? r.text + ' '.repeat(pad) : r.text}
        </Text>
      ))}
    </Text>
  );
});
