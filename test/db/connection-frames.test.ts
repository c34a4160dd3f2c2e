/**
 * HistoryReader.connectionFrames, the lean connection read: for every successful poll, the same
 * rows in the same order as samples(), with each row's narrow version (the slow fields scans
 * read), idle duration and in-flight requests equal to the full row's; over sealed batches and the open one, churn, attribute
 * changes, closed connections, a fan-out round, failed polls, empty answers and values beyond 2^53.
 */
import { describe, expect, it } from 'vitest';
import type { KafkaConnection, ListKafkaConnectionsResponse } from '../../src/api/schema/connection.ts';
import { createHistoryReader, createHistoryWriter, openDatabase, type HistoryReader } from '../../src/db/index.ts';
import type { NarrowFrame as ConnectionFrame } from '../../src/db/connections/narrow-frames.ts';
import type { PollRecord } from '../../src/db/poll-record.ts';
import { cloneConnection, ConnectionWorld } from '../helpers/connection-answers.ts';
import { counterFields } from './counter-records.ts';
import { failedRecord, LIST_REQUEST, okRecord, tempDbPath } from './fixtures.ts';
import { sqliteOf } from '../helpers/sqlite-handle.ts';

const SEC = 1_000_000_000n;
const ALL = { since: 0n, until: 2n ** 62n };

/** A recording: polls of a churning world, a fan-out round, a failed poll, an empty answer, huge values. */
function records(): PollRecord[] {
  const world = new ConnectionWorld({
    connections: 40,
    churn: 0.08,
    seed: 5,
    nodes: 3,
    unknownFields: true,
    hugeCounters: true,
    shuffle: true,
  });
  const out: PollRecord[] = [];
  for (let r = 0; r < 23; r++) {
    const { at, answer } = world.next();
    const round = `round-${r}`;
    let rows = answer.connections;
    if (r === 3) {
      // idle and in-flight durations beyond 2^53, negative, with unknown fields on an in-flight request
      rows = rows.map(cloneConnection);
      rows[0]!.idleDuration = 2n ** 60n + 7n;
      rows[1]!.idleDuration = 315_576_000_000_999_999_999n;
      rows[2]!.inFlightRequests.sampledInFlightRequests = [
        { apiKey: 1, inFlightDuration: 2n ** 62n + 1n },
        { apiKey: -3, inFlightDuration: -5n, $unknown: { extra: [1, 'two'] } },
        { apiKey: 300, inFlightDuration: 9_007_199_254_740_993n },
      ];
      rows[3]!.inFlightRequests.sampledInFlightRequests = [
        { apiKey: -2, inFlightDuration: -7n },
        { apiKey: 0, inFlightDuration: 2n ** 47n + 3n },
      ];
      rows[4]!.inFlightRequests.sampledInFlightRequests = [
        { apiKey: 1, inFlightDuration: 5n },
        { apiKey: 2, inFlightDuration: 2n ** 60n },
        { apiKey: 3, inFlightDuration: 6n },
      ];
    }
    if (r === 7) {
      out.push(
        failedRecord(
          'ListKafkaConnections',
          { code: 'unavailable', kind: 'connect', httpStatus: 503, message: 'down' },
          { at, request: LIST_REQUEST, round },
        ),
      );
      continue;
    }
    if (r === 11) {
      out.push(
        okRecord('ListKafkaConnections', { connections: [], totalSize: 0n }, { at, request: LIST_REQUEST, round }),
      );
      continue;
    }
    if (r === 15) {
      // a truncated first call, then one call per half of the nodes
      const slices: [string, (c: KafkaConnection) => boolean, number][] = [
        ['', () => true, 15],
        ['node_id < 2', (c) => c.nodeId < 2, 1000],
        ['node_id >= 2', (c) => c.nodeId >= 2, 1000],
      ];
      slices.forEach(([slice, pick, limit], k) => {
        const matching = rows.filter(pick);
        const part: ListKafkaConnectionsResponse = {
          connections: matching.slice(0, limit),
          totalSize: BigInt(matching.length),
        };
        const coverage = {
          rowsReturned: part.connections.length,
          totalSize: part.totalSize,
          fanoutCalls: k + 1,
          slice,
        };
        out.push(
          okRecord('ListKafkaConnections', part, {
            at: at + BigInt(k) * SEC,
            request: { ...LIST_REQUEST, filter: slice },
            round,
            coverage,
          }),
        );
      });
      continue;
    }
    out.push(
      okRecord(
        'ListKafkaConnections',
        { connections: rows, totalSize: BigInt(rows.length) },
        { at, request: LIST_REQUEST, round },
      ),
    );
  }
  return out;
}

