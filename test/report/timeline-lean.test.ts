/**
 * The timeline reads connections from the store's lean frames (HistoryReader.connectionFrames)
 * when it can: the result is the same as from full rows (samples), event for event and series
 * for series, over churn, attribute changes, duplicates, idle groups, stuck requests, failed
 * authentications, fan-out rounds and failed polls, for the whole recording and for a window.
 */
import { describe, expect, it } from 'vitest';
import type { KafkaConnection, ListKafkaConnectionsResponse } from '../../src/api/schema/connection.ts';
import { createHistoryReader, createHistoryWriter, openDatabase, type HistoryReader } from '../../src/db/index.ts';
import { buildTimeline, type TimelineSource } from '../../src/report/timeline/timeline.ts';
import { cloneConnection, ConnectionWorld } from '../helpers/connection-answers.ts';
import { failedRecord, LIST_REQUEST, okRecord, tempDbPath } from '../db/fixtures.ts';

const SEC = 1_000_000_000n;

/** The same reader without the lean read: the timeline falls back to full rows. */
function rowsOnly(reader: HistoryReader): TimelineSource {
  return {
    polls: (q) => reader.polls(q),
    samples: (resource, q) => reader.samples(resource, q),
    reconstructAnswer: (id) => reader.reconstructAnswer(id),
  };
}

function record(path: string): void {
  const db = openDatabase(path);
  const writer = createHistoryWriter(db, { batchFrames: 5 });
  const world = new ConnectionWorld({
    connections: 120,
    churn: 0.04,
    seed: 13,
    nodes: 4,
    shuffle: true,
    intervalNs: 30n * SEC,
  });
  for (let r = 0; r < 90; r++) {
    const { at, answer } = world.next();
    const round = `r${r}`;
    let rows = answer.connections;
    if (r % 20 === 7) rows = [...rows, cloneConnection(rows[0]!)]; // a uid listed twice
    if (r >= 20 && r < 32) {
      rows = rows.map((c, i) =>
        i % 5 === 0
          ? {
              ...cloneConnection(c),
              idleDuration: 400n * SEC,
              inFlightRequests: { hasMoreRequests: false, sampledInFlightRequests: [] },
            }
          : c,
      );
    }
    if (r >= 40 && r < 46) {
      rows = rows.map((c, i) =>
        i % 7 === 0
          ? {
              ...cloneConnection(c),
              inFlightRequests: {
                hasMoreRequests: true,
                sampledInFlightRequests: [{ apiKey: 3, inFlightDuration: 95n * SEC }],
              },
            }
          : c,
      );
    }
    if (r === 60) {
      for (let k = 0; k < 40; k++) {
        rows.push({
          ...cloneConnection(rows[k]!),
          uid: `failed-${k}`,
          openTime: at - (BigInt(k) * SEC) / 4n,
          authenticationInfo: {
            mechanism: 'AUTHENTICATION_MECHANISM_SASL_SCRAM',
            state: 'AUTHENTICATION_STATE_FAILURE',
            userPrincipal: '',
          },
        });
      }
    }
    if (r === 50) {
      writer.writePoll(
        failedRecord(
          'ListKafkaConnections',
          { code: 'unavailable', kind: 'connect', httpStatus: 503, message: 'down' },
          { at, request: LIST_REQUEST, round },
        ),
      );
      continue;
    }
    if (r % 10 === 3) {
      // a truncated answer completed per half of the nodes; one broker missing for a while
      const slices: [string, (c: KafkaConnection) => boolean, number][] = [
        ['', () => true, 50],
        ['node_id < 2', (c) => c.nodeId < 2, 1000],
        ['node_id >= 2', (c) => c.nodeId >= 2, 1000],
      ];
      slices.forEach(([slice, pick, limit], k) => {
        const matching = rows.filter(pick).filter((c) => r < 70 || c.nodeId !== 1);
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
        writer.writePoll(
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
    if (r >= 70) rows = rows.filter((c) => c.nodeId !== 1);
    writer.writePoll(
      okRecord(
        'ListKafkaConnections',
        { connections: rows, totalSize: BigInt(rows.length) },
        { at, request: LIST_REQUEST, round },
      ),
    );
  }
  writer.close();
}

describe('timeline over the lean connection read', () => {
  it('is the timeline of the full rows', () => {
    const path = tempDbPath();
    record(path);
    const db = openDatabase(path, { readonly: true });
    const reader = createHistoryReader(db);
    // the store's reader offers what the timeline asks for
    const lean: NonNullable<TimelineSource['connectionFrames']> = (q) => reader.connectionFrames(q);
    expect(lean).toBeTypeOf('function');
    const full = buildTimeline(reader as unknown as TimelineSource, {});
    expect(full).toEqual(buildTimeline(rowsOnly(reader), {}));
    const kinds = new Set(full.events.map((e) => e.kind));
    for (const kind of [
      'api.duplicate-uids',
      'connections.group-idle',
      'connections.stuck-requests',
      'connections.auth-failures',
      'connections.broker-empty',
    ]) {
      expect(kinds).toContain(kind);
    }
    expect(full.series.find((s) => s.name === 'connections.open')!.values.length).toBeGreaterThan(80);
    const window = { since: full.since + 20n * 30n * SEC, until: full.since + 60n * 30n * SEC };
    expect(buildTimeline(reader as unknown as TimelineSource, window)).toEqual(buildTimeline(rowsOnly(reader), window));
    db.close();
  });
});
