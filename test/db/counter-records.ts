/**
 * A recording for the narrow counter read and the trends over it: a churning world with counters
 * at the edges of int64, a counter reset, a fan-out round, a failed poll and an empty answer.
 */
import type { KafkaConnection, ListKafkaConnectionsResponse } from '../../src/api/schema/connection.ts';
import type { PollRecord } from '../../src/db/poll-record.ts';
import { cloneConnection, ConnectionWorld } from '../helpers/connection-answers.ts';
import { failedRecord, LIST_REQUEST, okRecord } from './fixtures.ts';

const SEC = 1_000_000_000n;

/** The polls of the recording, in order. */
export function counterRecords(): PollRecord[] {
  const world = new ConnectionWorld({ connections: 40, churn: 0.08, seed: 6, nodes: 3, hugeCounters: true });
  const out: PollRecord[] = [];
  for (let r = 0; r < 23; r++) {
    const { at, answer } = world.next();
    const round = `round-${r}`;
    let rows = answer.connections;
    if (r === 9) {
      // counters that went down (a reset), one of them to zero, one past 2^53
      rows = rows.map(cloneConnection);
      rows[0]!.totalRequestStatistics.produceBytes = 3n;
      rows[1]!.totalRequestStatistics.produceBatchCount = 0n;
      rows[2]!.totalRequestStatistics.fetchBytes = 2n ** 53n + 1n;
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

/** The fields of a full row that a counter version holds, picked from it. */
export function counterFields(row: KafkaConnection): Record<string, unknown> {
  return {
    uid: row.uid,
    nodeId: row.nodeId,
    listenerName: row.listenerName,
    clientId: row.clientId,
    clientSoftwareName: row.clientSoftwareName,
    clientSoftwareVersion: row.clientSoftwareVersion,
    groupId: row.groupId,
    state: row.state,
    openTime: row.openTime,
    closeTime: row.closeTime,
    authenticationInfo: {
      mechanism: row.authenticationInfo.mechanism,
      state: row.authenticationInfo.state,
      userPrincipal: row.authenticationInfo.userPrincipal,
    },
    source: { ipAddress: row.source.ipAddress, port: row.source.port },
  };
}
