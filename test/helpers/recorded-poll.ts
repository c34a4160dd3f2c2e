/**
 * A successful poll as a memory source holds it (src/report/timeline/memory-source.ts): the poll
 * row of cluster `c` at one instant, and the answer decoded as the store would give it back.
 */
import type { OperationName } from '../../src/api/schema/operations.ts';
import type { PollRow } from '../../src/api/schema/resources.ts';
import { decodeAnswer } from '../../src/api/wire/answers.ts';
import type { RecordedPoll } from '../../src/report/timeline/memory-source.ts';

let nextId = 0n;

/** An ok poll of `op` started, scheduled and ended at `at`, with the next id of this process. */
export function okPoll(op: OperationName, at: bigint, answer: unknown, target = ''): RecordedPoll {
  nextId += 1n;
  const row: PollRow = {
    id: nextId,
    cluster: 'c',
    operation: op,
    target,
    scheduledTime: at,
    startTime: at,
    endTime: at,
    duration: 0n,
    outcome: 'ok',
    httpStatus: 200,
    message: '',
    bytes: 0n,
    rowsReturned: 0n,
    totalSize: 0n,
    fanoutCalls: 1,
    coverage: 'complete',
  };
  return { poll: row, answer: decodeAnswer(op, answer) };
}
