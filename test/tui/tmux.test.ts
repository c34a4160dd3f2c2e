/**
 * Scripted terminal sessions: the built CLI's `browse` in tmux (send-keys, capture-pane) on the
 * demo recording (`collect --simulate incident --for 25m`, the default start), at 80×24 (the
 * default terminal) and at 160×45: every view in sequence, each frame whole and its rows told
 * apart; the timeline with its descriptions, an event's detail from the timeline and from the
 * overview, the auth failures' evidence (the failing client's connections) and back with one Esc,
 * `t` with a time as the tables print it. And `flightrec demo` on a terminal, whose browser opens
 * at the worst incident. Skipped, with a notice, when tmux or the built CLI is not available.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHistoryReader, openDatabase } from '../../src/db/index.ts';
import { buildTimeline } from '../../src/report/timeline/timeline.ts';
import type { TimelineEvent } from '../../src/report/timeline/types.ts';
import { demoDatabase } from './helpers/demo-db.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = resolve(ROOT, process.env['FLIGHTREC_BIN'] ?? 'bin/flightrec.js');
const SESSION = 'browse';

/** Why the sessions cannot run here, or undefined. */
function unavailable(): string | undefined {
  if (spawnSync('tmux', ['-V']).status !== 0) return 'tmux is not installed (apt-get install -y tmux)';
  if (!existsSync(BIN)) return `${BIN} is missing (npm run build)`;
  const help = spawnSync(process.execPath, [BIN, '--help'], { encoding: 'utf8' }).stdout ?? '';
  if (!/^\s+browse\b/m.test(help))
    return `the built CLI (${BIN}) has no browse command yet (register it, then npm run build)`;
  return undefined;
}

const reason = unavailable();
if (reason !== undefined)
  process.stderr.write(`\n⚠ NOTICE: the scripted tmux sessions of flightrec browse are SKIPPED: ${reason}\n\n`);

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** One tmux server (its own socket) running one command in a pane of a fixed size. */
class Terminal {
  readonly #socket = `flightrec-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  readonly columns: number;
  readonly rows: number;
  constructor(columns: number, rows: number) {
    this.columns = columns;
    this.rows = rows;
  }

  #tmux(...args: string[]): { status: number | null; stdout: string; stderr: string } {
    const r = spawnSync('tmux', ['-L', this.#socket, ...args], { encoding: 'utf8' });
    return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
  }

  start(command: string, cwd: string): void {
    // CI=true always: ink renders only the final frame under CI unless the browser forces live rendering
    const r = this.#tmux(
      'new-session',
      '-d',
      '-s',
      SESSION,
      '-x',
      String(this.columns),
      '-y',
      String(this.rows),
      '-c',
      cwd,
      '-e',
      'TERM=xterm-256color',
      '-e',
      'CI=true',
      command,
    );
    if (r.status !== 0) throw new Error(`tmux new-session failed: ${r.stderr}`);
  }

  /** The visible pane. */
  screen(): string {
    return this.#tmux('capture-pane', '-p', '-t', SESSION).stdout;
  }

  /** Waits until the pane shows `text`; returns the pane. */
  async waitFor(text: string | RegExp, timeoutMs = 20_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const s = this.screen();
      if (typeof text === 'string' ? s.includes(text) : text.test(s)) return s;
      if (Date.now() > deadline) throw new Error(`pane never showed ${String(text)}; it shows:\n${s}`);
      await sleep(50);
    }
  }

  /**
   * waitFor, then until the frame is drawn whole, down to its footer: ink writes a frame in
   * pieces, and a capture between two of them shows a cut footer (seen once on a loaded machine).
   * At the deadline the pane as it is, for expectUsable to say what is wrong.
   */
  async waitForFrame(text: string | RegExp, timeoutMs = 20_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const s = await this.waitFor(text, Math.max(1, deadline - Date.now()));
      if ((paneLines(s).at(-1) ?? '').includes('? help') || Date.now() > deadline) return s;
      await sleep(50);
    }
  }

  /** Waits until the pane no longer shows `text`; returns the pane. */
  async waitForGone(text: string, timeoutMs = 20_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const s = this.screen();
      if (!s.includes(text)) return s;
      if (Date.now() > deadline) throw new Error(`pane kept showing ${text}; it shows:\n${s}`);
      await sleep(50);
    }
  }

  /** Types keys (tmux key names or literal text). */
  keys(...k: string[]): void {
    this.#tmux('send-keys', '-t', SESSION, ...k);
  }

  stop(): void {
    this.#tmux('kill-server');
  }
}

