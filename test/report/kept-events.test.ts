/**
 * Events kept with the rollups go through JSON: every int64 instant (start, end, the instant a
 * dated-back start was detected, the polls) comes back as the same bigint.
 */
import { describe, expect, it } from 'vitest';
import { keptEvent, storeEvent } from '../../src/report/rollup/kept-events.ts';
import type { TimelineEvent } from '../../src/report/timeline/types.ts';

const event = (extra: Partial<TimelineEvent> = {}): TimelineEvent => ({
  kind: 'shadow.replication-stopped',
  severity: 'error',
  entity: 'shadow-topic/dr/payments',
  related: [],
  type: 'interval',
  start: 1_767_225_660_000_000_000n,
  end: null,
  startedBefore: false,
  description: 'replication stopped',
  evidence: { before: {}, during: { lag: '9223372036854775807' }, after: {}, pollIds: [9_007_199_254_740_993n] },
  ...extra,
});

describe('kept events', () => {
  it('keep a dated-back start with the instant it was detected', () => {
    const e = event({ detectedAt: 1_767_225_780_000_000_001n });
    expect(keptEvent(storeEvent(e))).toEqual(e);
  });

  it('keep an event without detectedAt without one', () => {
    const back = keptEvent(storeEvent(event()));
    expect(back).toEqual(event());
    expect('detectedAt' in back).toBe(false);
  });
});
