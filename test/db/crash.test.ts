import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { ListKafkaConnectionsResponse } from '../../src/api/schema/connection.ts';
import { createHistoryReader, createHistoryWriter, openDatabase, PollWriteError } from '../../src/db/index.ts';
import { ConnectionWorld, generateConnectionPolls } from '../helpers/connection-answers.ts';
import { LIST_REQUEST, okRecord, tempDbPath } from './fixtures.ts';
import { sqliteOf } from '../helpers/sqlite-handle.ts';

const counts = (db: ReturnType<typeof openDatabase>): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const t of ['poll', 'conn_frame', 'conn_entity', 'conn_version', 'conn_chunk', 'conn_batch', 'str']) {
    out[t] = db.sqlite.prepare(`SELECT count(*) FROM ${t}`).pluck().get() as number;
  }
  return out;
};

describe('a crash mid-poll leaves no partial poll', () => {
  it('an error thrown inside the transaction rolls the whole poll back; later polls are complete', () => {
    const db = openDatabase(tempDbPath());
    const writer = createHistoryWriter(db, { batchFrames: 2 });
    const polls = generateConnectionPolls({ connections: 200, churn: 0.1, polls: 7, seed: 5 });
    const ids: bigint[] = [];
    polls
      .slice(0, 3)
      .forEach((p) =>
        ids.push(writer.writePoll(okRecord('ListKafkaConnections', p.answer, { at: p.at, request: LIST_REQUEST }))),
      );
    const before = counts(db);
    // row 150 is broken: entities, versions and strings of rows 0..149 are already written when it throws
    const broken: ListKafkaConnectionsResponse = {
      ...polls[3]!.answer,
      connections: [...polls[3]!.answer.connections],
    };
    (broken.connections as unknown[])[150] = null;
    const good = okRecord('ListKafkaConnections', polls[3]!.answer, { at: polls[3]!.at, request: LIST_REQUEST });
    const bad: typeof good = { ...good, outcome: { ok: true, answer: broken, bytes: 0 } };
    expect(() => writer.writePoll(bad)).toThrow(PollWriteError);
    expect(counts(db)).toEqual(before);
    polls
      .slice(3)
      .forEach((p) =>
        ids.push(writer.writePoll(okRecord('ListKafkaConnections', p.answer, { at: p.at, request: LIST_REQUEST }))),
      );
    expect(sqliteOf(db).pragma('integrity_check', { simple: true })).toBe('ok');
    expect(sqliteOf(db).pragma('foreign_key_check')).toEqual([]);
    const reader = createHistoryReader(db);
    ids.forEach((id, i) => expect(reader.reconstructAnswer(id).answer).toEqual(polls[i]!.answer));
    writer.close();
  });

  it('SIGKILL while writing: every committed poll is complete, the file is consistent', async () => {
    const path = tempDbPath();
    const script = fileURLToPath(new URL('./crash-writer.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', script, path], { stdio: ['ignore', 'pipe', 'pipe'] });
    let written = -1;
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        const lines = d.toString().trim().split('\n');
        written = Number(lines.at(-1));
        if (written >= 9) {
          // kill at a random-ish point inside the next write
          setTimeout(() => child.kill('SIGKILL'), 7);
        }
      });
      child.on('exit', () => resolve());
      child.on('error', reject);
    });
    expect(stderr).toBe('');
    expect(written).toBeGreaterThanOrEqual(9);
    const db = openDatabase(path);
    expect(sqliteOf(db).pragma('integrity_check', { simple: true })).toBe('ok');
    expect(sqliteOf(db).pragma('foreign_key_check')).toEqual([]);
    const reader = createHistoryReader(db);
    const polls = reader.polls({});
    expect(polls.length).toBeGreaterThanOrEqual(written + 1);
    const world = new ConnectionWorld({ connections: 400, churn: 0.05, seed: 77 });
    for (const p of polls) {
      const expected = world.next().answer;
      expect(reader.reconstructAnswer(p.id).answer).toEqual(expected);
    }
    // and the store carries on
    const writer = createHistoryWriter(db, { batchFrames: 3 });
    const next = world.next();
    const id = writer.writePoll(okRecord('ListKafkaConnections', next.answer, { at: next.at, request: LIST_REQUEST }));
    expect(reader.reconstructAnswer(id).answer).toEqual(next.answer);
    writer.close();
  }, 60_000);
});
