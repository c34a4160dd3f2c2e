/**
 * The browser over a database holding several clusters: the clusters view (one line per
 * cluster: newest poll's age, open connections, worst shadow lag; the `fleet` computation) and,
 * once one is picked with Enter, the usual browser on that cluster. C, `:clusters` or Esc on the
 * cluster's first view come back here; Esc here returns to the cluster last shown.
 */
import React, { useMemo, useRef, useState } from 'react';
import { Box, Text, useApp, useInput } from 'ink';
import { sanitizeCell } from '../../api/safe-text.ts';
import { fleetStatus, type FleetLine, type FleetReader } from '../../report/fleet.ts';
import { formatCount, formatSpan, NONE } from '../../report/format-units.ts';
import type { BrowseSource } from '../data/source.ts';
import { useTerminalSize, type TerminalSize } from '../hooks/use-terminal-size.ts';
import { burstKeys } from '../input/keys.ts';
import { fit, textWidth, wrapText } from '../text.ts';
import { App, type AppProps } from './App.tsx';

/** Props of the fleet browser: the App's, with a source per cluster instead of one. */
export interface FleetBrowserProps extends Omit<AppProps, 'source' | 'onClusters'> {
  readonly reader: FleetReader;
  readonly database: string;
  /** the recorded clusters, in name order */
  readonly clusters: readonly string[];
  /** the browse source of a cluster (the caller caches and closes them) */
  readonly sourceOf: (cluster: string) => BrowseSource;
  /** open on this cluster instead of the clusters view */
  readonly cluster?: string;
}

const COLUMNS = [
  { header: 'CLUSTER', align: 'left' },
  { header: 'LAST POLL', align: 'right' },
  { header: 'CONNS', align: 'right' },
  { header: 'WORST LAG', align: 'right' },
] as const;

/** The cells of one cluster in the clusters view. */
export function clusterCells(l: FleetLine): string[] {
  return [
    sanitizeCell(l.cluster),
    l.age === undefined ? NONE : l.age < 0n ? `in ${formatSpan(-l.age)}` : `${formatSpan(l.age)} ago`,
    l.openConnections === undefined ? NONE : formatCount(l.openConnections),
    l.worstShadowLag === undefined ? NONE : formatCount(l.worstShadowLag),
  ];
}

/** The keys of the clusters view, ending like every footer of the browser in `? help  q quit`. */
export function clustersFooter(back: boolean): string {
  return `j/k move  Enter open${back ? '  Esc back' : ''}  ? help  q quit`;
}

/** The help of the clusters view (`?`). */
export function clustersHelp(back: boolean): string[] {
  return [
    'Help: clusters   Esc or ? closes',
    '  j k ↓ ↑   move between the recorded clusters (g G: first, last)',
    '  Enter     open the selected cluster: every view then shows it',
    ...(back ? ['  Esc       back to the cluster last shown'] : []),
    "  C         from a cluster's views (also :clusters): back here",
    '  q         quit',
    'LAST POLL is the age of the newest poll against now; CONNS the open connections; WORST LAG the largest shadow lag in records, both as of that poll.',
  ];
}

/** The root component of `flightrec browse` over several clusters. */
export function FleetBrowser(props: FleetBrowserProps): React.ReactElement {
  const [cluster, setCluster] = useState<string | undefined>(props.cluster);
  const last = useRef<string | undefined>(props.cluster);
  if (cluster !== undefined) {
    const { reader: _r, database: _d, clusters: _c, sourceOf, cluster: _k, ...app } = props;
    return (
      <App
        key={cluster}
        {...app}
        source={sourceOf(cluster)}
        onClusters={() => {
          last.current = cluster;
          setCluster(undefined);
        }}
      />
    );
  }
  return (
    <ClustersView
      {...props}
      back={last.current}
      onPick={(c) => {
        last.current = c;
        setCluster(c);
      }}
    />
  );
}

interface ClustersViewProps extends FleetBrowserProps {
  /** the cluster Esc returns to */
  readonly back: string | undefined;
  readonly onPick: (cluster: string) => void;
}

