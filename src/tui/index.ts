/**
 * `flightrec browse`: the interactive history browser. Loaded lazily by the CLI so that other
 * commands never load React; opens the database read-only and renders the App with ink, which
 * it imports only here (with live rendering forced on, see live-rendering.ts).
 */
import { createHistoryReader, openDatabase, type HistoryReader } from '../db/index.ts';
import type { Thresholds } from '../report/timeline/thresholds.ts';
import { saveExport } from './data/export.ts';
import { HistorySource } from './data/history-source.ts';
import { incidentStart } from './data/incident-start.ts';
import type { StartPosition } from './state/app.ts';
import type { ViewRef } from './state/views.ts';
import { BrowseError } from './errors.ts';
import { importWithLiveRendering } from './live-rendering.ts';
import { TerminalGuard } from './terminal.ts';
import { pickTheme } from './theme.ts';

export { BrowseError } from './errors.ts';
export { resolveViewName, TOP_VIEWS } from './state/views.ts';

/** What the browser needs from the command line. */
export interface BrowseOptions {
  /** absolute path of the database */
  readonly database: string;
  /** the password file of a PostgreSQL database (--db-password-file) */
  readonly passwordFile?: string;
  /** the path as the user wrote it (shown in the header) */
  readonly displayPath: string;
  readonly cluster?: string;
  readonly stdin: NodeJS.ReadStream;
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
  readonly noColor: boolean;
  /** the wall clock in ms */
  readonly now: () => number;
  /** aborting it quits the browser (SIGINT/SIGTERM) */
  readonly signal?: AbortSignal;
  readonly start?: ViewRef;
  /** open at the worst incident (the timeline computed first), that event selected */
  readonly incident?: boolean;
  readonly followMs?: number;
  /** the timeline's thresholds (`--config`'s `thresholds:` section); default: the defaults */
  readonly thresholds?: Thresholds;
  /** the config file they come from, as the user wrote it (the help says so) */
  readonly thresholdsFrom?: string;
  /** how the user starts flightrec, for the commands the browser suggests; default `flightrec` */
  readonly launcher?: string;
}

/** The thresholds a browse source is given. */
function thresholdOptions(opts: BrowseOptions): { thresholds?: Thresholds; thresholdsFrom?: string } {
  return {
    ...(opts.thresholds === undefined ? {} : { thresholds: opts.thresholds }),
    ...(opts.thresholdsFrom === undefined ? {} : { thresholdsFrom: opts.thresholdsFrom }),
  };
}

/** Runs the browser until the user quits; the terminal is restored however it ends. */
export async function runBrowse(opts: BrowseOptions): Promise<void> {
  const db = openDatabase(opts.database, {
    readonly: true,
    ...(opts.passwordFile === undefined ? {} : { passwordFile: opts.passwordFile }),
  });
  let guard: TerminalGuard | undefined;
  let source: HistorySource | undefined;
  try {
    const reader = createHistoryReader(db);
    const clusters = reader.clusters();
    if (opts.cluster !== undefined && clusters.length > 0 && !clusters.includes(opts.cluster)) {
      throw new BrowseError(
        `no cluster ${JSON.stringify(opts.cluster)} in ${opts.displayPath}; recorded: ${clusters.join(', ')}`,
        true,
      );
    }
    if (clusters.length > 1 && opts.incident !== true) {
      await runFleetBrowser(opts, reader, clusters);
      return;
    }
    if (opts.cluster === undefined && clusters.length > 1) {
      throw new BrowseError(
        `${opts.displayPath} holds several clusters (${clusters.join(', ')}): choose one with --cluster`,
        true,
      );
    }
    source = new HistorySource(reader, {
      database: opts.displayPath,
      cluster: opts.cluster,
      workerPath: opts.database,
      passwordFile: opts.passwordFile,
      ...thresholdOptions(opts),
      ...(opts.launcher === undefined ? {} : { launcher: opts.launcher }),
    });
    let start = opts.start;
    let position: StartPosition | undefined;
    if (opts.incident === true) {
      await source.prepareTimeline();
      const found = incidentStart(source);
      if (found !== undefined) ({ view: start, position } = found);
      else position = { flash: { tone: 'info', text: 'no error event recorded: opening at the latest poll' } };
    }
    const { mountApp } = await importWithLiveRendering(() => import('./mount.ts'));
    guard = new TerminalGuard({ stdout: opts.stdout, stdin: opts.stdin });
    const instance = mountApp(
      {
        source,
        theme: pickTheme({ noColor: opts.noColor }),
        now: opts.now,
        start,
        position,
        followMs: opts.followMs,
        save: (data, view, at) => saveExport(opts.database, view, at, data),
      },
      { stdin: opts.stdin, stdout: opts.stdout, stderr: opts.stderr },
    );
    const onAbort = (): void => instance.unmount();
    // the terminal went away (hang-up): stop instead of crashing on the next write
    const onError = (): void => instance.unmount();
    opts.stdout.on('error', onError);
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await instance.waitUntilExit();
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
      opts.stdout.off('error', onError);
      instance.cleanup();
    }
  } finally {
    guard?.restore();
    source?.close();
    db.close();
  }
}

/**
 * The browser over a database holding several clusters: the clusters view first (unless
 * `--cluster` picked one), a browse source per cluster opened on first use and closed at the end.
 */
async function runFleetBrowser(opts: BrowseOptions, reader: HistoryReader, clusters: readonly string[]): Promise<void> {
  const sources = new Map<string, HistorySource>();
  const sourceOf = (cluster: string): HistorySource => {
    let s = sources.get(cluster);
    if (s === undefined) {
      s = new HistorySource(reader, {
        database: opts.displayPath,
        cluster,
        workerPath: opts.database,
        passwordFile: opts.passwordFile,
        ...thresholdOptions(opts),
      });
      sources.set(cluster, s);
    }
    return s;
  };
  const { mountFleet } = await importWithLiveRendering(() => import('./mount.ts'));
  const guard = new TerminalGuard({ stdout: opts.stdout, stdin: opts.stdin });
  try {
    const instance = mountFleet(
      {
        reader,
        database: opts.displayPath,
        clusters,
        sourceOf,
        ...(opts.cluster === undefined ? {} : { cluster: opts.cluster }),
        theme: pickTheme({ noColor: opts.noColor }),
        now: opts.now,
        start: opts.start,
        followMs: opts.followMs,
        save: (data, view, at) => saveExport(opts.database, view, at, data),
      },
      { stdin: opts.stdin, stdout: opts.stdout, stderr: opts.stderr },
    );
    const onAbort = (): void => instance.unmount();
    const onError = (): void => instance.unmount();
    opts.stdout.on('error', onError);
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await instance.waitUntilExit();
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
      opts.stdout.off('error', onError);
      instance.cleanup();
    }
  } finally {
    guard.restore();
    for (const s of sources.values()) s.close();
  }
}
