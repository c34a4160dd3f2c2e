/**
 * A ListKafkaConnections round that fans out (the first call truncated, then per broker, a
 * broker still truncated, then per shard of it) merges into one frame listing each connection
 * once; a uid repeated within one call stays repeated, for the duplicate-uid detector.
 */
import { describe, expect, it } from 'vitest';
import type { PollRow } from '../../src/api/schema/resources.ts';
import { mergeFanout } from '../../src/report/timeline/frames.ts';
import type { Frame } from '../../src/report/timeline/types.ts';

type Row = { readonly uid: string; readonly from: string };

let nextId = 1n;
/** One call of a round: its rows (by uid) and what the answer said. */
function call(slice: string, fanoutCalls: number, uids: readonly string[], totalSize: number): Frame<Row> {
  const poll = {
    id: nextId++,
    operation: 'ListKafkaConnections',
    fanoutCalls,
    coverage: uids.length < totalSize ? 'truncated' : 'complete',
    totalSize: BigInt(totalSize),
    rowsReturned: BigInt(uids.length),
    slice,
  } as unknown as PollRow;
  return { poll, time: 1_000n, rows: uids.map((uid) => ({ uid, from: slice || 'all' })) };
}

describe('mergeFanout', () => {
  it('lists each connection once when a truncated broker slice is completed per shard', () => {
    const round = [
      call('', 1, ['a', 'b', 'c'], 6),
      call('node_id = 0', 2, ['a', 'b'], 4), // truncated: its shards follow
      call('node_id = 0 AND shard_id = 0', 3, ['a', 'd'], 2),
      call('node_id = 0 AND shard_id = 1', 4, ['b', 'e'], 2),
      call('node_id = 1', 5, ['c', 'f'], 2),
    ];
    const [merged, ...rest] = [...mergeFanout(round)];
    expect(rest).toEqual([]);
    expect(merged!.rows.map((r) => r.uid).sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    expect(merged!.poll.coverage).toBe('complete');
    expect(merged!.poll.rowsReturned).toBe(6n);
  });

  it('keeps a uid that one call listed twice (the API contradicting itself)', () => {
    const round = [
      call('', 1, ['a', 'b'], 4),
      call('node_id = 0', 2, ['a', 'a', 'c'], 3),
      call('node_id = 1', 3, ['d'], 1),
    ];
    const [merged] = [...mergeFanout(round)];
    expect(merged!.rows.map((r) => r.uid).sort()).toEqual(['a', 'a', 'b', 'c', 'd'].sort());
  });

  it('adds the first call’s rows that no slice listed, and says truncated when some are still missing', () => {
    const round = [call('', 1, ['a', 'z'], 5), call('node_id = 0', 2, ['a', 'b'], 2), call('node_id = 1', 3, ['c'], 1)];
    const [merged] = [...mergeFanout(round)];
    expect(merged!.rows.map((r) => `${r.uid}:${r.from}`)).toEqual([
      'a:node_id = 0',
      'b:node_id = 0',
      'c:node_id = 1',
      'z:all',
    ]);
    expect(merged!.poll.coverage).toBe('truncated');
  });
});
