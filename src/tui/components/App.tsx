/** The browser: header, the current view (or help), prompt or footer; keys go through the keymap to the reducer. */
import React, { useCallback, useMemo, useReducer, useRef } from 'react';
import { Box, Text, useApp, useInput } from 'ink';
import { formatTimestampShort } from '../../api/codec/timestamp.ts';
import { formatAge } from '../../report/format-units.ts';
import { DEFAULT_THRESHOLDS } from '../../report/timeline/thresholds.ts';
import { checkFilterText, describeFilter, fieldPaths } from '../data/filter-check.ts';
import { staleBadge } from '../data/stale-badge.ts';
import type { Export, Screen } from '../data/screen.ts';
import type { BrowseSource } from '../data/source.ts';
import { useFollow } from '../hooks/use-follow.ts';
import { useWarmUp } from '../hooks/use-warm-up.ts';
import { useScreen } from '../hooks/use-screen.ts';
import { useTerminalSize, type TerminalSize } from '../hooks/use-terminal-size.ts';
import { burstKeys } from '../input/keys.ts';
import {
  initialState,
  reduceApp,
  topEntry,
  breadcrumbs,
  type AppAction,
  type AppState,
  type StackEntry,
  type StartPosition,
} from '../state/app.ts';
import { cursorInstant } from '../state/cursor.ts';
import { handleKey, type KeyEnv, type Sibling } from '../state/handle-key.ts';
import { filterResource, type ViewRef } from '../state/views.ts';
import type { Theme } from '../theme.ts';
import { Footer, footerStatus } from './Footer.tsx';
import { Header, HEADER_LINES } from './Header.tsx';
import { helpLayout, HelpView } from './HelpView.tsx';
import { PromptBar } from './PromptBar.tsx';
import { documentPage, ScreenView, splitBody } from './ScreenView.tsx';
import { promptFeedback } from './prompt-feedback.ts';

/** Props of the browser. */
export interface AppProps {
  readonly source: BrowseSource;
  readonly theme: Theme;
  /** the wall clock in ms (freshness of the data) */
  readonly now: () => number;
  /** a fixed terminal size (tests); default: stdout's, following resizes */
  readonly size?: TerminalSize;
  readonly start?: ViewRef;
  /** the cursor, selection and message the browser opens with */
  readonly position?: StartPosition;
  /** writes what ctrl-s saves and returns the file's path */
  readonly save: (data: Export, view: ViewRef, at: bigint | undefined) => string;
  /** follow mode's refresh period */
  readonly followMs?: number;
  /** called once when the user quits */
  readonly onQuit?: () => void;
  /** several clusters recorded: opens the clusters view (C, :clusters, Esc on the first view) */
  readonly onClusters?: () => void;
}

/** The status line when no message is shown: the filter (and how to change it), or how to set one. */
function statusText(entry: StackEntry): string {
  const resource = filterResource(entry.view);
  if (entry.filter !== undefined && entry.drilled !== undefined)
    return `evidence: ${describeFilter(entry.filter)}   (Esc: back to the event; / edits)`;
  if (entry.filter !== undefined) return `filter: ${describeFilter(entry.filter)}   (/ edits, Esc clears)`;
  return resource !== undefined ? `/ filters ${resource} (extended filter)   ? help` : '? help';
}
const MIN = { columns: 40, rows: 10 } as const;

