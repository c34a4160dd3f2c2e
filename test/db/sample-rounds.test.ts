/**
 * One sample per shadow topic and partition per round (src/db/read/sample-rounds.ts): the rounds of
 * the three operations that report them, the most detailed answer of a round winning, on both
 * engines, with the jitter and call-queue waits of a real collector (the polls of a round are
 * not at one instant); the other answers stay readable as raw history (`source`).
 */
import { expect, it } from 'vitest';
import type { ShadowTopic } from '../../src/api/schema/shadow-topic.ts';
import { createHistoryReader, createHistoryWriter, openDatabase, openHistoryMaintenance } from '../../src/db/index.ts';
import type { PollRecord } from '../../src/db/poll-record.ts';
import {
  precedence,
  roundsOf,
  roundWinners,
  ROUND_WINDOW_NS,
  type PollTiming,
} from '../../src/db/read/sample-rounds.ts';
import { forEachEngine } from '../helpers/pg.ts';
import { okRecord } from './fixtures.ts';
import { shadowLinkAnswer, shadowTopic } from './small-answers.ts';

const SEC = 1_000_000_000n;
const T = 1_767_225_600_000_000_000n; // 2026-01-01T00:00:00Z

function timing(op: string, target: string, scheduled: bigint, started = scheduled, id = 0n): PollTiming {
  const p: PollTiming = { id, operation: op, target, scheduledTime: scheduled, startTime: started };
  return p;
}

it('groups the polls of one firing into a round, whatever their jitter; a second poll of a target starts the next', () => {
  const polls = [
    timing('GetShadowLink', 'l', T, T + SEC / 5n, 1n),
    timing('GetShadowTopic', 'l/a', T + (7n * SEC) / 10n, T + 2n * SEC, 3n),
    timing('ListShadowTopics', 'l', T + (3n * SEC) / 2n, T + (3n * SEC) / 2n, 2n),
    // a retry keeps its scheduled instant: same round
    timing('GetShadowTopic', 'l/b', T + SEC, T + 8n * SEC, 4n),
    // the next firing, 30 s later
    timing('GetShadowLink', 'l', T + 30n * SEC, T + 30n * SEC, 5n),
    // the same target again within the window: a round of its own (a schedule faster than the window)
    timing('GetShadowLink', 'l', T + 33n * SEC, T + 33n * SEC, 6n),
    // beyond the window of the round's first poll
    timing('ListShadowTopics', 'l', T + 33n * SEC + ROUND_WINDOW_NS, T + 50n * SEC, 7n),
  ];
  expect(roundsOf(polls)).toEqual([0, 0, 0, 0, 1, 2, 3]);
  expect(precedence('GetShadowTopic')).toBeGreaterThan(precedence('ListShadowTopics'));
  expect(precedence('ListShadowTopics')).toBeGreaterThan(precedence('GetShadowLink'));
  expect(precedence('GetUpgradeStatus')).toBe(0);
  const samples = polls.slice(0, 3).map((p, i) => ({ poll: p, key: 'l\u0000a', i }));
  expect(roundWinners(samples, (s) => ({ poll: s.poll, round: 0 })).map((s) => s.poll.operation)).toEqual([
    'GetShadowTopic',
  ]);
});

/** A poll record with a scheduled and a start instant of its own (jitter, then a wait in the call queue). */
function at(record: PollRecord, scheduled: bigint, started: bigint): PollRecord {
  return { ...record, scheduledAt: scheduled, startedAt: started, endedAt: started + SEC / 10n };
}

const topics = (v: number): ShadowTopic[] => [shadowTopic('orders', v), shadowTopic('payments', v + 1)];
const hwm = (row: object): bigint =>
  (row as { status: { partitionInformation: { highWatermark: bigint }[] } }).status.partitionInformation[0]!
    .highWatermark;

