/**
 * A head frame that does not decode (a damaged page) costs its own poll and nothing else: the
 * batch still seals, every later poll of the cluster is stored, the damaged poll's read says what
 * is damaged, and `db check` lists it. Before, the seal threw at every later poll, so one bad page
 * stopped the cluster's connection history for good.
 */
import { expect, it } from 'vitest';
import { checkStore, createHistoryReader, createHistoryWriter, openDatabase } from '../../src/db/index.ts';
import { CorruptDataError } from '../../src/db/errors.ts';
import { generateConnectionPolls } from '../helpers/connection-answers.ts';
import { forEachEngine } from '../helpers/pg.ts';
import { LIST_REQUEST, okRecord } from './fixtures.ts';

const MIN = 60_000_000_000n;

forEachEngine('a damaged head frame', (engine) => {
  it('costs its own poll: the batch seals, later polls are stored, the read and db check name it', async () => {
    const db = openDatabase(await engine.target());
    const writer = createHistoryWriter(db, { batchFrames: 4 });
    const polls = generateConnectionPolls({ connections: 50, churn: 0.05, polls: 12, seed: 3 });
    const write = (i: number): bigint =>
      writer.writePoll(
        okRecord('ListKafkaConnections', polls[i]!.answer, { at: BigInt(i + 1) * MIN, request: LIST_REQUEST }),
      );
    const ids = [0, 1, 2, 3, 4, 5].map(write);
    // poll 5 opened the second batch: its head becomes one byte
    db.sqlite.prepare('UPDATE conn_frame SET head = ? WHERE poll = ?').run(Buffer.from([7]), ids[4]);
    for (let i = 6; i < 12; i++) ids.push(write(i)); // the 9th seals the second batch
    expect(Number(db.sqlite.prepare('SELECT count(*) FROM conn_batch WHERE sealed = 1').pluck().get())).toBe(2);
    const reader = createHistoryReader(db);
    ids.forEach((id, i) => {
      if (i === 4) expect(() => reader.reconstructAnswer(id)).toThrow(CorruptDataError);
      else expect(reader.reconstructAnswer(id).answer, `poll ${i + 1}`).toEqual(polls[i]!.answer);
    });
    expect(() => reader.reconstructAnswer(ids[4]!)).toThrow(/conn_frame, poll/);
    const check = checkStore(db);
    expect(check.damage.map((d) => [d.table, d.item])).toEqual([['conn_frame', `poll ${ids[4]}`]]);
    writer.close();
  });
});
