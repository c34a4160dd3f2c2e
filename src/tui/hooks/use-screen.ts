/** The current screen, rebuilt only when what it depends on changes (not on every selection move). */
import { useMemo } from 'react';
import { gridFromCells } from '../data/grid.ts';
import type { Screen } from '../data/screen.ts';
import type { BrowseSource } from '../data/source.ts';
import { buildScreen } from '../screens/index.ts';
import type { StackEntry } from '../state/app.ts';
import type { MarksState } from '../state/marks.ts';

/** Builds the screen of `entry` at `at`; a failure becomes a screen that says what went wrong. */
export function useScreen(
  source: BrowseSource,
  entry: StackEntry,
  at: bigint | undefined,
  marks: MarksState,
  version: number,
): Screen {
  const { view, filter } = entry;
  const sort = entry.table.sort;
  const viewKey = JSON.stringify(view);
  const marksKey = entry.view.kind === 'diff' ? `${marks.a}/${marks.b}` : '';
  return useMemo(() => {
    try {
      return buildScreen(source, entry, at, marks);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      return {
        panel: [[{ text: `✗ could not read this view: ${message}`, token: 'error' }]],
        grid: gridFromCells([], []),
        empty: 'no data',
      };
    }
    // entry.table.selected and offset are left out on purpose: moving the selection reuses the screen
  }, [source, viewKey, filter?.expr, filter?.negate, sort?.column, sort?.desc, at, marksKey, version]);
}
