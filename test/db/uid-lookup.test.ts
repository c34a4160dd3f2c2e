/**
 * The ingest's one-query lookup of uids the writer does not remember (connections coming back
 * after a poll away, or a writer opened on an existing recording): lists longer than one query's
 * share, and uids that cannot travel in a JSON list to PostgreSQL (NUL, lone surrogates, a byte
 * order mark, U+FFFF) or that need escaping in one (quotes, backslashes), on both engines.
 */
import { expect, it } from 'vitest';
import { encodeAnswer, parseAnswer } from '../../src/api/wire/answers.ts';
import type { KafkaConnection, ListKafkaConnectionsResponse } from '../../src/api/schema/connection.ts';
import { createHistoryReader, createHistoryWriter, openDatabase } from '../../src/db/index.ts';
import { cloneConnection, generateConnectionPolls } from '../helpers/connection-answers.ts';
import { forEachEngine } from '../helpers/pg.ts';
import { LIST_REQUEST, okRecord } from './fixtures.ts';

const MINUTE = 60_000_000_000n;

/** Answers A, then B (A's connections all gone), then A again: A's uids must be looked up. */
function awayAndBack(base: readonly KafkaConnection[], uids: readonly string[]): ListKafkaConnectionsResponse[] {
  const a = base.slice(0, uids.length).map((c, i) => ({ ...cloneConnection(c), uid: uids[i]! }));
  const b = base.slice(uids.length, uids.length + 3).map(cloneConnection);
  const answer = (connections: KafkaConnection[]): ListKafkaConnectionsResponse => ({
    connections,
    totalSize: BigInt(connections.length),
  });
  return [answer(a), answer(b), answer(a.map(cloneConnection))];
}

/** Writes each answer with a writer (and a database handle) of its own: nothing remembered. */
function writeEach(path: string, answers: readonly ListKafkaConnectionsResponse[]): bigint[] {
  return answers.map((raw, i) => {
    const answer = parseAnswer('ListKafkaConnections', encodeAnswer('ListKafkaConnections', raw));
    const writer = createHistoryWriter(openDatabase(path), { batchFrames: 8 });
    try {
      const at = 1_700_000_000_000_000_000n + BigInt(i) * MINUTE;
      return writer.writePoll(okRecord('ListKafkaConnections', answer, { at, request: LIST_REQUEST }));
    } finally {
      writer.close(); // closes the database too
    }
  });
}

function check(
  path: string,
  ids: readonly bigint[],
  answers: readonly ListKafkaConnectionsResponse[],
  entities: number,
): void {
  const ro = openDatabase(path, { readonly: true });
  try {
    expect(ro.sqlite.prepare('SELECT count(*) FROM conn_entity').pluck().get()).toBe(entities);
    const reader = createHistoryReader(ro);
    ids.forEach((id, i) => {
      const got = reader.reconstructAnswer(id).answer as ListKafkaConnectionsResponse;
      expect(encodeAnswer('ListKafkaConnections', got)).toBe(encodeAnswer('ListKafkaConnections', answers[i]!));
    });
  } finally {
    ro.close();
  }
}

forEachEngine('ingest: stored uids looked up in one query', (engine) => {
  it('finds 4,100 returning connections (three queries of uids) and makes no new entity for them', async () => {
    const base = generateConnectionPolls({ connections: 4_200, polls: 1, seed: 5 })[0]!.answer.connections;
    const uids = base.slice(0, 4_100).map((c) => c.uid);
    const answers = awayAndBack(base, uids);
    const path = await engine.target();
    const ids = writeEach(path, answers);
    check(path, ids, answers, 4_103);
  });

  it('finds uids that cannot travel in a JSON list, or must be escaped in one', async () => {
    const base = generateConnectionPolls({ connections: 40, polls: 1, seed: 8 })[0]!.answer.connections;
    const uids = [
      'nul\u0000inside',
      '\uD800lone-high',
      'lone-low\uDC00',
      '\uFEFFbyte-order-mark',
      '\uFFFFnot-a-character',
      'quote"and\\backslash',
      '["a","list"]',
      '',
      'é中文🙂',
      'x'.repeat(20_000),
      ...base.slice(0, 5).map((c) => c.uid),
    ];
    const answers = awayAndBack(base, uids);
    const path = await engine.target();
    const ids = writeEach(path, answers);
    check(path, ids, answers, uids.length + 3);
  });
});
