/** The staleness rule and the schedule interval inferred from the recorded rounds. */
import { describe, expect, it } from 'vitest';
import type { PollRow } from '../../src/api/schema/resources.ts';
import {
  freshnessOf,
  freshnessOfRecording,
  scheduleInterval,
  type FreshnessReader,
} from '../../src/report/freshness.ts';

const S = 1_000_000_000n;
let id = 0n;
const poll = (operation: string, scheduled: bigint, outcome = 'ok', target = ''): PollRow =>
  ({
    id: ++id,
    cluster: 'c',
    operation,
    target,
    scheduledTime: scheduled,
    startTime: scheduled + S / 10n,
    endTime: scheduled + S / 5n,
    outcome,
  }) as unknown as PollRow;
const reader = (polls: PollRow[]): FreshnessReader => ({
  polls: (q) =>
    polls.filter(
      (p) =>
        (q.operation === undefined || p.operation === q.operation) && (q.until === undefined || p.startTime <= q.until),
    ),
});

describe('freshness', () => {
  it('infers the interval as the median gap between scheduled rounds (targets and retries share a round)', () => {
    const polls = [0n, 30n, 30n, 60n, 90n, 200n, 210n].flatMap((t, i) => [
      poll('GetShadowLink', t * S, 'ok', 'a'),
      poll('GetShadowLink', t * S, i === 3 ? 'unavailable' : 'ok', 'b'),
    ]);
    expect(scheduleInterval(reader(polls), 'GetShadowLink', 300n * S, undefined)).toEqual({
      intervalNs: 30n * S,
      intervalFrom: 'recorded',
    });
  });

  it("falls back to the collector's default schedule with fewer than two rounds", () => {
    expect(scheduleInterval(reader([poll('GetUpgradeStatus', 0n)]), 'GetUpgradeStatus', S, undefined)).toEqual({
      intervalNs: 60n * S,
      intervalFrom: 'default',
    });
  });

  it('is stale past twice the interval of any operation behind the answer, and when nothing answered', () => {
    const polls = [0n, 10n, 20n].map((t) => poll('ListKafkaConnections', t * S));
    const r = reader(polls);
    const newest = polls[2]!;
    expect(freshnessOf(r, [newest], newest.startTime + 20n * S, undefined).stale).toBe(false);
    const stale = freshnessOf(r, [newest], newest.startTime + 20n * S + 1n, undefined);
    expect(stale).toMatchObject({ stale: true, observedAt: newest.startTime });
    expect(stale.operations[0]).toMatchObject({ operation: 'ListKafkaConnections', intervalNs: 10n * S, stale: true });
    expect(freshnessOf(r, [], S, undefined)).toMatchObject({ stale: true, observedAt: undefined, operations: [] });
  });

  it("for a whole recording, takes each operation's newest success at or before the instant", () => {
    const polls = [
      poll('ListKafkaConnections', 0n),
      poll('GetUpgradeStatus', 0n),
      poll('ListKafkaConnections', 10n * S),
      poll('GetUpgradeStatus', 60n * S, 'unavailable'),
      poll('ListKafkaConnections', 20n * S),
    ];
    polls.sort((a, b) => (a.startTime < b.startTime ? -1 : 1));
    const f = freshnessOfRecording(reader(polls), polls, 25n * S, undefined);
    expect(f.operations.map((o) => [o.operation, o.newest.startTime])).toEqual([
      ['ListKafkaConnections', 20n * S + S / 10n],
      ['GetUpgradeStatus', S / 10n],
    ]);
  });
});