/** The pane's lines without the empty tail. */
function paneLines(s: string): string[] {
  const ls = s.split('\n');
  while (ls.length > 0 && ls[ls.length - 1]!.trim() === '') ls.pop();
  return ls;
}

/** What every frame of the browser must satisfy at any size. */
function expectUsable(s: string, columns: number, view: string): void {
  const ls = paneLines(s);
  for (const l of ls)
    expect(Array.from(l).length, `${view}: line longer than ${columns}: ${l}`).toBeLessThanOrEqual(columns);
  const footer = ls[ls.length - 1] ?? '';
  expect(footer, `${view}: footer`).toContain('q quit');
  expect(footer, `${view}: footer`).toContain('? help');
  // the table's header line: uppercase words after the glyph gutter, never cut
  const header = ls.find((l) => /^ {3}[A-Z][A-Z /-]+( {2}[A-Z]|$)/.test(l));
  if (header !== undefined) expect(header, `${view}: a column header is cut`).not.toContain('…');
  // numbers keep their unit: nothing like `379 K…` or `1.3 M…`
  for (const l of ls) expect(l, `${view}: a number lost its unit`).not.toMatch(/\d ?([KMGT]i?B?|B\/)…/);
}

/** The table's rows on screen (after the glyph gutter: `›✖ ` or ` ▲ `), below its header line. */
function tableRows(s: string): { header: string; rows: string[] } {
  const ls = paneLines(s);
  const at = ls.findIndex((l) => /^ {3}[A-Z][A-Z /-]+( {2}[A-Z]|$)/.test(l));
  if (at < 0) return { header: '', rows: [] };
  const rows: string[] = [];
  for (const l of ls.slice(at + 1)) {
    if (!/^[› ]. (?=.*\S)/.test(l)) break;
    rows.push(l);
  }
  return { header: ls[at]!, rows };
}

/**
 * The text of one column in each row: a left-aligned column from its header's start to the next
 * header's, a right-aligned one up to its header's end.
 */
function columnTexts(s: string, name: string, align: 'left' | 'right' = 'left'): string[] {
  const { header, rows } = tableRows(s);
  const starts = [...header.matchAll(/\S+(?: \S+)*/g)].map((m) => ({ text: m[0], start: m.index }));
  const j = starts.findIndex((h) => h.text.replace(/[▲▼]$/, '') === name);
  if (j < 0) return [];
  const h = starts[j]!;
  const from = align === 'left' ? h.start : (starts[j - 1]?.start ?? 3) + (starts[j - 1]?.text.length ?? 0);
  const to = align === 'left' ? (starts[j + 1]?.start ?? Infinity) : h.start + h.text.length;
  return rows.map((r) => Array.from(r).slice(from, to).join('').trim());
}

/** No two rows show the same text in the identifying column (`name`) of a view. */
function expectApart(s: string, view: string, name: string, align: 'left' | 'right' = 'left'): void {
  const cells = columnTexts(s, name, align);
  expect(cells.length, `${view}: no rows under ${name}`).toBeGreaterThan(0);
  expect(new Set(cells).size, `${view}: two rows read the same under ${name}: ${cells.join(' | ')}`).toBe(cells.length);
}

