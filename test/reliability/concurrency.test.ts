/**
 * Item 3 of the reliability issue: readers next to a writer. A collector child process records
 * the simulated cluster at full speed while this process reads the same database, over and
 * over, the way `query`, `timeline`, `summary` and `browse` do. No read fails (no busy or
 * locked error), and no read sees part of a poll: every poll a reader lists reconstructs whole,
 * with as many connections as the poll says it returned, whichever command asks.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatTimestamp } from '../../src/api/codec/timestamp.ts';
import type { PollRow } from '../../src/api/schema/resources.ts';
import { createHistoryReader, openDatabase } from '../../src/db/index.ts';
import { HistorySource } from '../../src/tui/data/history-source.ts';
import { childArgs } from './support/child-script.ts';
import { runCli } from './support/cli.ts';

/** How long the readers keep reading while the collector writes, ms. */
const READ_FOR_MS = 6_000;
const dir = mkdtempSync(join(tmpdir(), 'flightrec-concurrency-'));
const dbPath = join(dir, 'busy.db');
let writer: ChildProcess;
let writerErr = '';

/** Polls the writer has committed so far (as seen by a fresh read-only connection). */
function committed(): PollRow[] {
  const db = openDatabase(dbPath, { readonly: true });
  try {
    return createHistoryReader(db).polls({});
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  writer = spawn(process.execPath, [...(await childArgs('crash-child.ts')), dbPath, '0', 'run'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  writer.stderr!.on('data', (d: Buffer) => (writerErr += d.toString()));
  await new Promise<void>((resolve, reject) => {
    let out = '';
    writer.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('ready ')) resolve();
    });
    writer.on('exit', (code) => reject(new Error(`writer exited ${code}: ${writerErr}`)));
  });
  // wait until the first connection list is committed, so every reader has something to read
  for (let i = 0; i < 200 && !committed().some((p) => p.operation === 'ListKafkaConnections'); i++)
    await new Promise((r) => setTimeout(r, 50));
}, 60_000);

afterAll(() => {
  writer?.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const BUSY = /SQLITE_BUSY|SQLITE_LOCKED|database is locked|database table is locked|busy/i;

describe('reading while the collector writes at full speed', () => {
  it('query, timeline, summary, the browser source and the reader never fail and never see half a poll', async () => {
    const failures: string[] = [];
    const counts = { reader: 0, query: 0, timeline: 0, summary: 0, browse: 0, pollsSeen: 0 };
    const start = Date.now();
    const db = openDatabase(dbPath, { readonly: true });
    const reader = createHistoryReader(db);
    const source = new HistorySource(createHistoryReader(db), { database: dbPath });
    const before = committed().length;
    try {
      while (Date.now() - start < READ_FOR_MS) {
        // the store's reader, as every command uses it: each listed poll is complete
        const polls = reader.polls({});
        const lists = polls.filter((p) => p.operation === 'ListKafkaConnections' && p.outcome === 'ok');
        for (const p of lists.slice(-3)) {
          const answer = reader.reconstructAnswer(p.id).answer as { connections: unknown[] };
          if (BigInt(answer.connections.length) !== p.rowsReturned)
            failures.push(`reader: poll ${p.id} has ${answer.connections.length} of ${p.rowsReturned} rows`);
          const state = reader.stateAt('connections', p.startTime);
          if (state.poll?.id === p.id && BigInt(state.rows.length) !== p.rowsReturned)
            failures.push(`stateAt: poll ${p.id} gave ${state.rows.length} rows`);
        }
        counts.reader++;
        counts.pollsSeen = Math.max(counts.pollsSeen, polls.length);
        const last = lists.at(-1);
        if (last === undefined) continue;

        // `query connections --at T` of a committed poll: exactly its rows
        const q = await runCli([
          '--db',
          dbPath,
          '-o',
          'json',
          'query',
          'connections',
          '--at',
          formatTimestamp(last.startTime),
        ]);
        counts.query++;
        if (q.code !== 0 || BUSY.test(q.err)) failures.push(`query exited ${q.code}: ${q.err.slice(0, 300)}`);
        else {
          const doc = JSON.parse(q.out) as { pollId: string; rows: unknown[] };
          if (doc.pollId === String(last.id) && BigInt(doc.rows.length) !== last.rowsReturned)
            failures.push(`query: poll ${last.id} gave ${doc.rows.length} rows`);
        }
        const polled = await runCli([
          '--db',
          dbPath,
          '-o',
          'ndjson',
          'query',
          'polls',
          '--since',
          '2000-01-01T00:00:00Z',
          '--until',
          '2100-01-01T00:00:00Z',
        ]);
        if (polled.code !== 0 || BUSY.test(polled.err))
          failures.push(`query polls exited ${polled.code}: ${polled.err.slice(0, 300)}`);

        if (counts.timeline < 6) {
          const t = await runCli(['--db', dbPath, '-o', 'json', 'timeline']);
          counts.timeline++;
          if (t.code !== 0 || BUSY.test(t.err)) failures.push(`timeline exited ${t.code}: ${t.err.slice(0, 300)}`);
          else JSON.parse(t.out);
          const s = await runCli([
            '--db',
            dbPath,
            'summary',
            '--window',
            '1h',
            '--until',
            formatTimestamp(last.startTime),
          ]);
          counts.summary++;
          if (s.code !== 0 || BUSY.test(s.err)) failures.push(`summary exited ${s.code}: ${s.err.slice(0, 300)}`);
        }

        // the browser's data source: picks up new polls, shows whole states
        source.refresh();
        const at = source.instants().at(-1);
        if (at !== undefined) {
          const state = source.stateAt('connections', at);
          if (
            state.poll !== undefined &&
            BigInt(state.rows.length) !== state.poll.rowsReturned &&
            state.poll.fanoutCalls <= 1
          ) {
            failures.push(
              `browse: poll ${state.poll.id} shows ${state.rows.length} of ${state.poll.rowsReturned} rows`,
            );
          }
          source.overview(at);
          source.connectionChanges(at);
        }
        counts.browse++;
      }
    } catch (err) {
      failures.push(`a read threw: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      db.close();
    }
    expect(failures).toEqual([]);
    expect(writerErr).toBe('');
    expect(writer.exitCode, 'the writer was still running').toBeNull();
    const after = committed().length;
    expect(after, 'the collector kept writing while we read').toBeGreaterThan(before + 20);
    expect(counts.query).toBeGreaterThan(3);
    expect(counts.reader).toBeGreaterThan(3);
  }, 60_000);
});
