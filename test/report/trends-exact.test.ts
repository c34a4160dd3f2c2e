/**
 * Counter trends stay exact beyond 2^51 and 2^53: the tally keeps numbers while they are exact
 * and bigints beyond, whichever form the frames hand it (the store's narrow read gives numbers
 * below 2^51 and bigints beyond; full rows give bigints throughout). Both forms must give the
 * same rows, and the increases must be the exact sums computed here with bigints.
 */
import { describe, expect, it } from 'vitest';
import type { KafkaConnection } from '../../src/api/schema/connection.ts';
import { memorySource, type RecordedPoll } from '../../src/report/timeline/memory-source.ts';
import { okPoll } from '../helpers/recorded-poll.ts';
import type { CounterFacts, StoredCounterFrame } from '../../src/report/trends/counter-frames.ts';
import { computeTrends, type TrendsSource } from '../../src/report/trends/index.ts';

const S = 1_000_000_000n;
const T0 = 1_767_225_600n * S;
const SAFE = 2n ** 51n;

/** An ok ListKafkaConnections poll at `at`. */
const poll = (at: bigint, answer: unknown): RecordedPoll => okPoll('ListKafkaConnections', at, answer);

/** Five connections of client z, each growing by 2^51 - 3: their sum, odd and beyond 2^53, is no number. */
const Z = (v: bigint): [string, string, bigint, bigint][] =>
  ['z1', 'z2', 'z3', 'z4', 'z5'].map((uid): [string, string, bigint, bigint] => [uid, 'z', v, v]);

/** Per poll, per connection (uid, client, produced bytes, produced batches). */
const PLAN: [string, string, bigint, bigint][][] = [
  [['a', 'x', SAFE - 10n, 5n], ['b', 'x', 2n ** 60n, 2n ** 52n], ['c', 'y', 100n, 1n], ...Z(1n)],
  [
    // a crosses 2^51; b grows beyond 2^53; c grows by a number
    ['a', 'x', SAFE + 7n, 9n],
    ['b', 'x', 2n ** 60n + 3n, 2n ** 52n + 1n],
    ['c', 'y', SAFE - 1n, 2n],
    ...Z(SAFE - 2n),
  ],
  [
    // a back below 2^51: a reset, counted from zero; c's increase now beyond 2^51 in the sum of x and y
    ['a', 'x', 12n, 10n],
    ['b', 'x', 2n ** 60n + 2n ** 53n + 1n, 2n ** 52n + 7n],
    ['c', 'y', SAFE + SAFE / 2n, 3n],
  ],
  [
    ['a', 'x', SAFE - 3n, 11n],
    ['b', 'x', 2n ** 60n + 2n ** 53n + 1n, 2n ** 52n + 7n],
    ['c', 'y', 3n * SAFE, 3n],
  ],
];

const polls = PLAN.map((rows, i) =>
  poll(T0 + BigInt(i) * 30n * S, {
    connections: rows.map(([uid, clientId, bytes, batches]) => ({
      uid,
      clientId,
      state: 'KAFKA_CONNECTION_STATE_OPEN',
      openTime: '2025-12-31T00:00:00Z',
      totalRequestStatistics: { produceBytes: String(bytes), produceBatchCount: String(batches) },
    })),
  }),
);

/** As the store's narrow read hands values: numbers below 2^51, bigints beyond (one column kind per frame). */
const narrow = (v: bigint): number | bigint => (v < SAFE && v > -SAFE ? Number(v) : v);

/** The memory source with a narrow read over the same answers. */
function narrowSource(): TrendsSource {
  const full = memorySource(polls);
  return {
    polls: (q) => full.polls(q),
    samples: (r, q) => full.samples(r, q),
    connectionCounters: (q) => {
      const frames: StoredCounterFrame[] = [];
      for (const p of full.polls(q)) {
        const rows = [...full.samples('connections', q)]
          .filter((s) => s.poll.id === p.id)
          .map((s) => s.row as KafkaConnection);
        if (rows.length === 0) continue;
        const totals = q.counters.map((k) => {
          const values = rows.map((r) => narrow(r.totalRequestStatistics[k]));
          return values.every((v) => typeof v === 'number') ? Float64Array.from(values as number[]) : values;
        });
        frames.push({ poll: p, versions: rows as CounterFacts[], totals });
      }
      return frames;
    },
  };
}

/** The increases of the documented definition, with bigints. */
function byHand(field: 2 | 3, key: (uid: string, client: string) => string): Map<string, bigint> {
  const last = new Map<string, bigint>();
  const out = new Map<string, bigint>();
  for (const rows of PLAN) {
    for (const row of rows) {
      const [uid, client] = row;
      const v = row[field];
      const before = last.get(uid);
      const inc = before === undefined ? 0n : v >= before ? v - before : v;
      last.set(uid, v);
      const k = key(uid, client);
      out.set(k, (out.get(k) ?? 0n) + inc);
    }
  }
  return out;
}

describe('counter trends beyond 2^51 and 2^53', () => {
  for (const [metric, field] of [
    ['produce-bytes', 2],
    ['batches', 3],
  ] as const) {
    for (const by of ['client', 'connection'] as const) {
      it(`${metric} by ${by}: exact increases, the same from numbers and from bigints`, () => {
        const fromFull = computeTrends(memorySource(polls), { metric, by });
        const fromNarrow = computeTrends(narrowSource(), { metric, by });
        expect(fromNarrow).toEqual(fromFull);
        const hand = byHand(field, (uid, client) => (by === 'client' ? client : uid));
        expect(fromFull.rows.length).toBe(hand.size);
        for (const row of fromFull.rows) expect(row.detail.increase).toBe(String(hand.get(row.key)));
      });
    }
  }

  it('batch-size: bytes and batches both exact', () => {
    const fromFull = computeTrends(memorySource(polls), { metric: 'batch-size', by: 'client' });
    const fromNarrow = computeTrends(narrowSource(), { metric: 'batch-size', by: 'client' });
    expect(fromNarrow).toEqual(fromFull);
    const bytes = byHand(2, (_, client) => client);
    const batches = byHand(3, (_, client) => client);
    for (const row of fromFull.rows) {
      expect(row.detail.increase).toBe(String(bytes.get(row.key)));
      expect(row.detail.batches).toBe(String(batches.get(row.key)));
    }
  });
});
