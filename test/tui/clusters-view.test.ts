/**
 * The clusters view of the browser over a database holding three simulated clusters: it opens
 * first, lists each cluster with its newest poll's age, open connections and worst lag; Enter
 * opens a cluster (the other views then show that cluster), C / :clusters / Esc come back.
 */
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import React from 'react';
import { render, type Instance } from 'ink';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCollect } from '../../src/cli/commands/collect.ts';
import { createHistoryReader, openDatabase, type FlightrecDb } from '../../src/db/index.ts';
import { FleetBrowser } from '../../src/tui/components/FleetBrowser.tsx';
import { HistorySource } from '../../src/tui/data/history-source.ts';
import { pickTheme } from '../../src/tui/theme.ts';
import { memoryIo } from '../helpers/memory-io.ts';
import { plain, KEY } from './helpers/render.ts';
import { tick } from './helpers/tick.ts';

class Screen extends EventEmitter {
  readonly isTTY = true;
  readonly frames: string[] = [];
  readonly columns: number;
  readonly rows: number;
  constructor(columns: number, rows: number) {
    super();
    this.columns = columns;
    this.rows = rows;
  }
  write = (frame: string): boolean => {
    this.frames.push(frame);
    return true;
  };
}

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

const dir = mkdtempSync(join(tmpdir(), 'flightrec-clusters-'));
const dbPath = join(dir, 'fleet.db');
/** 2026-01-01T00:10:00Z, a few minutes after every recording ended */
const NOW_MS = Date.UTC(2026, 0, 1, 0, 10, 0);

async function record(cluster: string, scenario: string, forDuration: string, connections: string): Promise<void> {
  const io = memoryIo();
  const code = await runCollect(
    { link: [], schedule: [], simulate: scenario, for: forDuration, connections },
    { db: dbPath, cluster },
    io,
  );
  if (code !== 0) throw new Error(`recording ${cluster} failed: ${io.err().slice(-1000)}`);
}

let db: FlightrecDb;
let instance: Instance;
let screen: Screen;
let keyboard: Keyboard;
const sources = new Map<string, HistorySource>();
let quit = false;

const frame = (): string => plain(screen.frames[screen.frames.length - 1] ?? '');
async function press(...keys: string[]): Promise<string> {
  for (const k of keys) {
    keyboard.write(k);
    await tick();
  }
  await tick(20);
  return frame();
}

/** Presses keys, then waits (up to 10 s, for a loaded machine) until `done(frame)`, and a little more; returns the frame. */
async function pressUntil(done: string | ((f: string) => boolean), ...keys: string[]): Promise<string> {
  const ok = typeof done === 'string' ? (f: string) => f.includes(done) : done;
  let f = await press(...keys);
  for (let i = 0; i < 200 && !ok(f); i++) {
    await tick(50);
    f = frame();
  }
  // ink subscribes a newly shown view to the keyboard in an effect after drawing it: let it settle
  await tick(150);
  return f;
}

/** The breadcrumbs line of the browser's frame. */
const crumbs = (f: string): string => f.split('\n')[2] ?? '';

beforeAll(async () => {
  await record('east', 'broker-outage', '3m', '30');
  await record('west', 'iceberg', '4m', '45');
  await record('north', 'quiet', '2m', '20');
  db = openDatabase(dbPath, { readonly: true });
  const reader = createHistoryReader(db);
  screen = new Screen(120, 30);
  keyboard = new Keyboard();
  instance = render(
    React.createElement(FleetBrowser, {
      reader,
      database: 'fleet.db',
      clusters: reader.clusters(),
      sourceOf: (cluster: string) => {
        let s = sources.get(cluster);
        if (s === undefined) {
          s = new HistorySource(reader, { database: 'fleet.db', cluster });
          sources.set(cluster, s);
        }
        return s;
      },
      theme: pickTheme({ noColor: false }),
      now: () => NOW_MS,
      save: () => '/dev/null',
      onQuit: () => {
        quit = true;
      },
    }),
    {
      stdout: screen as unknown as NodeJS.WriteStream,
      stdin: keyboard as unknown as NodeJS.ReadStream,
      stderr: screen as unknown as NodeJS.WriteStream,
      debug: true,
      exitOnCtrlC: false,
      patchConsole: false,
    },
  );
  await tick(30);
}, 120_000);

