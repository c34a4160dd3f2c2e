import { expect, it } from 'vitest';
import type { KafkaConnection, ListKafkaConnectionsResponse } from '../../src/api/schema/connection.ts';
import { createHistoryReader, createHistoryWriter, openDatabase } from '../../src/db/index.ts';
import { cloneConnection, generateConnectionPolls, prng } from '../helpers/connection-answers.ts';
import { forEachEngine } from '../helpers/pg.ts';
import { LIST_REQUEST, okRecord } from './fixtures.ts';

const MIN = 60_000_000_000n;

/**
 * Answers that move rows about between polls: rows removed in runs longer than the writer's
 * look-ahead, rows inserted, blocks moved, uids listed twice, identities flipping under a uid.
 */
function churningAnswers(seed: number, polls: number): ListKafkaConnectionsResponse[] {
  const rnd = prng(seed);
  const pool = generateConnectionPolls({ connections: 80, polls: 1, seed })[0]!.answer.connections;
  let rows = pool.slice(0, 40).map(cloneConnection);
  let spare = 40;
  const out: ListKafkaConnectionsResponse[] = [];
  for (let p = 0; p < polls; p++) {
    const next = rows.map(cloneConnection);
    const op = Math.floor(rnd() * 6);
    const at = Math.floor(rnd() * next.length);
    if (op === 0) next.splice(at, 1 + Math.floor(rnd() * 6)); // a run of rows goes
    if (op === 1 && spare < pool.length) next.splice(at, 0, ...pool.slice(spare, (spare += 3)).map(cloneConnection)); // rows come
    if (op === 2) next.push(...next.splice(at, 5)); // a block moves to the end
    if (op === 3) next.splice(at, 0, cloneConnection(next[Math.floor(rnd() * next.length)]!)); // a uid listed twice
    if (op === 4) next[at]!.nodeId += 1; // a new identity under the same uid
    if (op === 5) next.reverse();
    for (const c of next) c.totalRequestStatistics.requestCount += 1n;
    rows = next.map((c) => ({ ...c, apiVersions: { ...c.apiVersions } }));
    out.push({ connections: next, totalSize: BigInt(next.length) });
  }
  return out;
}

/** Entities the writer must make: per (uid, identity), the most rows it had in any one answer. */
function expectedEntities(answers: ListKafkaConnectionsResponse[]): number {
  const most = new Map<string, number>();
  for (const a of answers) {
    const here = new Map<string, number>();
    for (const c of a.connections) {
      const key = JSON.stringify([
        c.uid,
        c.nodeId,
        c.shardId,
        c.listenerName,
        c.source.ipAddress,
        c.source.port,
        c.tlsInfo.enabled,
        String(c.openTime),
      ]);
      here.set(key, (here.get(key) ?? 0) + 1);
    }
    for (const [k, n] of here) most.set(k, Math.max(most.get(k) ?? 0, n));
  }
  return [...most.values()].reduce((a, b) => a + b, 0);
}

forEachEngine('connections keep their entities however the rows move', (engine) => {
  it.each([1, 2, 3, 4])('seed %i', async (seed) => {
    const path = await engine.target();
    let db = openDatabase(path);
    let writer = createHistoryWriter(db, { batchFrames: 2 });
    const answers = churningAnswers(seed, 30);
    const ids = answers.map((a, i) => {
      if (i === 15) {
        writer.close(); // a restart: the writer's memory comes from the database
        db = openDatabase(path);
        writer = createHistoryWriter(db, { batchFrames: 2 });
      }
      return writer.writePoll(okRecord('ListKafkaConnections', a, { at: BigInt(i) * MIN, request: LIST_REQUEST }));
    });
    const reader = createHistoryReader(db);
    ids.forEach((id, i) => expect(reader.reconstructAnswer(id).answer).toEqual(answers[i]));
    expect(db.sqlite.prepare('SELECT count(*) FROM conn_entity').pluck().get()).toBe(expectedEntities(answers));
    const frames = db.sqlite.prepare('SELECT dup_uids FROM conn_frame ORDER BY poll').pluck().all();
    // the flag says a uid was listed twice: never wrongly, and always when both rows are one connection
    answers.forEach((a, i) => {
      const uids = a.connections.map((c) => c.uid);
      const identities = a.connections.map((c) =>
        JSON.stringify([c.uid, c.nodeId, c.shardId, c.source, c.openTime.toString()]),
      );
      if (frames[i] === 1) expect(new Set(uids).size).toBeLessThan(uids.length);
      if (new Set(identities).size < identities.length) expect(frames[i]).toBe(1);
    });
    const uid = answers[0]!.connections[0]!.uid;
    const rows = answers.flatMap((a) => a.connections.filter((c: KafkaConnection) => c.uid === uid));
    expect(reader.entityHistory('connections', { uid }).length).toBe(rows.length);
    writer.close();
  });
});