/** Row i's sampled in-flight requests of a lean frame, as bigints. */
function inFlightOf(f: ConnectionFrame, i: number): { apiKey: number; inFlightDuration: bigint }[] {
  const out: { apiKey: number; inFlightDuration: bigint }[] = [];
  for (let k = f.inFlightOffsets[i]!; k < f.inFlightOffsets[i + 1]!; k++) {
    out.push({ apiKey: f.inFlightApiKeys[k]!, inFlightDuration: BigInt(f.inFlightDurations[k]!) });
  }
  return out;
}

/** Checks every lean frame against the full rows samples() yields for its poll. */
function expectSameAsSamples(reader: HistoryReader, q: { since: bigint; until: bigint }): ConnectionFrame[] {
  const byPoll = new Map<bigint, KafkaConnection[]>();
  for (const s of reader.samples('connections', q)) {
    const rows = byPoll.get(s.poll.id) ?? [];
    rows.push(s.row as KafkaConnection);
    byPoll.set(s.poll.id, rows);
  }
  const frames = [...reader.connectionFrames(q)];
  const okPolls = reader.polls(q).filter((p) => p.outcome === 'ok' && p.operation === 'ListKafkaConnections');
  expect(frames.map((f) => f.poll)).toEqual(okPolls);
  for (const f of frames) {
    const rows = byPoll.get(f.poll.id) ?? [];
    expect(f.versions.length).toBe(rows.length);
    expect(f.idle.length).toBe(rows.length);
    expect(f.inFlightOffsets.length).toBe(rows.length + 1);
    expect(f.inFlightApiKeys.length).toBe(f.inFlightOffsets[rows.length]);
    expect(f.inFlightDurations.length).toBe(f.inFlightOffsets[rows.length]);
    rows.forEach((row, i) => {
      const { versionId, entityId, ...fields } = f.versions[i]!;
      expect(Number.isInteger(versionId) && Number.isInteger(entityId)).toBe(true);
      expect(fields).toStrictEqual(counterFields(row));
      expect(BigInt(f.idle[i]!)).toBe(row.idleDuration);
      expect(inFlightOf(f, i)).toEqual(
        row.inFlightRequests.sampledInFlightRequests.map((r) => ({
          apiKey: r.apiKey,
          inFlightDuration: r.inFlightDuration,
        })),
      );
    });
  }
  return frames;
}

