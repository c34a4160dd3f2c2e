/**
 * Scripted terminal sessions: the built CLI's `browse` in tmux (send-keys, capture-pane) on the
 * recorded demo database, at 80×24 (the default terminal) and at 160×45, visiting every view in
 * sequence; and `flightrec demo` on a terminal, whose browser opens at the worst incident.
 * Skipped, with a notice, when tmux or the built CLI is not available.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
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

/** Visits every view of the browser in sequence, checking each frame. */
async function visitEveryView(t: Terminal): Promise<void> {
  await t.waitFor('Latest events');
  let s = await t.waitForFrame(/upgrade\.member-versi/);
  expectUsable(s, t.columns, 'overview');
  expect(s, 'the overview keeps its upgrade line').toMatch(/upgrade +✓ FINALIZED/);
  expect(s.split('\n').filter((l) => l !== '').length).toBeLessThanOrEqual(t.rows - 1);

  t.keys(':connections', 'Enter');
  s = await t.waitForFrame('overview › connections');
  expectUsable(s, t.columns, 'connections');
  expect(s).toMatch(/UID +NODE +CLIENT ID +(PRINCIPAL +)?STATE/);
  expect(s).toMatch(/ (B|KiB|MiB)\/s /);

  t.keys('j', 'Enter');
  await t.waitFor(/connections › connection [0-9a-f-]{8}/);
  s = await t.waitForFrame(/History: \d+ samples/);
  expectUsable(s, t.columns, 'connection');

  t.keys(':shadow-links', 'Enter');
  s = await t.waitForFrame('overview › shadow-links');
  expectUsable(s, t.columns, 'shadow-links');
  t.keys('Enter');
  await t.waitFor('link dr-primary');
  s = await t.waitForFrame('Shadow topics');
  expectUsable(s, t.columns, 'shadow-link');
  // every task is listed (9 on dr-primary), not "… 3 more"
  expect(s.match(/ b\d\/s\d {2}[A-Z_]+/g)?.length).toBe(9);
  expect(s).not.toMatch(/… \d+ more \(/);
  t.keys('j', 'Enter');
  await t.waitFor('topic payments');
  s = await t.waitForFrame(/LAG OVER TIME/);
  expectUsable(s, t.columns, 'shadow-topic');
  // a past cursor: the lag sparklines have no gaps
  t.keys('{');
  s = await t.waitFor(/poll 3\d\/41/);
  for (const spark of s.match(/[▁▂▃▄▅▆▇█][▁▂▃▄▅▆▇█ ]*[▁▂▃▄▅▆▇█]/g) ?? [])
    expect(spark, 'sparkline gap').not.toContain(' ');
  t.keys('T');

  t.keys(':upgrade', 'Enter');
  await t.waitFor('overview › upgrade');
  s = await t.waitForFrame('Members');
  expectUsable(s, t.columns, 'upgrade');
  t.keys(':iceberg', 'Enter');
  await t.waitFor('overview › iceberg');
  s = await t.waitForFrame('Partitions');
  expectUsable(s, t.columns, 'iceberg');
  t.keys(':timeline', 'Enter');
  await t.waitFor('overview › timeline');
  s = await t.waitForFrame(/TIME +(SEV +)?KIND +ENTITY/);
  expectUsable(s, t.columns, 'timeline');
  // every event of the demo is on one day: the times are the time of day
  // SEV is the first column to drop when the width is short: the row's glyph still shows the severity
  expect(s).toMatch(/^.. ≤?00:\d\d:\d\d +((info|warn|error) +)?[a-z]+\.[a-z-]+ /m);

  // the recording is from 2026-01-01: a time of day would count back from today, so give the date
  t.keys(':diff', 'Enter', 't', '2026-01-01T00:10:00Z', 'Enter', 'm', 't', '2026-01-01T00:12:00Z', 'Enter', 'm');
  await t.waitFor(/RESOURCE +CHANGE +ENTITY +DETAILS/);
  s = await t.waitForFrame(/\d+ difference/);
  expectUsable(s, t.columns, 'diff');

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

describe.skipIf(reason !== undefined)(
  `browse in a real terminal (tmux)${reason === undefined ? '' : ` — SKIPPED: ${reason}`}`,
  () => {
    const terminals: Terminal[] = [];
    const dirs: string[] = [];
    afterAll(() => {
      for (const t of terminals) t.stop();
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    });

    for (const [columns, rows] of [
      [80, 24],
      [160, 45],
    ] as const) {
      it(`is usable at ${columns}×${rows}: every view fits, keeps q quit and ? help, whole headers and units`, async () => {
        const db = await demoDatabase();
        const t = new Terminal(columns, rows);
        terminals.push(t);
        t.start(
          `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} browse --db ${JSON.stringify(db)}; echo "EXITED=$?"; sleep 30`,
          ROOT,
        );
        await visitEveryView(t);
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
      expect(selected).toMatch(/^›✖ (\d\d-\d\d )?\d\d:\d\d:\d\d +(error +)?connections\.broker-em.* broker\/2 /);
      expect(s).toContain('worst incident · [ ] one poll  { } ten polls  t go to a time  T latest');
      expectUsable(s, 80, 'demo');
      t.keys('q');
      s = await t.waitFor('EXITED=0');
      expect(s).toContain('What to try next:');
      // run outside the checkout: the checkout's bin by its path, never npx (it would fetch another package)
      expect(s).toContain('browse --incident');
      expect(s).not.toContain('npx flightrec');
    }, 150_000);
  },
);
