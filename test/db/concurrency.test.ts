import { describe, expect, it } from 'vitest';
import { createHistoryReader, createHistoryWriter, openDatabase } from '../../src/db/index.ts';
import { generateConnectionPolls } from '../helpers/connection-answers.ts';
import { LIST_REQUEST, okRecord, tempDbPath } from './fixtures.ts';

describe('a read-only reader next to a writer (WAL)', () => {
  it('sees committed polls only, each complete, while the writer keeps writing', () => {
    const path = tempDbPath();
    const wdb = openDatabase(path);
    const writer = createHistoryWriter(wdb, { batchFrames: 2 });
    const polls = generateConnectionPolls({ connections: 80, churn: 0.1, polls: 9, seed: 4 });
    const rdb = openDatabase(path, { readonly: true });
    const reader = createHistoryReader(rdb);
    polls.forEach((p, i) => {
      expect(reader.polls({}).length).toBe(i);
      // the reader's samples iterator, opened before the write, still yields only what was committed
      const it = reader.samples('connections', { since: 0n, until: 2n ** 62n })[Symbol.iterator]();
      const first = it.next();
      writer.writePoll(okRecord('ListKafkaConnections', p.answer, { at: p.at, request: LIST_REQUEST }));
      let n = first.done ? 0 : 1;
      while (!it.next().done) n++;
      expect(n).toBe(polls.slice(0, i).reduce((k, q) => k + q.answer.connections.length, 0));
      expect(reader.stateAt('connections', p.at).rows).toEqual(p.answer.connections);
    });
    writer.close();
    expect(reader.stateAt('connections', polls.at(-1)!.at).rows).toEqual(polls.at(-1)!.answer.connections);
    rdb.close();
  });
});
