/**
 * SIGTERM in the middle of a poll: the child collector stops scheduling, aborts the call still
 * running at the deadline, records it, commits and closes the database, and exits 0. The file
 * is intact and every poll in it is complete. A SIGKILL at any instant loses only the poll in flight.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperationName } from '../../src/api/schema/operations.ts';
import { encodeAnswer } from '../../src/api/wire/answers.ts';
import { createHistoryReader, openDatabase } from '../../src/db/index.ts';
import { createWorld } from '../../src/sim/index.ts';
import { answer, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.ts';

const CHILD = fileURLToPath(new URL('./helpers/collect-child.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'flightrec-sigterm-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A cluster whose `hangAfter`+1-th ListKafkaConnections call never answers; `hung` resolves when it arrives. */
async function hangingCluster(hangAfter: number): Promise<{ server: LoopbackServer; hung: Promise<void> }> {
  const world = createWorld({ seed: 9, connections: 40 });
  let lists = 0;
  let onHang!: () => void;
  const hung = new Promise<void>((r) => (onHang = r));
  const server = await startLoopbackServer((req, res) => {
    const op = req.path.split('/').pop() as OperationName;
    world.advanceBy(1);
    if (op === 'ListKafkaConnections' && ++lists > hangAfter) {
      onHang();
      return; // never answers
    }
    const value = world.answer(op, JSON.parse(req.body.toString() || '{}') as never);
    answer(res, 200, encodeAnswer(op, value as never));
  });
  return { server, hung };
}

function startChild(
  db: string,
  baseUrl: string,
): {
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr: () => string;
} {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      CHILD,
      '--db',
      db,
      'collect',
      '--base-url',
      baseUrl,
      '--schedule',
      'upgrade=* * * * * *',
      '--schedule',
      'connections=* * * * * *',
      '--schedule',
      'iceberg=off',
      '--jitter',
      '0',
      '--shutdown-timeout',
      '500ms',
      '--timeout',
      '60s',
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  child.stdout!.on('data', (c: Buffer) => (err += `STDOUT:${c.toString()}`));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, exited, stderr: () => err };
}

function checkIntact(db: string): { polls: number; canceled: number } {
  const raw = new Database(db, { readonly: true });
  expect(raw.pragma('integrity_check', { simple: true })).toBe('ok');
  raw.close();
  const store = openDatabase(db, { readonly: true });
  try {
    const reader = createHistoryReader(store);
    const polls = reader.polls({});
    let canceled = 0;
    for (const p of polls) {
      const r = reader.reconstructAnswer(p.id);
      if (p.outcome === 'ok') expect(r.answer, `poll ${p.id}`).toBeDefined();
      else expect(r.failure, `poll ${p.id}`).toBeDefined();
      if (p.outcome === 'canceled') canceled++;
    }
    return { polls: polls.length, canceled };
  } finally {
    store.close();
  }
}

describe('shutdown in the middle of a poll', () => {
  it('SIGTERM: aborts the hung call at the deadline, records it, leaves an intact database, exits 0', async () => {
    const { server, hung } = await hangingCluster(2);
    const db = join(dir, 'term.db');
    const { child, exited, stderr } = startChild(db, server.url);
    try {
      await Promise.race([hung, exited.then(() => Promise.reject(new Error(`child exited early: ${stderr()}`)))]);
      await new Promise((r) => setTimeout(r, 100));
      child.kill('SIGTERM');
      const { code, signal } = await exited;
      expect(signal, stderr()).toBeNull();
      expect(code, stderr()).toBe(0);
      expect(stderr()).toMatch(/polls still running after 500 ms are aborted/);
      expect(stderr()).not.toContain('STDOUT:');
      const { polls, canceled } = checkIntact(db);
      expect(polls).toBeGreaterThanOrEqual(4);
      expect(canceled).toBe(1);
    } finally {
      child.kill('SIGKILL');
      await server.close();
    }
  }, 30_000);

  it('SIGKILL: the database is intact and every committed poll complete', async () => {
    const { server } = await hangingCluster(1_000);
    const db = join(dir, 'kill.db');
    const { child, exited, stderr } = startChild(db, server.url);
    try {
      // let it write a few polls, then kill it without warning
      for (let i = 0; i < 100 && (stderr().match(/ ok /g) ?? []).length < 5; i++)
        await new Promise((r) => setTimeout(r, 100));
      child.kill('SIGKILL');
      expect((await exited).signal).toBe('SIGKILL');
      expect(checkIntact(db).polls).toBeGreaterThanOrEqual(4);
    } finally {
      await server.close();
    }
  }, 30_000);
});