/** Rows of events (in the order shown) of different entities never show the same ENTITY text. */
function expectEventsApart(s: string, view: string, events: readonly TimelineEvent[]): void {
  const cells = columnTexts(s, 'ENTITY');
  expect(cells.length, `${view}: no events`).toBeGreaterThan(0);
  expect(cells.length).toBeLessThanOrEqual(events.length);
  for (let i = 0; i < cells.length; i++)
    for (let j = i + 1; j < cells.length; j++)
      if (events[i]!.entity !== events[j]!.entity)
        expect(cells[i], `${view}: ${events[i]!.entity} and ${events[j]!.entity} both read`).not.toBe(cells[j]);
}

/** Visits every view of the browser in sequence, checking each frame. */
async function visitEveryView(t: Terminal, events: readonly TimelineEvent[]): Promise<void> {
  await t.waitFor('Latest events');
  let s = await t.waitForFrame(/mber-versi/);
  expectUsable(s, t.columns, 'overview');
  expect(s, 'the overview keeps its upgrade line').toMatch(/upgrade +✓ FINALIZED/);
  expect(s.split('\n').filter((l) => l !== '').length).toBeLessThanOrEqual(t.rows - 1);
  // the latest events, newest first
  expectEventsApart(s, 'overview', [...events].reverse());

  t.keys(':connections', 'Enter');
  s = await t.waitForFrame('overview › connections');
  expectUsable(s, t.columns, 'connections');
  expect(s).toMatch(/UID +NODE +CLIENT ID +(PRINCIPAL +)?STATE/);
  expect(s).toMatch(/ (B|KiB|MiB)\/s /);
  expectApart(s, 'connections', 'UID');

  t.keys('j', 'Enter');
  await t.waitFor(/connections › connection [0-9a-f-]{8}/);
  s = await t.waitForFrame(/History: \d+ samples/);
  expectUsable(s, t.columns, 'connection');
  expectApart(s, 'connection', 'TIME');

  t.keys(':shadow-links', 'Enter');
  s = await t.waitForFrame('overview › shadow-links');
  expectUsable(s, t.columns, 'shadow-links');
  expectApart(s, 'shadow-links', 'NAME');
  t.keys('Enter');
  await t.waitFor('link dr-primary');
  s = await t.waitForFrame('Shadow topics');
  expectUsable(s, t.columns, 'shadow-link');
  expectApart(s, 'shadow-link', 'NAME');
  // every task is listed (9 on dr-primary), not "… 3 more"
  expect(s.match(/ b\d\/s\d {2}[A-Z_]+/g)?.length).toBe(9);
  expect(s).not.toMatch(/… \d+ more \(/);
  t.keys('j', 'Enter');
  await t.waitFor('topic payments');
  s = await t.waitForFrame(/LAG OVER TIME/);
  expectUsable(s, t.columns, 'shadow-topic');
  expectApart(s, 'shadow-topic', 'PARTITION', 'right');
  // a past cursor: the lag sparklines have no gaps
  t.keys('{');
  s = await t.waitFor(/poll 4\d\/51/);
  for (const spark of s.match(/[▁▂▃▄▅▆▇█][▁▂▃▄▅▆▇█ ]*[▁▂▃▄▅▆▇█]/g) ?? [])
    expect(spark, 'sparkline gap').not.toContain(' ');
  t.keys('T');

  t.keys(':upgrade', 'Enter');
  await t.waitFor('overview › upgrade');
  s = await t.waitForFrame('Members');
  expectUsable(s, t.columns, 'upgrade');
  expectApart(s, 'upgrade', 'NODE', 'right');
  t.keys(':iceberg', 'Enter');
  await t.waitFor('overview › iceberg');
  s = await t.waitForFrame('Partitions');
  expectUsable(s, t.columns, 'iceberg');
  // a partition is its topic and number
  const topics = columnTexts(s, 'TOPIC');
  const numbers = columnTexts(s, 'PARTITION', 'right');
  const pairs = topics.map((x, i) => `${x}/${numbers[i]}`);
  expect(new Set(pairs).size, `iceberg: ${pairs.join(' | ')}`).toBe(pairs.length);
  t.keys(':timeline', 'Enter');
  await t.waitFor('overview › timeline');
  s = await t.waitForFrame(/TIME +(SEV +)?KIND +ENTITY/);
  expectUsable(s, t.columns, 'timeline');
  // the description is never the column that gives way
  expect(tableRows(s).header).toMatch(/ DESCRIPTION$/);
  expectEventsApart(s, 'timeline', events);
  // every event of the demo is on one day: the times are the time of day
  // SEV is the first column to drop when the width is short: the row's glyph still shows the severity
  expect(s).toMatch(/^.. ≤?00:\d\d:\d\d +((info|warn|error) +)?([a-z]+|…)\.[a-z-]+ /m);

  // the recording is from 2026-01-01: a time of day would count back from today, so give the date
  t.keys(':diff', 'Enter', 't', '2026-01-01T00:10:00Z', 'Enter', 'm', 't', '2026-01-01T00:12:00Z', 'Enter', 'm');
  await t.waitFor(/RESOURCE +CHANGE +ENTITY +DETAILS/);
  s = await t.waitForFrame(/\d+ difference/);
  expectUsable(s, t.columns, 'diff');
  // an entity is its resource and its name
  const resources = columnTexts(s, 'RESOURCE');
  const changed = columnTexts(s, 'ENTITY').map((e, i) => `${resources[i]} ${e}`);
  expect(changed.length).toBeGreaterThan(0);
  expect(new Set(changed).size, `diff: ${changed.join(' | ')}`).toBe(changed.length);

  t.keys('?');
  s = await t.waitForFrame('Help: diff');
  expectUsable(s, t.columns, 'help');
  // keys and what they do are apart, and the texts wrap rather than being cut
  expect(s).toMatch(/pgdn ctrl\+f space {2,}next page/);
  expect(s).not.toMatch(/[a-z]…$/m);
  // the header keeps 'overview › diff' under the help: wait for the help itself to close, or the
  // next key can reach the browser in the same read as the Escape, which is then Alt+key (ESC q)
  t.keys('Escape');
  await t.waitForGone('Help: diff');
  await t.waitFor('overview › diff');
}

/**
 * The incident room: an event whole from the timeline (its evidence table), its evidence (the
 * failing client's connections at its start), one Esc back to the event as it was, another to
 * the list; `t 00:04:30`; an event whole from the overview's latest events.
 */
async function readTheIncident(t: Terminal, events: readonly TimelineEvent[]): Promise<void> {
  t.keys(':timeline', 'Enter', 'T', 'g');
  await t.waitForFrame(/TIME +(SEV +)?KIND +ENTITY/);
  const index = events.findIndex((e) => e.kind === 'connections.auth-failures');
  t.keys(...Array.from({ length: index }, () => 'j'));
  let s = await t.waitForFrame(/^›.*auth-failures/m);
  const row = paneLines(s).find((l) => l.startsWith('›')) ?? '';
  expect(row).toMatch(/auth-failures/);
  t.keys('Enter');
  s = await t.waitForFrame('event connections.auth-failures');
  expectUsable(s, t.columns, 'event');
  expect(s).toMatch(/^entity +listener\/external/m);
  expect(s).toMatch(/FIELD +BEFORE +DURING +AFTER/);
  expect(s).toMatch(/clients +- +svc-legacy-client \(900\)/);
  const detail = s;

  t.keys('e');
  s = await t.waitForFrame(/› connections/);
  expectUsable(s, t.columns, 'evidence');
  expect(s).toMatch(/^at 2026-01-01T00:04:30Z/m);
  expect(s).toMatch(/evidence: listener_name = "external"/);
  const clients = columnTexts(s, 'CLIENT ID');
  expect(clients.length).toBeGreaterThan(3);
  for (const c of clients) expect(c).toBe('svc-legacy-client');

  t.keys('Escape');
  s = await t.waitForFrame(/event connections\.auth-failures\s*$/m);
  expect(s, 'one Esc returns to the event as it was').toBe(detail);
  t.keys('Escape');
  s = await t.waitForFrame(/^overview › timeline +\[/m);
  expect(paneLines(s).find((l) => l.startsWith('›'))).toBe(row);

  t.keys('t', '00:04:30', 'Enter');
  await t.waitForFrame(/^at 2026-01-01T00:04:30Z/m);

  t.keys(':overview', 'Enter');
  await t.waitForFrame(/Latest events/);
  t.keys('Enter');
  s = await t.waitForFrame(/overview › event /);
  expectUsable(s, t.columns, 'event from the overview');
  expect(s).toMatch(/Evidence/);
  t.keys('Escape');
  await t.waitForFrame(/Latest events/);
}

describe.skipIf(reason !== undefined)(
  `browse in a real terminal (tmux)${reason === undefined ? '' : ` — SKIPPED: ${reason}`}`,
  () => {
    const terminals: Terminal[] = [];
    const dirs: string[] = [];
    let db: string;
    let events: readonly TimelineEvent[] = [];
    beforeAll(async () => {
      db = await demoDatabase('25m');
      const store = openDatabase(db, { readonly: true });
      try {
        events = buildTimeline(createHistoryReader(store)).events;
      } finally {
        store.close();
      }
    }, 120_000);
    afterAll(() => {
      for (const t of terminals) t.stop();
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    });

    for (const [columns, rows] of [
      [80, 24],
      [160, 45],
    ] as const) {
      it(`is usable at ${columns}×${rows}: every view fits with its rows told apart; an incident reads whole`, async () => {
        const t = new Terminal(columns, rows);
        terminals.push(t);
        t.start(
          `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} browse --db ${JSON.stringify(db)}; echo "EXITED=$?"; sleep 30`,
          ROOT,
        );
        await visitEveryView(t, events);
        await readTheIncident(t, events);
        t.keys('q');
        const s = await t.waitFor('EXITED=0');
        // the alternate screen is gone: the shell's pane no longer shows the browser
        expect(s).not.toContain('overview › diff');
      }, 120_000);
    }

    it('npm start on a terminal: the browser opens at the worst incident, selected, with the time keys; q prints what to try next', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'flightrec-demo-tty-'));
      dirs.push(dir);
      const t = new Terminal(80, 24);
      terminals.push(t);
      t.start(`${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} demo; echo "EXITED=$?"; sleep 30`, dir);
      // the recording: one progress line redrawn in place, not a line per poll
      let s = await t.waitFor(/simulated \d+m\d\ds\/25m00s · \d+ polls/, 60_000);
      expect(s).not.toMatch(/GetShadowTopic ok/);
      // the whole frame, with its selected row: ink draws the header before the rows below it
      s = await t.waitForFrame(/overview › timeline[^]*\n›/, 90_000);
      const selected = paneLines(s).find((l) => l.startsWith('›')) ?? '';
      // the demo records the 25 minutes before now: past midnight UTC, its events before it are dated
      expect(selected).toMatch(/^›✖ (\d\d-\d\d )?\d\d:\d\d:\d\d +(error +)?(connections|…)\.broker-em.* broker\/2 /);
      expect(s).toContain('worst incident · [ ] one poll  { } ten polls  t go to a time  T latest');
      expectUsable(s, 80, 'demo');
      t.keys('q');
      s = await t.waitFor('EXITED=0');
      expect(s).toContain('What to try next:');
      // run outside the checkout: the checkout's bin by its path, never npx (it would fetch another package);
      // a long checkout path wraps the command at 80 columns, so the pane's lines are read joined
      expect(s.replace(/\n/g, '')).toContain('browse --incident');
      expect(s).not.toContain('npx flightrec');
    }, 150_000);
  },
);