forEachEngine('shadow samples merged per round', (engine) => {
  it('reads one sample per topic per round, the most detailed answer; raw history by source', async () => {
    const db = openDatabase(await engine.target());
    const w = createHistoryWriter(db);
    const link = { request: { name: 'dr-link' }, target: 'dr-link' };
    const list = { request: { shadowLinkName: 'dr-link' }, target: 'dr-link' };
    const orders = { request: { shadowLinkName: 'dr-link', name: 'orders' }, target: 'dr-link/orders' };
    // round A: GetShadowLink first, GetShadowTopic next, ListShadowTopics last (all within 2 s)
    w.writePoll(at(okRecord('GetShadowLink', shadowLinkAnswer(1), { at: T, ...link }), T, T + SEC / 5n));
    w.writePoll(
      at(
        okRecord('GetShadowTopic', { shadowTopic: shadowTopic('orders', 30) }, { at: T, ...orders }),
        T + (7n * SEC) / 10n,
        T + (8n * SEC) / 10n,
      ),
    );
    w.writePoll(
      at(
        okRecord('ListShadowTopics', { shadowTopics: topics(20) }, { at: T, ...list }),
        T + (3n * SEC) / 2n,
        T + (16n * SEC) / 10n,
      ),
    );
    // round B, 30 s later: no GetShadowTopic answer
    const b = T + 30n * SEC;
    w.writePoll(at(okRecord('GetShadowLink', shadowLinkAnswer(4), { at: b, ...link }), b, b + SEC / 5n));
    w.writePoll(at(okRecord('ListShadowTopics', { shadowTopics: topics(50) }, { at: b, ...list }), b + SEC, b + SEC));
    const reader = createHistoryReader(db);
    const window = { since: T - SEC, until: T + 60n * SEC };
    const got = [...reader.samples('shadow-topics', window)].map((s) => ({
      op: s.poll.operation,
      name: (s.row as { name: string }).name,
      hwm: hwm(s.row),
    }));
    // before: 9 samples (every stored row); now one per topic per round, the most detailed
    expect(got).toEqual([
      { op: 'GetShadowTopic', name: 'orders', hwm: 30_000n },
      { op: 'ListShadowTopics', name: 'payments', hwm: 21_000n },
      { op: 'ListShadowTopics', name: 'orders', hwm: 50_000n },
      { op: 'ListShadowTopics', name: 'payments', hwm: 51_000n },
    ]);
    const parts = [...reader.samples('shadow-partitions', window)];
    const keys = parts.map((s) => {
      const r = s.row as { topicName: string; partitionId: bigint };
      return `${s.poll.startTime >= b ? 'B' : 'A'}/${r.topicName}/${r.partitionId}`;
    });
    expect(new Set(keys).size).toBe(keys.length);
    // raw history of each operation, unmerged
    const raw = (source: 'GetShadowLink' | 'ListShadowTopics' | 'GetShadowTopic'): number =>
      [...reader.samples('shadow-topics', { ...window, source })].length;
    expect([raw('GetShadowLink'), raw('ListShadowTopics'), raw('GetShadowTopic')]).toEqual([4, 4, 1]);
    expect(() => [...reader.samples('shadow-topics', { ...window, source: 'GetUpgradeStatus' })]).toThrow(
      /shadow-topics is not reported by GetUpgradeStatus/,
    );
    // a range holding only the ListShadowTopics poll of round A: the round is judged whole, so
    // orders (won by GetShadowTopic, outside the range) is not shown from the lesser answer
    const mid = [...reader.samples('shadow-topics', { since: T + (3n * SEC) / 2n, until: T + 2n * SEC })];
    expect(mid.map((s) => (s.row as { name: string }).name)).toEqual(['payments']);
    // the state as of T+2s: orders from its own answer, although ListShadowTopics answered later
    const state = reader.stateAt('shadow-topics', T + 2n * SEC).rows;
    expect(state.map((r) => [(r as { name: string }).name, hwm(r)])).toEqual([
      ['orders', 30_000n],
      ['payments', 21_000n],
    ]);
    expect(reader.stateAt('shadow-topics', T + 2n * SEC, { source: 'GetShadowLink' }).rows.map(hwm)).toEqual([
      1000n,
      2000n,
    ]);
    // after round B, a newer round's answer wins over an older, more detailed one
    expect(reader.stateAt('shadow-topics', b + 2n * SEC).rows.map(hwm)).toEqual([50_000n, 51_000n]);
    const history = reader.entityHistory('shadow-topics', { shadowLinkName: 'dr-link', name: 'orders' });
    expect(history.map((s) => [s.poll.operation, hwm(s.row)])).toEqual([
      ['GetShadowTopic', 30_000n],
      ['ListShadowTopics', 50_000n],
    ]);
    const stats = openHistoryMaintenance(db).stats();
    expect(stats.resources['shadow-topics']).toMatchObject({ samples: 4, storedRows: 9 });
    expect(stats.samples['shadow-partitions']).toBe(parts.length);
    w.close();
  });
});
