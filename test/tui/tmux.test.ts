/**
 * A scripted terminal session: the built CLI's `browse` in tmux (send-keys, capture-pane) on the
 * recorded demo database, through overview, connections, one connection, shadow topics and the
 * timeline. Skipped, with a notice, when tmux or the built `browse` command is not available.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoDatabase } from './helpers/demo-db.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = resolve(ROOT, process.env['FLIGHTREC_BIN'] ?? 'bin/flightrec.js');
const SOCKET = `flightrec-test-${process.pid}`;
const SESSION = 'browse';

function tmux(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

/** Why the session cannot run here, or undefined. */
function unavailable(): string | undefined {
  if (spawnSync('tmux', ['-V']).status !== 0) return 'tmux is not installed (apt-get install -y tmux)';
  if (!existsSync(BIN)) return `${BIN} is missing (npm run build)`;
  const help = spawnSync(process.execPath, [BIN, '--help'], { encoding: 'utf8' }).stdout ?? '';
  if (!/^\s+browse\b/m.test(help)) return `the built CLI (${BIN}) has no browse command yet (register it, then npm run build)`;
  return undefined;
}

const reason = unavailable();
if (reason !== undefined) process.stderr.write(`\n⚠ NOTICE: the scripted tmux session of flightrec browse is SKIPPED: ${reason}\n\n`);

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The visible pane. */
function screen(): string {
  return tmux('capture-pane', '-p', '-t', SESSION).stdout;
}

/** Waits until the pane shows `text` (string or pattern); returns the pane. */
async function waitFor(text: string | RegExp, timeoutMs = 15_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = screen();
    if (typeof text === 'string' ? s.includes(text) : text.test(s)) return s;
    if (Date.now() > deadline) throw new Error(`pane never showed ${String(text)}; it shows:\n${s}`);
    await sleep(50);
  }
}

/** Types keys (tmux key names or literal text) into the browser. */
function keys(...k: string[]): void {
  tmux('send-keys', '-t', SESSION, ...k);
}

describe.skipIf(reason !== undefined)(`browse in a real terminal (tmux)${reason === undefined ? '' : ` — SKIPPED: ${reason}`}`, () => {
  beforeAll(async () => {
    // CI=true always: ink renders only the final frame under CI unless the browser forces live rendering
    const db = await demoDatabase();
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} browse --db ${JSON.stringify(db)}; echo "EXITED=$?"; sleep 30`;
    const r = tmux('new-session', '-d', '-s', SESSION, '-x', '120', '-y', '40', '-e', 'TERM=xterm-256color', '-e', 'CI=true', command);
    if (r.status !== 0) throw new Error(`tmux new-session failed: ${r.stderr}`);
  }, 120_000);
  afterAll(() => {
    tmux('kill-server');
  });

  it('walks overview, connections, a connection, shadow topics and the timeline, then quits cleanly', async () => {
    let s = await waitFor('Latest events');
    expect(s).toMatch(/✓ ListKafkaConnections +2026-01-01T00:20:00Z/);
    expect(s).toMatch(/connections +\d+ open of 214/);
    s = await waitFor(/upgrade\.member-version/);
    expect(s.split('\n').filter((l) => l !== '').length).toBeLessThanOrEqual(39);

    keys(':connections', 'Enter');
    s = await waitFor('overview › connections');
    expect(s).toMatch(/\[214 rows\]/);
    expect(s).toMatch(/UID +NODE +CLIENT ID/);

    keys('j', 'Enter');
    s = await waitFor(/connections › connection [0-9a-f-]{36}/);
    expect(s).toMatch(/History: \d+ samples/);
    expect(s).toMatch(/produce +[▁▂▃▄▅▆▇█]+/);

    keys(':shadow-links', 'Enter');
    await waitFor('overview › shadow-links');
    keys('Enter');
    s = await waitFor('link dr-primary');
    expect(s).toContain('Shadow topics');
    keys('j', 'Enter');
    s = await waitFor('topic payments');
    expect(s).toMatch(/LAG OVER TIME/);

    keys(':timeline', 'Enter');
    s = await waitFor('overview › timeline');
    expect(s).toMatch(/TIME +SEV +KIND +ENTITY/);
    expect(s).toMatch(/connections\.storm|shadow\.|broker/);

    keys('q');
    s = await waitFor('EXITED=0');
    // the alternate screen is gone: the shell's pane no longer shows the browser
    expect(s).not.toContain('overview › timeline');
  }, 60_000);
});
