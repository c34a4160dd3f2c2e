/**
 * The evidence of an interval describes the interval (the state during it); what the poll that
 * ended it showed (the recovery) is kept apart, in `after`, and printed after "then".
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { evidenceText } from '../../src/report/render/timeline-common.ts';
import { eventToJson } from '../../src/report/render/timeline-json.ts';
import { memorySource } from '../../src/report/timeline/memory-source.ts';
import { resolveThresholds } from '../../src/report/timeline/thresholds-schema.ts';
import { buildTimeline } from '../../src/report/timeline/timeline.ts';
import { loadCase } from '../fixtures/timeline/cases.ts';

const iceberg = loadCase(
  fileURLToPath(new URL('../fixtures/timeline/cases/iceberg-lifecycle-and-lag.yaml', import.meta.url)),
);

describe('interval evidence', () => {
  const timeline = buildTimeline(memorySource(iceberg.polls), {
    thresholds: resolveThresholds({ iceberg: { commitLag: 1000 } }),
  });
  const outage = timeline.events.find((e) => e.kind === 'iceberg.catalog-unreachable');

  it('an unreachable catalog reads unreachable during the interval, the recovery apart', () => {
    expect(outage).toBeDefined();
    const e = outage!;
    expect(e.evidence.during).toMatchObject({ reachable: 'false', errorCode: 'timeout' });
    expect(e.evidence.after).toEqual({ reachable: 'true' });
    const text = evidenceText(e);
    expect(text).toContain('reachable: true → false');
    expect(text).toContain('errorCode: timeout');
    expect(text).toMatch(/; then reachable: true; polls /);
    // never the contradiction of a recovered value beside the error of the outage
    expect(text).not.toMatch(/^reachable: true; errorCode/);
  });

  it('JSON keeps before, during and after apart', () => {
    const json = eventToJson(outage!) as { evidence: Record<string, Record<string, string>> };
    expect(json.evidence.before).toEqual({ reachable: 'true' });
    expect(json.evidence.during).toMatchObject({ reachable: 'false', errorCode: 'timeout' });
    expect(json.evidence.after).toEqual({ reachable: 'true' });
  });

  it('a point keeps its before and after, with nothing during', () => {
    const point = timeline.events.find((e) => e.kind === 'iceberg.topic-lifecycle')!;
    expect(point.evidence.during).toEqual({});
    expect(evidenceText(point)).toMatch(/ICEBERG_LIFECYCLE_STATE_LIVE → ICEBERG_LIFECYCLE_STATE_CLOSED/);
  });
});
