/** Renders the browser with ink into memory streams of a chosen size; keys in, frames out. */
import { EventEmitter } from 'node:events';
import React from 'react';
import { render, type Instance } from 'ink';
import { App, type AppProps } from '../../../src/tui/components/App.tsx';
import { createHistoryReader, openDatabase, type FlightrecDb } from '../../../src/db/index.ts';
import { HistorySource } from '../../../src/tui/data/history-source.ts';
import { pickTheme } from '../../../src/tui/theme.ts';
import type { Thresholds } from '../../../src/report/timeline/thresholds.ts';
import { tick } from './tick.ts';

/** A terminal-sized output stream that keeps the frames. */
class Screen extends EventEmitter {
  columns: number;
  rows: number;
  readonly isTTY = true;
  readonly frames: string[] = [];
  constructor(columns: number, rows: number) {
    super();
    this.columns = columns;
    this.rows = rows;
  }
  write = (frame: string): boolean => {
    this.frames.push(frame);
    return true;
  };
  resize(columns: number, rows: number): void {
    this.columns = columns;
    this.rows = rows;
    this.emit('resize');
  }
}

/** A keyboard: what is written comes out as input events. */
class Keyboard extends EventEmitter {
  readonly isTTY = true;
  #data: string | null = null;
  write(data: string): void {
    this.#data = data;
    this.emit('readable');
    this.emit('data', data);
  }
  read = (): string | null => {
    const d = this.#data;
    this.#data = null;
    return d;
  };
  setEncoding(): void {}
  setRawMode(): void {}
  resume(): void {}
  pause(): void {}
  ref(): void {}
  unref(): void {}
}

/** Strips SGR and other CSI escape sequences. */
export function plain(text: string): string {
  // eslint-disable-next-line no-control-regex -- strips terminal escape sequences
  return text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
}

export { tick } from './tick.ts';

/** A rendered browser. */
export interface Browser {
  /** the last frame, escape sequences removed */
  frame(): string;
  /** the last frame as written (with colours) */
  raw(): string;
  /** types keys (ink names: '\r' Enter, '\u001b' Esc, '\u001b[A' up) and waits for the frame */
  press(...keys: string[]): Promise<string>;
  resize(columns: number, rows: number): Promise<void>;
  readonly source: HistorySource;
  readonly saved: { path: string; text: string }[];
  quitCalled(): boolean;
  close(): void;
}

/** Opens `dbPath` read-only and renders the browser at the given size. */
export async function openBrowser(
  dbPath: string,
  opts: {
    columns?: number;
    rows?: number;
    noColor?: boolean;
    now?: () => number;
    props?: Partial<AppProps>;
    /** the database's name in the header (default demo.db) */
    database?: string;
    /** props computed from the source before the first frame (the start of `--incident`) */
    prepare?: (source: HistorySource) => Promise<Partial<AppProps>>;
    /** the thresholds in force (`browse --config`) and their file */
    thresholds?: { values: Thresholds; from: string };
  } = {},
): Promise<Browser> {
  const db: FlightrecDb = openDatabase(dbPath, { readonly: true });
  const source = new HistorySource(createHistoryReader(db), {
    database: opts.database ?? 'demo.db',
    ...(opts.thresholds === undefined
      ? {}
      : { thresholds: opts.thresholds.values, thresholdsFrom: opts.thresholds.from }),
  });
  const prepared = opts.prepare === undefined ? {} : await opts.prepare(source);
  const stdout = new Screen(opts.columns ?? 120, opts.rows ?? 40);
  const stdin = new Keyboard();
  const saved: { path: string; text: string }[] = [];
  let quit = false;
  const app = React.createElement(App, {
    source,
    theme: pickTheme({ noColor: opts.noColor ?? false }),
    now: opts.now ?? (() => 1_767_226_800_000),
    save: (data, view) => {
      const path = `/saved/${view.kind}.${data.format}`;
      saved.push({ path, text: JSON.stringify(data, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)) });
      return path;
    },
    onQuit: () => {
      quit = true;
    },
    ...prepared,
    ...opts.props,
  });
  const instance: Instance = render(app, {
    stdout: stdout as unknown as NodeJS.WriteStream,
    stdin: stdin as unknown as NodeJS.ReadStream,
    stderr: stdout as unknown as NodeJS.WriteStream,
    debug: true,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  await tick(20);
  const last = (): string => stdout.frames[stdout.frames.length - 1] ?? '';
  return {
    frame: () => plain(last()),
    raw: last,
    async press(...keys: string[]) {
      for (const k of keys) {
        stdin.write(k);
        await tick();
      }
      await tick();
      return plain(last());
    },
    async resize(columns, rows) {
      stdout.resize(columns, rows);
      await tick();
    },
    source,
    saved,
    quitCalled: () => quit,
    close() {
      instance.unmount();
      instance.cleanup();
      source.close();
      db.close();
    },
  };
}

/** Key codes as a terminal sends them. */
export const KEY = {
  enter: '\r',
  esc: '\u001b',
  up: '\u001b[A',
  down: '\u001b[B',
  pgdn: '\u001b[6~',
  pgup: '\u001b[5~',
  backspace: '\u007f',
  tab: '\t',
  ctrlC: '\u0003',
  ctrlS: '\u0013',
} as const;
