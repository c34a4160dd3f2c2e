/** The rollups' pure aggregation: bucket starts, 1-hour buckets from 5-minute ones, kept events. */
import { describe, expect, it } from 'vitest';
import type { RollupBatch, RollupConnRow } from '../../src/db/rollups/rollup-store.ts';
import {
  bucketStart,
  coarsen,
  keptEvent,
  mergeKeptEvents,
  stateRuns,
  storeEvent,
} from '../../src/report/rollup/index.ts';
import { eventsToStore } from '../../src/report/rollup/kept-events.ts';
import type { TimelineEvent } from '../../src/report/timeline/types.ts';

const S = 1_000_000_000n;
const M5 = 300n * S;

function conn(start: bigint, o: Partial<RollupConnRow> = {}): RollupConnRow {
  return {
    start,
    nodeId: 1,
    listener: 'internal',
    principal: 'User:a',
    clientId: 'app',
    software: 'java 3.7',
    openMin: 2,
    openMax: 4,
    openLast: 3,
    openSum: 30,
    opened: 1,
    closed: 1,
    authFailures: 0,
    resets: 0,
    produceBytes: 10n,
    produceBatches: 2n,
    fetchBytes: 5n,
    requests: 7n,
    ...o,
  };
}

function event(o: Partial<TimelineEvent> = {}): TimelineEvent {
  return {
    kind: 'shadow.lag-high',
    severity: 'warn',
    entity: 'shadow-topic/l/orders',
    related: ['link/l'],
    type: 'interval',
    start: 100n * S,
    end: null,
    startedBefore: false,
    description: 'lag high',
    evidence: { before: { lag: '1' }, during: { lag: '900000' }, after: {}, pollIds: [18446744073709551615n, 2n] },
    ...o,
  };
}

describe('bucketStart', () => {
  it('rounds down to the bucket, negative times included', () => {
    expect(bucketStart(301n * S, M5)).toBe(M5);
    expect(bucketStart(M5, M5)).toBe(M5);
    expect(bucketStart(-1n, M5)).toBe(-M5);
  });
});

describe('coarsen', () => {
  const hour = 0n;
  const fine: RollupBatch = {
    buckets: [
      { start: 0n, connPolls: 10, firstPoll: 10n * S, lastPoll: 280n * S },
      { start: M5, connPolls: 10, firstPoll: 310n * S, lastPoll: 580n * S },
      { start: 2n * M5, connPolls: 0, firstPoll: undefined, lastPoll: undefined },
    ],
    conns: [
      conn(0n, { produceBytes: 2n ** 62n, openMin: 1, openMax: 9, openLast: 5 }),
      conn(M5, { produceBytes: 2n ** 62n, openMin: 3, openMax: 4, openLast: 4 }),
      conn(0n, { clientId: 'other', openLast: 1, openMin: 1 }),
    ],
    shadow: [
      {
        start: 0n,
        link: 'l',
        topic: 't',
        partition: 0,
        lagMin: 5n,
        lagMax: 50n,
        lagLast: 20n,
        shadowLast: 100n,
        sourceLast: 120n,
        progress: 100n,
        state: 'ACTIVE',
      },
      {
        start: M5,
        link: 'l',
        topic: 't',
        partition: 0,
        lagMin: 1n,
        lagMax: 30n,
        lagLast: 2n,
        shadowLast: 200n,
        sourceLast: 202n,
        progress: 100n,
        state: 'FAULTED',
      },
    ],
    iceberg: [
      { start: 0n, topic: 'i', lagMin: 0n, lagMax: 10n, lagLast: 4n, partitions: 3 },
      { start: M5, topic: 'i', lagMin: 2n, lagMax: 7n, lagLast: 7n, partitions: 3 },
    ],
  };
  const c = coarsen(fine, hour);

  it('adds polls and keeps the first and last poll times', () => {
    expect(c.buckets).toEqual([{ start: 0n, connPolls: 20, firstPoll: 10n * S, lastPoll: 580n * S }]);
  });

  it('adds counter increases exactly beyond 2^53 and combines open counts', () => {
    const app = c.conns.find((r) => r.clientId === 'app');
    expect(app).toMatchObject({
      start: 0n,
      openMin: 1,
      openMax: 9,
      openLast: 4,
      openSum: 60,
      opened: 2,
      closed: 2,
      requests: 14n,
    });
    expect(app?.produceBytes).toBe(2n ** 63n);
  });

  it('a group missing from the last polled bucket ends at zero and its minimum is zero', () => {
    expect(c.conns.find((r) => r.clientId === 'other')).toMatchObject({ openLast: 0, openMin: 0, openMax: 4 });
  });

  it('combines lags: range over the hour, last of the last bucket, progress added', () => {
    expect(c.shadow).toEqual([
      {
        start: 0n,
        link: 'l',
        topic: 't',
        partition: 0,
        lagMin: 1n,
        lagMax: 50n,
        lagLast: 2n,
        shadowLast: 200n,
        sourceLast: 202n,
        progress: 200n,
        state: 'FAULTED',
      },
    ]);
    expect(c.iceberg).toEqual([{ start: 0n, topic: 'i', lagMin: 0n, lagMax: 10n, lagLast: 7n, partitions: 3 }]);
  });
});

