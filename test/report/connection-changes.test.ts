/**
 * One definition and one word for connection changes: on the same pair of polls, the browser's
 * connections view, `diff` and the timeline's connection tracker count the same new, closed and
 * vanished connections (and diff's added and removed are new, and vanished plus expired).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KafkaConnection } from '../../src/api/schema/connection.ts';
import { createHistoryReader, openDatabase, type FlightrecDb, type HistoryReader } from '../../src/db/index.ts';
import { compareConnections, connectionChangeCounts } from '../../src/report/connection-changes.ts';
import { diffStates } from '../../src/report/diff.ts';
import { connFrameOfStored, mergeConnFanout } from '../../src/report/timeline/conn-frame.ts';
import { ConnTracker } from '../../src/report/timeline/detectors/conn-tracker.ts';
import { DEFAULT_THRESHOLDS } from '../../src/report/timeline/thresholds.ts';
import { pollTime } from '../../src/report/timeline/types.ts';
import { HistorySource } from '../../src/tui/data/history-source.ts';
import { connectionsScreen } from '../../src/tui/screens/connections.ts';
import { initialState, topEntry } from '../../src/tui/state/app.ts';
import { demoDatabase } from '../tui/helpers/demo-db.ts';

const row = (c: KafkaConnection): KafkaConnection => c;

describe('connection changes', () => {
  it('are counted once per definition: new and closed overlap, vanished and expired are the removed', () => {
    const conn = (uid: string, state: string, requests = 1n) =>
      ({
        uid,
        state,
        totalRequestStatistics: { requestCount: requests, fetchBytes: 0n, produceBytes: 0n, produceBatchCount: 0n },
      }) as unknown as KafkaConnection;
    const before = [
      conn('a', 'KAFKA_CONNECTION_STATE_OPEN'),
      conn('b', 'KAFKA_CONNECTION_STATE_OPEN'),
      conn('c', 'KAFKA_CONNECTION_STATE_CLOSED'),
      conn('d', 'KAFKA_CONNECTION_STATE_OPEN'),
    ];
    const after = [
      conn('a', 'KAFKA_CONNECTION_STATE_OPEN', 2n),
      conn('b', 'KAFKA_CONNECTION_STATE_CLOSED'),
      conn('e', 'KAFKA_CONNECTION_STATE_OPEN'),
      conn('f', 'KAFKA_CONNECTION_STATE_CLOSED'),
    ].map(row);
    const c = compareConnections(before, after);
    expect(c).toEqual({
      new: ['e', 'f'],
      closed: ['b', 'f'],
      vanished: ['d'],
      expired: ['c'],
      moving: ['a'],
      idle: [],
    });
    expect(connectionChangeCounts(compareConnections(undefined, after))).toMatchObject({ new: 0, closed: 0 });
  });

  describe('agree between the browser, diff and the timeline on the same pair of polls', () => {
    let db: FlightrecDb;
    let reader: HistoryReader;
    beforeAll(async () => {
      db = openDatabase(await demoDatabase(), { readonly: true });
      reader = createHistoryReader(db);
    }, 120_000);
    afterAll(() => db?.close());

    /** Consecutive complete connection polls (rounds), by their first call's time. */
    const rounds = (): bigint[] => {
      const times = reader
        .polls({ operation: 'ListKafkaConnections' })
        .filter((p) => p.outcome === 'ok' && p.coverage === 'complete')
        .map(pollTime);
      return [...new Set(times)];
    };

    it('finds pairs with new, closed and vanished connections, and every view counts them alike', () => {
      const times = rounds();
      const seen = { new: 0, closed: 0, vanished: 0 };
      const source = new HistorySource(reader, { database: 'demo.db' });
      const tracker = new ConnTracker(DEFAULT_THRESHOLDS.connections);
      const frames = [
        ...mergeConnFanout(
          [...reader.connectionFrames({ since: times[0]!, until: times[times.length - 1]! })].map(connFrameOfStored),
        ),
      ];
      expect(frames.length).toBe(times.length);
      tracker.digest(frames[0]!);
      for (let i = 1; i < times.length; i++) {
        const [from, to] = [times[i - 1]!, times[i]!];
        const prev = reader.stateAt('connections', from).rows as KafkaConnection[];
        const cur = reader.stateAt('connections', to).rows as KafkaConnection[];
        const counts = connectionChangeCounts(compareConnections(prev, cur));
        // diff: added are the new, removed the vanished and the expired
        const d = diffStates(reader, { from, to, resources: ['connections'], only: ['state'] }).resources[0]!;
        expect(d.added.length, `diff added ${from}→${to}`).toBe(counts.new);
        expect(d.removed.length, `diff removed ${from}→${to}`).toBe(counts.vanished + counts.expired);
        expect(d.connectionChanges).toEqual(counts);
        // the timeline's tracker, fed the same polls
        const digest = tracker.digest(frames[i]!);
        expect([digest.opened.length, digest.closed.length, digest.vanished.length], `timeline ${from}→${to}`).toEqual([
          counts.new,
          counts.closed,
          counts.vanished,
        ]);
        // the browser's connections view
        expect(source.connectionChanges(to).counts).toEqual(counts);
        for (const k of ['new', 'closed', 'vanished'] as const) seen[k] += counts[k];
      }
      expect(seen.new).toBeGreaterThan(0);
      expect(seen.closed).toBeGreaterThan(0);
      expect(seen.vanished).toBeGreaterThan(0);
    });

    it('the connections view prints those counts with the same words', () => {
      const times = rounds();
      const source = new HistorySource(reader, { database: 'demo.db' });
      // the poll after the broker went down: its connections vanished
      const to = times.find(
        (t, i) =>
          i > 0 &&
          connectionChangeCounts(
            compareConnections(
              reader.stateAt('connections', times[i - 1]!).rows as KafkaConnection[],
              reader.stateAt('connections', t).rows as KafkaConnection[],
            ),
          ).vanished > 0,
      )!;
      const counts = source.connectionChanges(to).counts!;
      const entry = topEntry(initialState([to], { kind: 'connections' }));
      const text = connectionsScreen(source, entry, to)
        .panel.flat()
        .map((s) => s.text)
        .join('');
      expect(text).toContain(`+ ${counts.new} new  × ${counts.closed} closed  ⊘ ${counts.vanished} vanished`);
      const diffText = diffStates(reader, {
        from: times[times.indexOf(to) - 1]!,
        to,
        resources: ['connections'],
        only: ['state'],
      }).resources[0]!;
      expect(diffText.connectionChanges?.vanished).toBe(counts.vanished);
    });
  });
});
