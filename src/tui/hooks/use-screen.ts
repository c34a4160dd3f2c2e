/**
 * The current screen, rebuilt only when what it depends on changes (not on every selection
 * move). Keys read it through the same cache: a key handled before the next render (a burst of
 * keys, or a key that arrives before ink re-subscribes the handler of the new render) sees the
 * screen of the state it acts on, never the screen of an earlier view.
 */
import { useRef } from 'react';
import { gridFromCells } from '../data/grid.ts';
import type { Screen } from '../data/screen.ts';
import type { BrowseSource } from '../data/source.ts';
import { buildScreen } from '../screens/index.ts';
import type { StackEntry } from '../state/app.ts';
import type { MarksState } from '../state/marks.ts';

/** What a screen is built from; the key of its cache entry. */
export interface ScreenInputs {
  readonly entry: StackEntry;
  readonly at: bigint | undefined;
  readonly marks: MarksState;
  readonly version: number;
}

/** The cache key of a screen: everything it depends on except the selection and scroll offset. */
export function screenKey({ entry, at, marks, version }: ScreenInputs): string {
  const { view, filter } = entry;
  const sort = entry.table.sort;
  const marksKey = view.kind === 'diff' ? `${marks.a}/${marks.b}` : '';
  return JSON.stringify([view, filter?.expr, filter?.negate, sort?.column, sort?.desc, String(at), marksKey, version]);
}

/** Builds a screen; a failure becomes a screen that says what went wrong. */
function safeBuild(source: BrowseSource, { entry, at, marks }: ScreenInputs): Screen {
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
}

/** Screens kept: the one shown, the list an event detail was opened from, and one more. */
const KEPT = 3;

/** The last screens built, by key; shared by the render and the key handler. */
export class ScreenCache {
  #source: BrowseSource | undefined;
  readonly #screens = new Map<string, Screen>();

  /** The screen for `inputs` over `source`: a cached one when nothing it depends on changed. */
  get(source: BrowseSource, inputs: ScreenInputs): Screen {
    if (this.#source !== source) {
      this.#screens.clear();
      this.#source = source;
    }
    const key = screenKey(inputs);
    let screen = this.#screens.get(key);
    if (screen !== undefined) {
      // most recently used last
      this.#screens.delete(key);
      this.#screens.set(key, screen);
      return screen;
    }
    screen = safeBuild(source, inputs);
    this.#screens.set(key, screen);
    while (this.#screens.size > KEPT) this.#screens.delete(this.#screens.keys().next().value as string);
    return screen;
  }
}

/** The browser's screen cache, and the screen of the state being rendered. */
export function useScreen(source: BrowseSource, inputs: ScreenInputs): { screen: Screen; cache: ScreenCache } {
  const cache = useRef<ScreenCache | null>(null);
  cache.current ??= new ScreenCache();
  return { screen: cache.current.get(source, inputs), cache: cache.current };
}
