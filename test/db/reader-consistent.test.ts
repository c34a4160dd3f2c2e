/**
 * HistoryReader.consistent: every read of its function in one read transaction, so one snapshot
 * of the store (a poll written meanwhile by a collector is not half seen), on both engines; and
 * the timeline builds in one. On PostgreSQL it is also the difference between one BEGIN and
 * COMMIT for a timeline and one for each of its hundreds of reads.
 */
import { expect, it } from 'vitest';
import type { ListKafkaConnectionsResponse } from '../../src/api/schema/connection.ts';
import { createHistoryReader, createHistoryWriter, openDatabase } from '../../src/db/index.ts';
import { buildTimeline, type TimelineSource } from '../../src/report/timeline/timeline.ts';
import { forEachEngine } from '../helpers/pg.ts';
import { LIST_REQUEST, okRecord } from './fixtures.ts';

const T0 = 1_767_225_600_000_000_000n; // 2026-01-01T00:00:00Z
const EMPTY: ListKafkaConnectionsResponse = { connections: [], totalSize: 0n };
const poll = (i: number) =>
  okRecord('ListKafkaConnections', EMPTY, {
    at: T0 + BigInt(i) * 30_000_000_000n,
    request: LIST_REQUEST,
    cluster: 'c1',
  });

forEachEngine(
  'a reader’s consistent reads',
  (engine) => {
    it('see one snapshot: a poll written meanwhile by another connection appears only after', async () => {
      const target = await engine.target();
      const wdb = openDatabase(target);
      const writer = createHistoryWriter(wdb);
      writer.writePoll(poll(0));
      writer.writePoll(poll(1));
      const rdb = openDatabase(target, { readonly: true });
      const reader = createHistoryReader(rdb);
      try {
        const seen = reader.consistent(() => {
          const before = reader.polls({ cluster: 'c1' }).length;
          writer.writePoll(poll(2));
          const after = reader.polls({ cluster: 'c1' }).length;
          return [before, after];
        });
        expect(seen).toEqual([2, 2]);
        expect(reader.polls({ cluster: 'c1' })).toHaveLength(3);
        // nested: the inner call runs in the outer snapshot; what the function throws is passed on as it is
        expect(reader.consistent(() => reader.consistent(() => reader.polls({}).length))).toBe(3);
        expect(() =>
          reader.consistent(() => {
            throw new TypeError('not about the data');
          }),
        ).toThrow(TypeError);
        expect(reader.polls({})).toHaveLength(3);
      } finally {
        writer.close();
        wdb.close();
        rdb.close();
      }
    });
  },
  { onPglite: false },
);

it('buildTimeline reads through the source’s consistent when it has one', () => {
  let calls = 0;
  const source: TimelineSource = {
    polls: () => [],
    samples: () => [],
    consistent: <T>(fn: () => T): T => {
      calls++;
      return fn();
    },
  };
  expect(buildTimeline(source).events).toEqual([]);
  expect(calls).toBe(1);
});
