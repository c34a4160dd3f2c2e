import { describe, expect, it } from 'vitest';
import type { KafkaConnection } from '../../src/api/schema/connection.ts';
import { encodeAnswer } from '../../src/api/wire/answers.ts';
import { createHistoryReader, createHistoryWriter, HistoryQueryError, openDatabase } from '../../src/db/index.ts';
import { cloneConnection, generateConnectionPolls } from '../helpers/connection-answers.ts';
import { LIST_REQUEST, okRecord, tempDbPath } from './fixtures.ts';

const base = (connections = 6): KafkaConnection[] =>
  generateConnectionPolls({ connections, polls: 1, seed: 2 })[0]!.answer.connections;
const MIN = 60_000_000_000n;

describe('connections: edge cases stay exact', () => {
  // 6 rows read a sealed batch chunk by chunk; 130 read it through the batch's chunk directory
  it.each([6, 130])(
    'duplicate uids in one answer, identity changes under one uid, odd strings, times beyond int64 (%i rows)',
    (size) => {
      const db = openDatabase(tempDbPath());
      const writer = createHistoryWriter(db, { batchFrames: 2 });
      const rows = base(size);
      const answers = [0, 1, 2, 3, 4].map((v) => {
        const cs = rows.map(cloneConnection);
        cs[1] = {
          ...cloneConnection(cs[0]!),
          totalRequestStatistics: { ...cs[0]!.totalRequestStatistics, requestCount: BigInt(v) },
        }; // same uid twice
        cs[2]!.uid = `odd-\ud83d-${v > 2 ? 'x' : 'y'}`; // lone surrogate (the uid changes at v = 3)
        cs[2]!.clientId = 'client-\udfff';
        cs[2]!.source = { ipAddress: '::1\ud800', port: 1 };
        cs[3]!.nodeId = v % 2; // identity flips under the same uid
        cs[4]!.openTime = 253_402_300_799_999_999_999n; // 9999-12-31, beyond int64 nanoseconds
        cs[4]!.closeTime = -62_135_596_800_000_000_000n; // 0001-01-01
        cs[4]!.state = 'KAFKA_CONNECTION_STATE_FUTURE' as never; // unknown enum name, kept as text
        cs[5]!.idleDuration = 315_576_000_000_999_999_999n; // the largest duration
        cs[5]!.inFlightRequests.sampledInFlightRequests = [
          { apiKey: -1, inFlightDuration: -5n, $unknown: { extra: [1, 'two'] } },
        ];
        cs[5]!.apiVersions = { '007': 1, '-1': 2, '3': 4 };
        return { connections: v === 4 ? cs.slice(0, 3) : cs, totalSize: 2n ** 63n - 1n };
      });
      const ids = answers.map((a, i) =>
        writer.writePoll(okRecord('ListKafkaConnections', a, { at: BigInt(i) * MIN, request: LIST_REQUEST })),
      );
      const reader = createHistoryReader(db);
      ids.forEach((id, i) => {
        const got = reader.reconstructAnswer(id).answer;
        expect(got).toEqual(answers[i]);
        expect(encodeAnswer('ListKafkaConnections', got as never)).toBe(
          encodeAnswer('ListKafkaConnections', answers[i]!),
        );
      });
      const state = reader.stateAt('connections', 0n).rows as KafkaConnection[];
      expect(state.length).toBe(answers[0]!.connections.length - 1); // a uid listed twice is one connection
      expect(state[0]).toEqual(answers[0]!.connections[1]); // in the first position, with the later row's values
      const dupes = reader.entityHistory('connections', { uid: rows[0]!.uid });
      expect(dupes.length).toBe(2 * 5);
      expect(
        reader.entityHistory('connections', { uid: rows[3]!.uid }).map((s) => (s.row as KafkaConnection).nodeId),
      ).toEqual([0, 1, 0, 1]);
      writer.close();
    },
  );

  it('keeps clusters apart and asks which one when several are recorded', () => {
    const db = openDatabase(tempDbPath());
    const writer = createHistoryWriter(db);
    const [a, b] = [base(), base().slice(0, 2)];
    writer.writePoll(
      okRecord(
        'ListKafkaConnections',
        { connections: a, totalSize: 6n },
        { at: MIN, request: LIST_REQUEST, cluster: 'east' },
      ),
    );
    writer.writePoll(
      okRecord(
        'ListKafkaConnections',
        { connections: b, totalSize: 2n },
        { at: MIN, request: LIST_REQUEST, cluster: 'west' },
      ),
    );
    const reader = createHistoryReader(db);
    expect(reader.clusters()).toEqual(['east', 'west']);
    expect(reader.stateAt('connections', MIN, { cluster: 'east' }).rows).toEqual(a);
    expect(reader.stateAt('connections', MIN, { cluster: 'west' }).rows).toEqual(b);
    expect(() => reader.stateAt('connections', MIN)).toThrow(HistoryQueryError);
    expect(() => reader.stateAt('connections', MIN, { cluster: 'north' })).toThrow(/no cluster named "north"/);
    expect(reader.entityHistory('connections', { uid: a[0]!.uid }, { cluster: 'west' }).length).toBe(1);
    writer.close();
  });

  it('rows are read-only where they share parts', () => {
    const db = openDatabase(tempDbPath());
    const writer = createHistoryWriter(db);
    writer.writePoll(
      okRecord('ListKafkaConnections', { connections: base(), totalSize: 6n }, { at: MIN, request: LIST_REQUEST }),
    );
    const row = createHistoryReader(db).stateAt('connections', MIN).rows[0] as KafkaConnection;
    expect(() => {
      (row.source as { port: number }).port = 1;
    }).toThrow(TypeError);
    writer.close();
  });
});
