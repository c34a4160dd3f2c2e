/** The poll record of one successful, complete ListKafkaConnections call, as the benches write them. */
import type { ListKafkaConnectionsResponse } from '../../src/api/schema/connection.ts';
import { createHistoryWriter, openDatabase } from '../../src/db/index.ts';
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

/**
 * Writes `polls` more answers of a world into the store at `target` (a file or URL) with a
 * writer of its own, closed at the end (as the store benches do for their growth figure); the
 * connection samples written.
 */
export function writeMorePolls(
  target: string,
  world: { next(): { at: bigint; answer: ListKafkaConnectionsResponse } },
  polls: number,
): number {
  const db = openDatabase(target);
  const writer = createHistoryWriter(db);
  let samples = 0;
  for (let i = 0; i < polls; i++) {
    const { at, answer } = world.next();
    samples += answer.connections.length;
    writer.writePoll(listPollRecord(answer, { at, durationNs: 50_000_000n, bytes: 0, round: `r${at}` }));
  }
  writer.close();
  db.close();
  return samples;
}
