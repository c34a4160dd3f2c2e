/**
 * Ctrl-C on a long-running command, as the real `flightrec` process (bin/flightrec.js) gets it:
 * a stop in the middle of a round is a clean stop, exit 0, with the database checkpointed and
 * closed (no -wal or -shm file beside it) and every poll in it complete. Through `npx` or
 * `npm start` the process gets the signal twice, from the terminal (the whole process group)
 * and forwarded by npm: the copy must not turn the clean stop into an exit at once (130).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { createHistoryReader, openDatabase } from '../../src/db/index.ts';
import { startFlightrec } from '../helpers/flightrec-process.ts';

const dir = mkdtempSync(join(tmpdir(), 'flightrec-clean-stop-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every call answers after 1 s of real time: the first rounds (15 calls, one at a time) take 15 s. */
const SLOW = `name: slow
description: Every call answers after a second.
duration: 10m
events:
  - { at: 0s, kind: api_fault, fault: slow, delay: 1s, duration: 10m }
`;

/** The polls of the database at `db`, after checking the file's integrity. */
function pollsOf(db: string): { operation: string; outcome: string }[] {
  const raw = new Database(db, { readonly: true });
  try {
    expect(raw.pragma('integrity_check', { simple: true })).toBe('ok');
  } finally {
    raw.close();
  }
  const store = openDatabase(db, { readonly: true });
  try {
    return createHistoryReader(store)
      .polls({})
      .map((p) => ({ operation: p.operation, outcome: p.outcome }));
  } finally {
    store.close();
  }
}

describe('a clean stop of collect', () => {
  it('SIGINT twice within a few milliseconds, as under npx or npm start, during a round: exit 0, no -wal or -shm left, every poll complete', async () => {
    const scenario = join(dir, 'slow.yaml');
    writeFileSync(scenario, SLOW);
    const db = join(dir, 'stopped.db');
    // in real time, half a second before the first rounds are due
    const start = ['--speed', '1', '--start', '2026-01-01T00:00:29.5Z'];
    const p = startFlightrec(['--db', db, 'collect', '--simulate', scenario, ...start]);
    // a first round ended: the others are still running, a call in flight
    await p.waitFor(/ sim \w+ ok calls=/, 20_000);
    expect(existsSync(`${db}-wal`)).toBe(true);
    p.child.kill('SIGINT');
    // 20 ms later, the copy npm forwards (a single signal is the easier case)
    await new Promise((r) => setTimeout(r, 20));
    p.child.kill('SIGINT');
    const exit = await p.exit;
    expect({ ...exit, err: exit.code === 0 ? '' : p.err() }).toEqual({ code: 0, signal: null, err: '' });
    expect(p.err()).not.toMatch(/\n\s+at |unexpected error/);
    expect(existsSync(`${db}-wal`)).toBe(false);
    expect(existsSync(`${db}-shm`)).toBe(false);
    // the first round's poll and the call in flight when the signal came, waited for and stored
    const polls = pollsOf(db);
    expect(polls.length).toBeGreaterThanOrEqual(2);
    expect(polls.filter((x) => x.outcome !== 'ok')).toEqual([]);
  }, 60_000);
});