/** The root component of `flightrec browse`. */
export function App(props: AppProps): React.ReactElement {
  const { source, theme } = props;
  const { exit } = useApp();
  const size = useTerminalSize(props.size);
  const [state, dispatch] = useReducer(reduceApp, undefined, () =>
    initialState(source.instants(), props.start, props.position),
  );
  const [version, bump] = useReducer((v: number) => v + 1, 0);
  // the reducer's latest state for keys that arrive before the next render
  const live = useRef<AppState>(state);
  live.current = state;
  const entry = topEntry(state);
  const at = cursorInstant(state.cursor);
  const { screen, cache } = useScreen(source, { entry, at, marks: state.marks, version });
  const status = statusText(entry);
  // the status line takes a second line when a message or filter needs it
  const statusLines = state.prompt !== undefined ? 1 : footerStatus(state.flash, status, size.columns).length;
  const bodyHeight = Math.max(1, size.rows - 1 - HEADER_LINES - 1 - statusLines);
  // what the latest render saw, for keys handled by a handler of an earlier render
  const rendered = useRef({ version, bodyHeight, columns: size.columns });
  rendered.current = { version, bodyHeight, columns: size.columns };
  /** the screen of `s`, which may be newer than the last render (keys of a burst) */
  const screenOf = (s: AppState): Screen =>
    cache.get(source, {
      entry: topEntry(s),
      at: cursorInstant(s.cursor),
      marks: s.marks,
      version: rendered.current.version,
    });

  const helpThresholds = useMemo(
    () => ({
      values: source.thresholds ?? DEFAULT_THRESHOLDS,
      ...(source.thresholdsFrom === undefined ? {} : { from: source.thresholdsFrom }),
    }),
    [source],
  );
  const onInstants = useCallback((instants: readonly bigint[]) => {
    dispatch({ type: 'instants', instants });
    bump();
  }, []);
  useFollow(source, state.cursor.follow, props.followMs ?? 1000, onInstants);
  useWarmUp(source, version, bump);

  const env = (s: AppState): KeyEnv => {
    const instants = s.cursor.instants;
    const first = instants[0];
    const latest = instants[instants.length - 1];
    const cur = cursorInstant(s.cursor);
    const sc = screenOf(s);
    const split = splitBody(sc, rendered.current.bodyHeight);
    const row = sc.grid.rowCount > 0 ? Math.min(topEntry(s).table.selected, sc.grid.rowCount - 1) : undefined;
    const doc = sc.document?.(rendered.current.columns);
    const page = doc === undefined ? undefined : documentPage(doc, rendered.current.bodyHeight);
    return {
      extent:
        page === undefined
          ? { rows: sc.grid.rowCount, height: Math.max(1, split.table - 1) }
          : { rows: page.maxOffset + 1, height: page.visible },
      columns: sc.grid.columns.length,
      target: doc !== undefined ? sc.enter : row === undefined ? undefined : sc.grid.target?.(row),
      evidence: doc !== undefined ? sc.evidence : row === undefined ? undefined : sc.grid.evidence?.(row),
      ...siblings(s),
      time:
        first !== undefined && latest !== undefined && cur !== undefined
          ? { first, latest, cursor: cur, now: BigInt(Math.floor(props.now())) * 1_000_000n }
          : undefined,
      checkFilter: checkFilterText,
      fieldPaths,
      ...helpScroll(s),
    };
  };

  /** The events before and after the one a detail shows, in the list under it. */
  const siblings = (s: AppState): Pick<KeyEnv, 'siblings'> => {
    const top = topEntry(s);
    const parent = s.stack[s.stack.length - 2];
    if (top.view.kind !== 'event' || parent === undefined) return {};
    const key = top.view.key;
    const grid = screenOf({ ...s, stack: s.stack.slice(0, -1) }).grid;
    let index = -1;
    for (let i = 0; i < grid.rowCount && index < 0; i++) if (grid.key?.(i) === key) index = i;
    if (index < 0) return {};
    const at = (i: number): Sibling | undefined => {
      const view = i >= 0 && i < grid.rowCount ? grid.target?.(i)?.view : undefined;
      return view === undefined ? undefined : { view, index: i };
    };
    const prev = at(index - 1);
    const next = at(index + 1);
    return { siblings: { ...(prev === undefined ? {} : { prev }), ...(next === undefined ? {} : { next }) } };
  };

  const helpScroll = (s: AppState): Pick<KeyEnv, 'helpScroll'> => {
    if (!s.help) return {};
    const layout = helpLayout(
      topEntry(s).view.kind,
      rendered.current.bodyHeight,
      rendered.current.columns,
      helpThresholds,
    );
    return layout.kind === 'scroll' ? { helpScroll: { rows: layout.lines.length, height: layout.height } } : {};
  };

  const apply = (actions: readonly AppAction[]): void => {
    for (const a of actions) {
      live.current = reduceApp(live.current, a);
      dispatch(a);
    }
  };

  const save = (s: Screen): void => {
    const data: Export = s.export ?? {
      format: 'csv',
      header: s.grid.columns.map((c) => c.header),
      rows: Array.from({ length: s.grid.rowCount }, (_, i) => s.grid.cells(i)),
    };
    try {
      const path = props.save(data, topEntry(live.current).view, cursorInstant(live.current.cursor));
      apply([{ type: 'flash', flash: { tone: 'ok', text: `saved ${data.format.toUpperCase()} to ${path}` } }]);
    } catch (err) {
      apply([
        {
          type: 'flash',
          flash: { tone: 'error', text: `could not save: ${err instanceof Error ? err.message : String(err)}` },
        },
      ]);
    }
  };

  useInput((input, key) => {
    // several keys may arrive in one event (fast typing, paste, scripts): handle each in turn
    for (const k of burstKeys(input, key, live.current.prompt !== undefined)) {
      const outcome = handleKey(live.current, k.name, k.text, env(live.current));
      apply(outcome.actions);
      if (outcome.effect === 'save') save(screenOf(live.current));
      if (outcome.effect === 'leave' && props.onClusters !== undefined) {
        props.onClusters();
        return;
      }
      if (outcome.effect === 'clusters') {
        if (props.onClusters !== undefined) {
          props.onClusters();
          return;
        }
        apply([{ type: 'flash', flash: { tone: 'info', text: `only one cluster is recorded: ${source.cluster}` } }]);
      }
      if (outcome.effect === 'quit') {
        props.onQuit?.();
        exit();
        return;
      }
    }
  });

  if (size.columns < MIN.columns || size.rows < MIN.rows) {
    return (
      <Text wrap="truncate">{`terminal too small: ${size.columns}×${size.rows}, need ${MIN.columns}×${MIN.rows} (q quits)`}</Text>
    );
  }
  const width = size.columns;
  const gap = at === undefined ? undefined : source.gapAt(at);
  const latest = state.cursor.instants[state.cursor.instants.length - 1];
  const nowNs = BigInt(Math.floor(props.now())) * 1_000_000n;
  // as of the cursor; on the latest poll, as of now (to the second, so the answer caches)
  const onLatest = state.cursor.index === state.cursor.instants.length - 1;
  const nowSecond = (nowNs / 1_000_000_000n) * 1_000_000_000n;
  const asOf = at === undefined ? undefined : onLatest && nowSecond > at ? nowSecond : at;
  const stale = asOf === undefined ? undefined : staleBadge(source.freshness?.(asOf));
  const resource = filterResource(entry.view);
  return (
    <Box flexDirection="column" width={width} height={size.rows - 1} overflow="hidden">
      <Header
        cluster={source.cluster}
        database={source.database}
        at={at}
        index={state.cursor.index}
        count={state.cursor.instants.length}
        freshness={latest === undefined ? 'no data' : `latest poll ${formatAge(latest, nowNs)}`}
        stale={stale}
        gap={
          gap === undefined
            ? undefined
            : `${formatTimestampShort(gap.start)}–${gap.end === undefined ? 'ongoing' : formatTimestampShort(gap.end)}: ${gap.reason}`
        }
        follow={state.cursor.follow}
        marks={state.marks}
        crumbs={breadcrumbs(state)}
        filter={entry.filter === undefined ? undefined : describeFilter(entry.filter)}
        badge={screen.badge}
        width={width}
        theme={theme}
      />
      {state.help ? (
        <HelpView
          view={entry.view.kind}
          height={bodyHeight}
          width={width}
          theme={theme}
          offset={state.helpOffset ?? 0}
          thresholds={helpThresholds}
        />
      ) : (
        <ScreenView screen={screen} table={entry.table} height={bodyHeight} width={width} theme={theme} />
      )}
      {state.prompt !== undefined ? (
        <PromptBar
          prompt={state.prompt}
          feedback={promptFeedback(state.prompt, resource, env(state).time)}
          width={width}
          theme={theme}
        />
      ) : (
        <Footer view={entry.view.kind} flash={state.flash} status={status} width={width} theme={theme} />
      )}
    </Box>
  );
}