afterAll(() => {
  instance?.unmount();
  instance?.cleanup();
  for (const s of sources.values()) s.close();
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

const rowOf = (f: string, cluster: string): string =>
  f.split('\n').find((l) => l.trimStart().startsWith(cluster)) ?? '';

describe('the clusters view', () => {
  it('opens first, one line per cluster: newest poll age, open connections, worst lag', () => {
    const f = frame();
    expect(f).toContain('flightrec · 3 clusters · fleet.db');
    expect(f).toMatch(/CLUSTER\s+LAST POLL\s+CONNS\s+WORST LAG/);
    // ages against now (00:10): east ended at 00:03, west at 00:04, north at 00:02
    expect(rowOf(f, 'east')).toMatch(/^east\s+7m ago\s+\d+\s+[\d.]+k?\s*$/);
    expect(rowOf(f, 'west')).toMatch(/^west\s+6m ago\s+\d+\s+/);
    expect(rowOf(f, 'north')).toMatch(/^north\s+8m ago/);
    // the connections differ per cluster (30, 45, 20 simulated)
    const conns = ['east', 'west', 'north'].map((c) => Number(/ago\s+(\d+)/.exec(rowOf(f, c))?.[1]));
    expect(new Set(conns).size).toBe(3);
  });

  it('Enter opens the selected cluster; the views then show that cluster', async () => {
    // name order: east, north, west
    const f = await pressUntil('cluster west', 'j', 'j', KEY.enter);
    expect(f).toContain('cluster west');
    const ice = await pressUntil((f) => crumbs(f).includes('iceberg'), ':', 'iceberg', KEY.enter);
    expect(ice).toContain('cluster west');
    expect(ice).not.toContain('cluster east');
  });

  it('Esc goes back along the views, then to the clusters view, with the cluster selected', async () => {
    expect(crumbs(await pressUntil((f) => crumbs(f).trim() === 'overview', KEY.esc)).trim()).toBe('overview');
    const f = await pressUntil('3 clusters', KEY.esc);
    expect(f).toContain('flightrec · 3 clusters');
    expect(f.split('\n').find((l) => l.includes('west'))).toBeDefined();
    expect(await pressUntil('cluster west', KEY.enter)).toContain('cluster west');
    // Esc on the clusters view returns to the cluster last shown
    expect(await pressUntil('3 clusters', 'C')).toContain('flightrec · 3 clusters');
    expect(await pressUntil('cluster west', KEY.esc)).toContain('cluster west');
  });

  it('C and :clusters open the clusters view; k and Enter pick another cluster', async () => {
    expect(await pressUntil('3 clusters', 'C')).toContain('flightrec · 3 clusters');
    const east = await pressUntil('cluster east', 'k', 'k', KEY.enter);
    expect(east).toContain('cluster east');
    expect(await pressUntil('3 clusters', ':', 'clusters', KEY.enter)).toContain('flightrec · 3 clusters');
    expect(await pressUntil('cluster east', KEY.enter)).toContain('cluster east');
  });

  it('its footer ends in ? help  q quit like every footer; ? shows its help and closes it again', async () => {
    let f = await pressUntil('3 clusters', 'C');
    const footer = f.trimEnd().split('\n').at(-1) ?? '';
    expect(footer).toMatch(/\? help {2}q quit$/);
    f = await pressUntil('Help: clusters', '?');
    expect(f).toMatch(/Enter +open the selected cluster/);
    expect(f).not.toMatch(/CLUSTER\s+LAST POLL/);
    f = await pressUntil((x) => !x.includes('Help: clusters'), '?');
    expect(f).toMatch(/CLUSTER\s+LAST POLL/);
  });

  it('q quits from the clusters view', async () => {
    await pressUntil('3 clusters', 'C');
    await press('q');
    expect(quit).toBe(true);
  });
});
