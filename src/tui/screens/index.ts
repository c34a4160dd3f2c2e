/** Builds the screen of the view on top of the stack at the cursor's instant. */
import { gridFromCells } from '../data/grid.ts';
import type { Screen } from '../data/screen.ts';
import { seg } from '../data/screen.ts';
import type { BrowseSource } from '../data/source.ts';
import type { StackEntry } from '../state/app.ts';
import type { MarksState } from '../state/marks.ts';
import { connectionScreen } from './connection.ts';
import { connectionsScreen } from './connections.ts';
import { diffScreen } from './diff.ts';
import { eventScreen } from './event.ts';
import { icebergScreen } from './iceberg.ts';
import { overviewScreen } from './overview.ts';
import { shadowLinkScreen, shadowLinksScreen, shadowTopicScreen } from './shadow.ts';
import { timelineScreen } from './timeline.ts';
import { upgradeScreen } from './upgrade.ts';

/** The screen shown when nothing is recorded yet. */
export function emptyScreen(launcher = 'flightrec'): Screen {
  return {
    panel: [
      [seg(`The database holds no polls yet. Start a collector (${launcher} collect) and press F to follow.`, 'warn')],
    ],
    grid: gridFromCells([], []),
    empty: 'nothing recorded',
  };
}

/** Builds the screen for a stack entry; `at` is the instant under the time cursor. */
export function buildScreen(
  source: BrowseSource,
  entry: StackEntry,
  at: bigint | undefined,
  marks: MarksState,
): Screen {
  const view = entry.view;
  if (view.kind === 'timeline') return timelineScreen(source, entry, at);
  if (view.kind === 'diff') return diffScreen(source, entry, marks, at);
  if (view.kind === 'event') return eventScreen(source, view.key, at);
  if (at === undefined) return emptyScreen(source.launcher);
  switch (view.kind) {
    case 'overview':
      return overviewScreen(source, at);
    case 'connections':
      return connectionsScreen(source, entry, at);
    case 'connection':
      return connectionScreen(source, entry, view.uid, at);
    case 'shadow-links':
      return shadowLinksScreen(source, entry, at);
    case 'shadow-link':
      return shadowLinkScreen(source, entry, view.link, at);
    case 'shadow-topic':
      return shadowTopicScreen(source, entry, view.link, view.topic, at);
    case 'upgrade':
      return upgradeScreen(source, entry, at);
    case 'iceberg':
      return icebergScreen(source, entry, at);
  }
}
