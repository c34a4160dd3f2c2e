/**
 * HistoryReader.connectionCounters, the narrow read of counter trends: for every successful
 * poll, the rows of samples() in the same order, each with the slow fields trends read (the same
 * values as the full row's) and the cumulative totals asked for, exact (numbers only below 2^51);
 * over sealed batches and the open one, on both engines.
 */
import { expect, it } from 'vitest';
import type { KafkaConnection } from '../../src/api/schema/connection.ts';
import { createHistoryReader, createHistoryWriter, openDatabase, type HistoryReader } from '../../src/db/index.ts';
import { forEachEngine } from '../helpers/pg.ts';
import { counterFields, counterRecords } from './counter-records.ts';

const ALL = { since: 0n, until: 2n ** 62n };
const COUNTERS = ['requestCount', 'produceBytes', 'fetchBytes', 'produceBatchCount'] as const;

/** Checks every narrow frame against the full rows of samples(); returns how many values were bigints. */
function expectSameAsSamples(reader: HistoryReader, q: { since: bigint; until: bigint }): number {
  const byPoll = new Map<bigint, KafkaConnection[]>();
  for (const s of reader.samples('connections', q)) {
    const rows = byPoll.get(s.poll.id) ?? [];
    rows.push(s.row as KafkaConnection);
    byPoll.set(s.poll.id, rows);
  }
  const frames = [...reader.connectionCounters({ ...q, counters: COUNTERS })];
  const okPolls = reader.polls(q).filter((p) => p.outcome === 'ok' && p.operation === 'ListKafkaConnections');
  expect(frames.map((f) => f.poll)).toEqual(okPolls);
  let bigints = 0;
  for (const f of frames) {
    const rows = byPoll.get(f.poll.id) ?? [];
    expect(f.versions.length).toBe(rows.length);
    expect(f.totals.length).toBe(COUNTERS.length);
    rows.forEach((row, i) => {
      const { versionId, entityId, ...fields } = f.versions[i]!;
      expect(Number.isInteger(versionId) && Number.isInteger(entityId)).toBe(true);
      expect(fields).toStrictEqual(counterFields(row));
      expect(Object.isFrozen(f.versions[i])).toBe(true);
      COUNTERS.forEach((c, k) => {
        const v = f.totals[k]![i]!;
        expect(BigInt(v)).toBe(row.totalRequestStatistics[c]);
        if (typeof v === 'bigint') bigints++;
        else expect(Math.abs(v)).toBeLessThan(2 ** 51);
      });
    });
  }
  // one counter asked for: the same values
  const one = [...reader.connectionCounters({ ...q, counters: ['fetchBytes'] })];
  expect(one.map((f) => f.totals)).toEqual(frames.map((f) => [f.totals[2]]));
  return bigints;
}

forEachEngine('HistoryReader.connectionCounters', (engine) => {
  it('yields the rows of samples(), poll by poll, with their slow fields and exact totals', async () => {
    const path = await engine.target();
    const db = openDatabase(path);
    const writer = createHistoryWriter(db, { batchFrames: 4 });
    for (const r of counterRecords()) writer.writePoll(r);
    const reader = createHistoryReader(db);
    // sealed batches and an open one
    expect(expectSameAsSamples(reader, ALL)).toBeGreaterThan(0);
    const polls = reader.polls({});
    expectSameAsSamples(reader, { since: polls[5]!.startTime, until: polls[17]!.startTime });
    writer.close(); // seals the open batch and closes the database
    // everything sealed
    const sealed = openDatabase(path, { readonly: true });
    expectSameAsSamples(createHistoryReader(sealed), ALL);
    sealed.close();
  });

  it('reads nothing from an empty store', async () => {
    const db = openDatabase(await engine.target());
    expect([...createHistoryReader(db).connectionCounters({ ...ALL, counters: ['produceBytes'] })]).toEqual([]);
    db.close();
  });
});
