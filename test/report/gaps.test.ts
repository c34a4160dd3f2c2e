/** Collection gaps computed in report from the poll times the reader supplies. */
import { describe, expect, it } from 'vitest';
import type { PollRow } from '../../src/api/schema/resources.ts';
import { findGaps, pollGaps, type PollTime } from '../../src/report/gaps.ts';

const S = 1_000_000_000n;
const MIN = 60n * S;
const ok = (m: number): PollTime => ({ startTime: BigInt(m) * MIN, ok: true });
const failed = (m: number): PollTime => ({ startTime: BigInt(m) * MIN, ok: false });
const window = (from: number, to: number): { since: bigint; until: bigint; expectedIntervalNs: bigint } => ({
  since: BigInt(from) * MIN,
  until: BigInt(to) * MIN,
  expectedIntervalNs: MIN,
});

describe('findGaps', () => {
  it.each([
    { name: 'regular polls leave no gap', polls: [ok(0), ok(1), ok(2), ok(3)], from: 0, to: 3, gaps: [] },
    {
      name: 'exactly 1.5 intervals is not a gap',
      polls: [ok(0), { startTime: 90n * S, ok: true }],
      from: 0,
      to: 1,
      gaps: [],
    },
    {
      name: 'a stretch without polls is a no-poll gap',
      polls: [ok(0), ok(1), ok(5), ok(6)],
      from: 0,
      to: 6,
      gaps: [[1, 5, 'no-poll']],
    },
    {
      name: 'failed polls in the stretch make it failed',
      polls: [ok(0), failed(1), failed(2), ok(3)],
      from: 0,
      to: 3,
      gaps: [[0, 3, 'failed']],
    },
    {
      name: 'a success ends the failed stretch',
      polls: [ok(0), failed(2), ok(3), ok(7)],
      from: 0,
      to: 7,
      gaps: [
        [0, 3, 'failed'],
        [3, 7, 'no-poll'],
      ],
    },
    {
      name: 'the window start and end count',
      polls: [ok(3)],
      from: 0,
      to: 9,
      gaps: [
        [0, 3, 'no-poll'],
        [3, 9, 'no-poll'],
      ],
    },
    { name: 'no poll at all: the whole window', polls: [], from: 0, to: 10, gaps: [[0, 10, 'no-poll']] },
    {
      name: 'only failures: the whole window, failed',
      polls: [failed(2), failed(4)],
      from: 0,
      to: 10,
      gaps: [[0, 10, 'failed']],
    },
  ] as const)('$name', ({ polls, from, to, gaps }) => {
    const expected = gaps.map(([a, b, reason]) => ({ from: BigInt(a) * MIN, to: BigInt(b) * MIN, reason }));
    expect(findGaps(polls, window(from, to))).toEqual(expected);
  });
});

describe('pollGaps', () => {
  type Row = Pick<PollRow, 'startTime' | 'outcome' | 'target'>;
  const row = (m: number, outcome: string, target: string): Row => ({ startTime: BigInt(m) * MIN, outcome, target });

  it('reads one operation of a cluster from the poll log, by target when given', () => {
    const asked: unknown[] = [];
    const rows = [
      row(0, 'ok', 'a'),
      row(0, 'ok', 'b'),
      row(1, 'ok', 'a'),
      row(2, 'unavailable', 'b'),
      row(4, 'ok', 'a'),
      row(4, 'ok', 'b'),
    ];
    const source = {
      polls: (q: unknown): Row[] => {
        asked.push(q);
        return rows;
      },
    };
    const q = { cluster: 'c', operation: 'GetShadowLink' as const, ...window(0, 4) };
    expect(pollGaps(source, { ...q, target: 'a' })).toEqual([{ from: 1n * MIN, to: 4n * MIN, reason: 'no-poll' }]);
    expect(pollGaps(source, { ...q, target: 'b' })).toEqual([{ from: 0n, to: 4n * MIN, reason: 'failed' }]);
    // every target together: some target succeeded often enough
    expect(pollGaps(source, q)).toEqual([{ from: 1n * MIN, to: 4n * MIN, reason: 'failed' }]);
    expect(asked[0]).toEqual({ cluster: 'c', operation: 'GetShadowLink', since: 0n, until: 4n * MIN });
  });
});