describe('HistoryReader.connectionFrames', () => {
  it('yields the rows of samples(), poll by poll, with the same slow fields, idle durations and in-flight requests', () => {
    const db = openDatabase(tempDbPath());
    const writer = createHistoryWriter(db, { batchFrames: 4 });
    for (const r of records()) writer.writePoll(r);
    const reader = createHistoryReader(db);
    // sealed batches and an open one (its frames still carry head blobs)
    expect(
      (db.sqlite.prepare('SELECT count(*) FROM conn_frame WHERE head IS NOT NULL').pluck().get() as number) > 0,
    ).toBe(true);
    const frames = expectSameAsSamples(reader, ALL);
    expect(frames.some((f) => f.versions.length === 0)).toBe(true);
    expect(frames.some((f) => f.idle.some((v) => typeof v === 'bigint'))).toBe(true);
    expect(frames.some((f) => f.inFlightDurations.some((d) => typeof d === 'bigint'))).toBe(true);
    expect(frames.some((f) => f.poll.fanoutCalls > 1)).toBe(true);
    // a part of the range, read again by the same reader (cached versions and batch)
    const polls = reader.polls({});
    expectSameAsSamples(reader, { since: polls[5]!.startTime, until: polls[17]!.startTime });
    writer.close();
    // and everything sealed
    const sealed = openDatabase(sqliteOf(db).name, { readonly: true });
    expectSameAsSamples(createHistoryReader(sealed), ALL);
    sealed.close();
  });

  it('shares one frozen object per version, which changes when an attribute does', () => {
    const db = openDatabase(tempDbPath());
    const writer = createHistoryWriter(db, { batchFrames: 3 });
    const world = new ConnectionWorld({ connections: 12, churn: 0, seed: 9, nodes: 2 });
    const answers = [0, 1, 2, 3, 4, 5, 6].map(() => world.next());
    answers[4]!.answer.connections[0]!.state = 'KAFKA_CONNECTION_STATE_CLOSED';
    answers[4]!.answer.connections[0]!.closeTime = answers[4]!.at;
    answers.forEach(({ at, answer }) =>
      writer.writePoll(okRecord('ListKafkaConnections', answer, { at, request: LIST_REQUEST })),
    );
    const frames = [...createHistoryReader(db).connectionFrames(ALL)];
    const first = (f: ConnectionFrame) => f.versions.find((v) => v.uid === answers[0]!.answer.connections[0]!.uid)!;
    expect(first(frames[1]!)).toBe(first(frames[0]!));
    expect(first(frames[3]!)).toBe(first(frames[0]!));
    expect(first(frames[4]!)).not.toBe(first(frames[3]!));
    expect(first(frames[4]!).state).toBe('KAFKA_CONNECTION_STATE_CLOSED');
    expect(first(frames[4]!).entityId).toBe(first(frames[3]!).entityId);
    expect(Object.isFrozen(first(frames[0]!))).toBe(true);
    expect(() => {
      (first(frames[0]!) as { clientId: string }).clientId = 'x';
    }).toThrow(TypeError);
    writer.close();
  });

  it('reads the polls committed when it started, while a writer seals batches under it', () => {
    const path = tempDbPath();
    const writer = createHistoryWriter(openDatabase(path), { batchFrames: 3 });
    const world = new ConnectionWorld({ connections: 30, churn: 0.1, seed: 8 });
    const write = (): void => {
      const { at, answer } = world.next();
      writer.writePoll(okRecord('ListKafkaConnections', answer, { at, request: LIST_REQUEST }));
    };
    for (let i = 0; i < 20; i++) write();
    const rdb = openDatabase(path, { readonly: true });
    const it = createHistoryReader(rdb).connectionFrames(ALL)[Symbol.iterator]();
    const got = [it.next().value as ConnectionFrame];
    for (let i = 0; i < 10; i++) write();
    for (let f = it.next(); !f.done; f = it.next()) got.push(f.value);
    expect(got.length).toBe(20);
    const again = [...createHistoryReader(rdb).connectionFrames(ALL)].slice(0, 20);
    const lean = (f: ConnectionFrame) => [
      f.poll.id,
      f.versions.map((v) => v.uid),
      f.idle,
      [...f.inFlightOffsets],
      f.inFlightApiKeys,
      f.inFlightDurations,
    ];
    expect(got.map(lean)).toEqual(again.map(lean));
    rdb.close();
    writer.close();
  });

  it('reads one cluster, and nothing from an empty store', () => {
    const db = openDatabase(tempDbPath());
    expect([...createHistoryReader(db).connectionFrames(ALL)]).toEqual([]);
    const writer = createHistoryWriter(db);
    const world = new ConnectionWorld({ connections: 5, seed: 3 });
    for (let i = 0; i < 3; i++) {
      const { at, answer } = world.next();
      writer.writePoll(okRecord('ListKafkaConnections', answer, { at, request: LIST_REQUEST, cluster: 'east' }));
      writer.writePoll(
        okRecord(
          'ListKafkaConnections',
          { connections: answer.connections.slice(0, 2), totalSize: 2n },
          { at, request: LIST_REQUEST, cluster: 'west' },
        ),
      );
    }
    const reader = createHistoryReader(db);
    expect([...reader.connectionFrames({ ...ALL, cluster: 'west' })].map((f) => f.versions.length)).toEqual([2, 2, 2]);
    expect(() => [...reader.connectionFrames(ALL)]).toThrow(/several clusters/);
    writer.close();
  });
});
