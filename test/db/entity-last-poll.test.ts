/**
 * conn_entity.last_poll: OPEN_LAST_POLL while the cluster's latest round lists the connection,
 * the last poll that listed it once a whole round does not (written as the round after begins),
 * open again as soon as a frame lists it again (so that the last round a writer records, or one
 * after a round that lost a slice, keeps its samples in the connection's history); the frames of one round (a fan-out's slices) never end each
 * other's connections; and a store written by the older rule (last_poll set at each batch seal)
 * adopted when a writer opens it.
 */
import { expect, it } from 'vitest';
import type { KafkaConnection, ListKafkaConnectionsResponse } from '../../src/api/schema/connection.ts';
import { OPEN_LAST_POLL } from '../../src/db/connections/ingest.ts';
import { uidMatch, type UidMatch } from '../../src/db/connections/uid-match.ts';
import { createHistoryReader, createHistoryWriter, openDatabase, type FlightrecDb } from '../../src/db/index.ts';
import { cloneConnection, generateConnectionPolls } from '../helpers/connection-answers.ts';
import { forEachEngine } from '../helpers/pg.ts';
import { LIST_REQUEST, okRecord } from './fixtures.ts';

const MIN = 60_000_000_000n;

/** Five connections, A to E, and answers listing the ones named (counters moving on each time). */
function script(): { pool: KafkaConnection[]; answer: (names: string) => ListKafkaConnectionsResponse } {
  const pool = generateConnectionPolls({ connections: 5, polls: 1, seed: 7 })[0]!.answer.connections;
  let tick = 0n;
  const answer = (names: string): ListKafkaConnectionsResponse => {
    tick += 1n;
    const connections = [...names].map((n) => {
      const c = cloneConnection(pool['ABCDE'.indexOf(n)]!);
      c.totalRequestStatistics.requestCount += tick;
      return c;
    });
    return { connections, totalSize: BigInt(connections.length) };
  };
  return { pool, answer };
}

/** How this store finds a connection's entity by uid (a column on SQLite, the packed record on PostgreSQL). */
function uidMatchOf(db: FlightrecDb): UidMatch {
  return uidMatch(db.engine.connectionLayout === 'typed-columns');
}

/** The last_poll of a connection's entity, by its uid. */
function lastPollByUid(db: FlightrecDb): { get(uid: string): number | undefined } {
  const m = uidMatchOf(db);
  const q = db.sqlite.prepare<unknown[], number>(`SELECT last_poll FROM conn_entity WHERE ${m.where}`).pluck();
  return { get: (uid) => q.get(...m.params(uid)) };
}

function lastPolls(db: FlightrecDb, pool: KafkaConnection[]): Record<string, number> {
  const q = lastPollByUid(db);
  return Object.fromEntries([...'ABCDE'].map((n, i) => [n, Number(q.get(pool[i]!.uid))]));
}

/**
 * A store as the older rule left it. Batch 1: polls 1-4 (sealed as poll 5 is written); batch 2,
 * still open: polls 5 and 6. B ends in batch 1 (last listed at poll 2), D in batch 2 (at poll 5),
 * E comes at poll 5. The seal of batch 1 wrote each connection's last poll in it; E, first
 * written in the open batch, still has its first poll. The writer is left unclosed: its open
 * batch keeps its heads.
 */
function storeOfOlderRule(db: FlightrecDb): {
  db: FlightrecDb;
  pool: KafkaConnection[];
  answer: (names: string) => ListKafkaConnectionsResponse;
  polls: number[];
} {
  const old = createHistoryWriter(db, { batchFrames: 4 });
  const { pool, answer } = script();
  const lists = ['ABD', 'ABD', 'AD', 'AD', 'ADE', 'AE'];
  const polls = lists.map((names, i) =>
    Number(
      old.writePoll(
        okRecord('ListKafkaConnections', answer(names), { at: BigInt(i + 1) * MIN, request: LIST_REQUEST }),
      ),
    ),
  );
  const byUid = uidMatchOf(db);
  const set = db.sqlite.prepare(`UPDATE conn_entity SET last_poll = ? WHERE ${byUid.where}`);
  for (const [name, poll] of [
    ['A', polls[3]!],
    ['B', polls[1]!],
    ['D', polls[3]!],
    ['E', polls[4]!],
  ] as const) {
    set.run(poll, ...byUid.params(pool['ABCDE'.indexOf(name)]!.uid));
  }
  return { db, pool, answer, polls };
}