/** The clusters view: j/k (arrows) move, Enter opens, Esc returns, q quits. */
function ClustersView(props: ClustersViewProps): React.ReactElement {
  const { theme } = props;
  const { exit } = useApp();
  const size: TerminalSize = useTerminalSize(props.size);
  const nowNs = BigInt(Math.floor(props.now())) * 1_000_000n;
  // as of now to the second, so a re-render reads nothing again
  const asOf = (nowNs / 1_000_000_000n) * 1_000_000_000n;
  const fleet = useMemo(
    () => fleetStatus(props.reader, { clusters: props.clusters, at: asOf, events: false }),
    [props.reader, props.clusters, asOf],
  );
  // by name here (the fleet command sorts by open events; this view skips the timeline)
  const lines = useMemo(
    () => [...fleet.lines].sort((a, b) => (a.cluster < b.cluster ? -1 : a.cluster > b.cluster ? 1 : 0)),
    [fleet],
  );
  const [selected, setSelected] = useState(() => {
    const i = props.back === undefined ? -1 : lines.findIndex((l) => l.cluster === props.back);
    return Math.max(0, i);
  });
  // the latest selection for keys that arrive before the next render
  const live = useRef(selected);
  live.current = selected;
  const [help, setHelp] = useState(false);

  useInput((input, key) => {
    let s = live.current;
    for (const k of burstKeys(input, key, false)) {
      const name = k.name;
      if (name === 'q' || name === 'ctrl+c') {
        props.onQuit?.();
        exit();
        return;
      }
      if (name === '?' || (help && name === 'esc')) {
        setHelp((h) => !h && name === '?');
        return;
      }
      if (name === 'j' || name === 'down') s = Math.min(lines.length - 1, s + 1);
      else if (name === 'k' || name === 'up') s = Math.max(0, s - 1);
      else if (name === 'g' || name === 'home') s = 0;
      else if (name === 'G' || name === 'end') s = Math.max(0, lines.length - 1);
      else if (name === 'enter') {
        const l = lines[s];
        if (l !== undefined) props.onPick(l.cluster);
        return;
      } else if (name === 'esc' && props.back !== undefined) {
        props.onPick(props.back);
        return;
      }
    }
    live.current = s;
    setSelected(s);
  });

  const width = size.columns;
  const rows = lines.map(clusterCells);
  const widths = COLUMNS.map((c, i) => Math.max(textWidth(c.header), ...rows.map((r) => textWidth(r[i] ?? ''))));
  const row = (cells: readonly string[]): string =>
    cells.map((c, i) => fit(c, widths[i]!, COLUMNS[i]!.align)).join('  ');
  const height = Math.max(1, size.rows - 5);
  const offset = Math.max(0, Math.min(selected - height + 1, rows.length - height));
  const title = `flightrec · ${lines.length} clusters · ${sanitizeCell(props.database)}`;
  const keys = clustersFooter(props.back !== undefined);
  return (
    <Box flexDirection="column" width={width} height={size.rows - 1} overflow="hidden">
      <Text {...theme.title} wrap="truncate">
        {fit(title, width)}
      </Text>
      <Text {...theme.label} wrap="truncate">
        {fit('clusters', width)}
      </Text>
      {help ? null : (
        <Text {...theme.header} wrap="truncate">
          {fit(row(COLUMNS.map((c) => c.header)), width)}
        </Text>
      )}
      {help
        ? clustersHelp(props.back !== undefined)
            .flatMap((l) => (textWidth(l) <= width ? [l] : wrapText(l, width)))
            .slice(0, height)
            .map((l, i) => (
              <Text key={`h${i}`} {...(i === 0 ? theme.header : theme.value)} wrap="truncate">
                {fit(l, width)}
              </Text>
            ))
        : rows.slice(offset, offset + height).map((cells, i) => (
            <Text key={lines[offset + i]!.cluster} {...(offset + i === selected ? theme.selected : {})} wrap="truncate">
              {fit(row(cells), width)}
            </Text>
          ))}
      <Box flexGrow={1} />
      <Text {...theme.muted} wrap="truncate">
        {fit(keys, width)}
      </Text>
    </Box>
  );
}
