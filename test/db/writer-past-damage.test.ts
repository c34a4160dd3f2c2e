/**
 * A damaged connection record or version list (a bad page) costs the reads of what it holds,
 * never the recording: a writer that starts on such a store (a restart, or the reload after any
 * failed write) stores every later poll, each read back exactly. Before, it read the latest
 * frames back to know the cluster's connections and threw at every later poll, which silenced
 * the cluster's connection history for good. A frame whose list does not decode ends no
 * connection: what it listed is unknown.
 */
import { expect, it } from 'vitest';
import { OPEN_LAST_POLL } from '../../src/db/connections/ingest.ts';
import { CorruptDataError } from '../../src/db/errors.ts';
import { createHistoryReader, createHistoryWriter, openDatabase, type FlightrecDb } from '../../src/db/index.ts';
import { generateConnectionPolls } from '../helpers/connection-answers.ts';
import { forEachEngine } from '../helpers/pg.ts';
import { LIST_REQUEST, okRecord } from './fixtures.ts';

const MIN = 60_000_000_000n;
const polls = generateConnectionPolls({ connections: 50, churn: 0.05, polls: 12, seed: 3 });

/** Damage done to a store (the ids of its polls, as written). */
const DAMAGE: Record<string, (db: FlightrecDb, ids: bigint[]) => void> = {
  "the last frame's version list": (db, ids) =>
    db.sqlite.prepare('UPDATE conn_frame SET versions = ? WHERE poll = ?').run(Buffer.from([7, 7, 7]), ids.at(-1)),
  "the frame before's version list": (db, ids) =>
    db.sqlite.prepare('UPDATE conn_frame SET versions = ? WHERE poll = ?').run(Buffer.from([7, 7, 7]), ids.at(-2)),
  'the newest version record': (db) =>
    db.sqlite
      .prepare('UPDATE conn_version SET packed = ? WHERE id = (SELECT max(id) FROM conn_version)')
      .run(Buffer.from([7])),
  'the newest connection record': (db) =>
    db.sqlite
      .prepare('UPDATE conn_entity SET packed = ? WHERE id = (SELECT max(id) FROM conn_entity)')
      .run(Buffer.from([7])),
};

forEachEngine('a writer on a store with a damaged connection record', (engine) => {
  for (const [what, damage] of Object.entries(DAMAGE)) {
    it(`stores every later poll: ${what}`, async () => {
      const db = openDatabase(await engine.target());
      const first = createHistoryWriter(db, { batchFrames: 4 });
      const write = (w: typeof first, i: number): bigint =>
        w.writePoll(
          okRecord('ListKafkaConnections', polls[i]!.answer, { at: BigInt(i + 1) * MIN, request: LIST_REQUEST }),
        );
      const ids = [0, 1, 2, 3, 4, 5].map((i) => write(first, i));
      damage(db, ids);
      const writer = createHistoryWriter(db, { batchFrames: 4 }); // a restart: it knows nothing yet
      for (let i = 6; i < 12; i++) ids.push(write(writer, i)); // seals a batch on the way
      const reader = createHistoryReader(db);
      for (let i = 6; i < 12; i++) {
        expect(reader.reconstructAnswer(ids[i]!).answer, `poll ${i + 1}`).toEqual(polls[i]!.answer);
      }
      writer.close();
    });
  }

  it('ends no connection for not being in a frame whose list does not decode', async () => {
    const db = openDatabase(await engine.target());
    const first = createHistoryWriter(db, { batchFrames: 4 });
    const answer = polls[0]!.answer;
    const ids = [0, 1].map((i) =>
      first.writePoll(okRecord('ListKafkaConnections', answer, { at: BigInt(i + 1) * MIN, request: LIST_REQUEST })),
    );
    DAMAGE["the last frame's version list"]!(db, ids);
    // the next round lists half the connections: the other half was in the damaged frame, but nothing says it ended then
    const writer = createHistoryWriter(db, { batchFrames: 4 });
    const half = { connections: answer.connections.slice(0, 25), totalSize: 25n };
    for (const i of [2, 3])
      writer.writePoll(okRecord('ListKafkaConnections', half, { at: BigInt(i + 1) * MIN, request: LIST_REQUEST }));
    const lastPolls = db.sqlite.prepare('SELECT last_poll FROM conn_entity').pluck().all().map(Number);
    expect(lastPolls).toEqual(Array(50).fill(OPEN_LAST_POLL));
    expect(() => createHistoryReader(db).reconstructAnswer(ids[1]!)).toThrow(CorruptDataError);
    writer.close();
  });
});