/**
 * Writes poll 7 (A and E) to a store of the older rule with a new writer, and checks the last
 * polls it adopted: A and E open, B ended at poll 2, D at poll 5.
 */
function writeSeventhAndExpectAdopted(
  writer: ReturnType<typeof createHistoryWriter>,
  db: FlightrecDb,
  pool: KafkaConnection[],
  answer: (names: string) => ListKafkaConnectionsResponse,
  polls: number[],
): void {
  polls.push(
    Number(writer.writePoll(okRecord('ListKafkaConnections', answer('AE'), { at: 7n * MIN, request: LIST_REQUEST }))),
  );
  const got = lastPolls(db, pool);
  expect({ A: got.A, B: got.B, D: got.D, E: got.E }).toEqual({
    A: OPEN_LAST_POLL,
    B: polls[1],
    D: polls[4],
    E: OPEN_LAST_POLL,
  });
}

forEachEngine('conn_entity.last_poll', (engine) => {
  it('is open while listed, the last poll that listed it once gone, and open again when it comes back', async () => {
    const path = await engine.target();
    let db = openDatabase(path);
    let writer = createHistoryWriter(db, { batchFrames: 2 });
    const { pool, answer } = script();
    const lists = ['ABCDE', 'ABCE', 'ABCE', 'ABCDE', 'AC', 'AC'];
    const polls: number[] = [];
    lists.forEach((names, i) => {
      if (i === 3) {
        // a restart before D comes back: the writer's memory of the last frame comes from the database
        writer.close();
        db = openDatabase(path);
        writer = createHistoryWriter(db, { batchFrames: 2 });
      }
      polls.push(
        Number(
          writer.writePoll(
            okRecord('ListKafkaConnections', answer(names), { at: BigInt(i + 1) * MIN, request: LIST_REQUEST }),
          ),
        ),
      );
      // D's round without it (poll 2) is closed when poll 3's begins
      if (i === 1) expect(lastPolls(db, pool).D).toBe(OPEN_LAST_POLL);
      if (i === 2) expect(lastPolls(db, pool).D).toBe(polls[0]);
    });
    expect(lastPolls(db, pool)).toEqual({
      A: OPEN_LAST_POLL,
      B: polls[3],
      C: OPEN_LAST_POLL,
      D: polls[3],
      E: polls[3],
    });
    // one entity per connection, D's history with both of its stretches and nothing after
    expect(Number(db.sqlite.prepare('SELECT count(*) FROM conn_entity').pluck().get())).toBe(5);
    const reader = createHistoryReader(db);
    expect(reader.entityHistory('connections', { uid: pool[3]!.uid }).map((s) => Number(s.poll.id))).toEqual([
      polls[0],
      polls[3],
    ]);
    writer.close();
  });

  it('adopts a store whose last_poll was set at each batch seal', async () => {
    const { db, pool, answer, polls } = storeOfOlderRule(openDatabase(await engine.target()));
    // a new writer on it, knowing nothing (the older one is left unclosed: its open batch keeps its heads)
    const writer = createHistoryWriter(db, { batchFrames: 4 });
    writeSeventhAndExpectAdopted(writer, db, pool, answer, polls);
    // D's history reaches poll 5, which only the open batch's heads held
    const reader = createHistoryReader(db);
    expect(reader.entityHistory('connections', { uid: pool[3]!.uid }).map((s) => Number(s.poll.id))).toEqual(
      polls.slice(0, 5),
    );
    writer.close();
  });

  it('adopts a store whose open batch has a head it cannot read, without refusing the poll', async () => {
    const { db, pool, answer, polls } = storeOfOlderRule(openDatabase(await engine.target()));
    // the open batch's first head: one byte, not a head
    db.sqlite.prepare('UPDATE conn_frame SET head = ? WHERE poll = ?').run(Buffer.from([7]), polls[4]);
    const writer = createHistoryWriter(db, { batchFrames: 4, sealOnClose: false });
    // the head held D's samples, not its listing: poll 5's frame still lists it
    writeSeventhAndExpectAdopted(writer, db, pool, answer, polls);
    writer.close();
  });

  it('lets the frames of one round (a fan-out over slices) list different connections', async () => {
    const path = await engine.target();
    const db = openDatabase(path);
    const writer = createHistoryWriter(db, { batchFrames: 3 });
    const { pool, answer } = script();
    // three rounds of two slices each: D missing from the second round, back in the third
    const rounds = [
      ['AB', 'CDE'],
      ['AB', 'CE'],
      ['AB', 'CDE'],
    ];
    const polls: number[] = [];
    let at = 0n;
    rounds.forEach((slices, r) =>
      slices.forEach((names) => {
        at += MIN;
        const record = okRecord('ListKafkaConnections', answer(names), {
          at,
          request: LIST_REQUEST,
          round: `round-${r}`,
        });
        polls.push(Number(writer.writePoll(record)));
        // no connection of a round's first slice ends because its second slice does not list it
        const got = lastPolls(db, pool);
        const others = [got.A, got.B, got.C, got.E].filter((v) => !Number.isNaN(v)); // C and E: once written
        expect(others).toEqual(Array(polls.length === 1 ? 2 : 4).fill(OPEN_LAST_POLL));
        // D ends with the second round, when the third begins (its last listing: the first round's second slice),
        // and is open again when the fourth would begin
        if (polls.length === 5) expect(got.D).toBe(polls[1]);
      }),
    );
    writer.writePoll(
      okRecord('ListKafkaConnections', answer('AB'), { at: at + MIN, request: LIST_REQUEST, round: 'round-3' }),
    );
    expect(lastPolls(db, pool).D).toBe(OPEN_LAST_POLL);
    // and a writer that starts between two slices of a round carries on with it
    writer.close();
    const reopened = openDatabase(path);
    const again = createHistoryWriter(reopened, { batchFrames: 3 });
    again.writePoll(
      okRecord('ListKafkaConnections', answer('CDE'), { at: at + 2n * MIN, request: LIST_REQUEST, round: 'round-3' }),
    );
    again.writePoll(
      okRecord('ListKafkaConnections', answer('AB'), { at: at + 3n * MIN, request: LIST_REQUEST, round: 'round-4' }),
    );
    expect(Object.values(lastPolls(reopened, pool))).toEqual(Array(5).fill(OPEN_LAST_POLL));
    again.close();
  });

  it('opens a connection again with the frame that lists it: the last round recorded keeps its samples', async () => {
    const path = await engine.target();
    const db = openDatabase(path);
    const writer = createHistoryWriter(db, { batchFrames: 2 });
    const { pool, answer } = script();
    // D missing from the second round (gone, or in a slice that failed), back in the third, the last
    const polls = ['ABCDE', 'ABCE', 'ABCDE'].map((names, i) =>
      Number(
        writer.writePoll(
          okRecord('ListKafkaConnections', answer(names), { at: BigInt(i + 1) * MIN, request: LIST_REQUEST }),
        ),
      ),
    );
    expect(lastPolls(db, pool).D).toBe(OPEN_LAST_POLL);
    writer.close(); // seals the batch of the last frame
    const reader = createHistoryReader(openDatabase(path));
    expect(reader.entityHistory('connections', { uid: pool[3]!.uid }).map((s) => Number(s.poll.id))).toEqual([
      polls[0],
      polls[2],
    ]);
  });

  it('writes one end for a connection a round lost and the next round lists at once', async () => {
    const db = openDatabase(await engine.target());
    const writer = createHistoryWriter(db, { batchFrames: 8 });
    const { pool, answer } = script();
    const ends: number[] = [];
    const count = lastPollByUid(db);
    // two slices a round; the second round's second slice failed (no frame): C, D and E unlisted
    const rounds = [['AB', 'CDE'], ['AB'], ['CDE', 'AB']];
    let at = 0n;
    rounds.forEach((slices, r) =>
      slices.forEach((names) => {
        at += MIN;
        writer.writePoll(
          okRecord('ListKafkaConnections', answer(names), { at, request: LIST_REQUEST, round: `round-${r}` }),
        );
        ends.push(Number(count.get(pool[3]!.uid)));
      }),
    );
    // D (first written by the first round's second slice) is never taken for ended: the third
    // round's first slice lists it as the round begins
    expect(ends.slice(1)).toEqual(Array(4).fill(OPEN_LAST_POLL));
    writer.close();
  });
});
