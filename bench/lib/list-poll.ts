/** The poll record of one successful, complete ListKafkaConnections call, as the benches write them. */
import type { ListKafkaConnectionsResponse } from '../../src/api/schema/connection.ts';
import type { PollRecord } from '../../src/db/poll-record.ts';

/** How the call went: when, how long, how big, under which cluster and round. */
export interface ListPollCall {
  readonly at: bigint;
  readonly durationNs: bigint;
  readonly bytes: number;
  readonly round: string;
  readonly cluster?: string;
  readonly pageSize?: number;
}

/** A successful ListKafkaConnections poll of `answer` (one call, coverage as the answer says). */
export function listPollRecord(answer: ListKafkaConnectionsResponse, call: ListPollCall): PollRecord {
  return {
    cluster: call.cluster ?? 'bench',
    operation: 'ListKafkaConnections',
    target: '',
    request: { filter: '', orderBy: '', pageSize: call.pageSize ?? 0 },
    round: call.round,
    attempt: 1,
    scheduledAt: call.at,
    startedAt: call.at,
    endedAt: call.at + call.durationNs,
    outcome: { ok: true, answer, bytes: call.bytes },
    coverage: { rowsReturned: answer.connections.length, totalSize: answer.totalSize, fanoutCalls: 1, slice: '' },
  };
}