describe('kept events', () => {
  it('round-trip through their stored form, uint64 poll ids included', () => {
    const e = event({ end: 200n * S });
    const s = storeEvent(e);
    expect(s).toMatchObject({ kind: e.kind, entity: e.entity, start: e.start, end: e.end });
    expect(keptEvent(s)).toEqual(e);
  });

  it('an event seen again from the start of the next pass continues the stored ongoing one', () => {
    const stored = storeEvent(event());
    const again = event({
      start: 400n * S,
      end: 500n * S,
      startedBefore: true,
      evidence: { before: {}, during: {}, after: { lag: '3' }, pollIds: [9n] },
    });
    const { write, replaced } = eventsToStore([again], [stored], 400n * S, 600n * S);
    expect(replaced).toEqual([stored]);
    expect(write.map(keptEvent)).toEqual([
      { ...again, start: 100n * S, startedBefore: false, evidence: { ...again.evidence, before: { lag: '1' } } },
    ]);
  });

  it('events starting at or after the pass end are left for the next pass', () => {
    expect(eventsToStore([event({ start: 700n * S })], [], undefined, 600n * S).write).toEqual([]);
  });

  it('merge: kept events before the rollups end are added, the same event from raw history is shown once', () => {
    const kept = [
      event({ end: 150n * S }),
      event({ kind: 'upgrade.member-down', entity: 'broker/0', start: 500n * S, end: 560n * S }),
    ];
    const raw = [
      event({ kind: 'upgrade.member-down', entity: 'broker/0', start: 500n * S, end: 560n * S, description: 'raw' }),
    ];
    const merged = mergeKeptEvents(raw, kept, 600n * S);
    expect(merged.map((e) => [e.kind, e.start, e.description])).toEqual([
      ['shadow.lag-high', 100n * S, 'lag high'],
      ['upgrade.member-down', 500n * S, 'raw'],
    ]);
  });

  it('merge: a raw event clipped to the first remaining poll takes the kept start', () => {
    const kept = [event()];
    const raw = [
      event({
        start: 650n * S,
        end: 700n * S,
        startedBefore: true,
        description: 'lag high (started before the recording)',
      }),
    ];
    const merged = mergeKeptEvents(raw, kept, 600n * S);
    expect(merged).toHaveLength(1);
    expect(merged[0]).toMatchObject({ start: 100n * S, end: 700n * S, startedBefore: false, description: 'lag high' });
  });
});

describe('stateRuns', () => {
  it('continues the open interval, closes it at the first other state and opens the next', () => {
    const open = [{ entity: 'upgrade', start: 1n, end: null, state: 'A' }];
    const runs = stateRuns(
      [
        { entity: 'upgrade', state: 'A', time: 5n },
        { entity: 'link/l', state: 'ACTIVE', time: 5n },
        { entity: 'upgrade', state: 'B', time: 9n },
        { entity: 'upgrade', state: 'B', time: 12n },
      ],
      open,
    );
    expect(runs).toEqual([
      { entity: 'link/l', start: 5n, end: null, state: 'ACTIVE' },
      { entity: 'upgrade', start: 1n, end: 9n, state: 'A' },
      { entity: 'upgrade', start: 9n, end: null, state: 'B' },
    ]);
  });
});
