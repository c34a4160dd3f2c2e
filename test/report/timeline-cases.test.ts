/** Timeline cases kept as data files under test/fixtures/timeline/cases: polls in, events out. */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { memorySource } from '../../src/report/timeline/memory-source.ts';
import { resolveThresholds } from '../../src/report/timeline/thresholds-schema.ts';
import { buildTimeline } from '../../src/report/timeline/timeline.ts';
import type { TimelineEvent } from '../../src/report/timeline/types.ts';
import { CASE_START, loadCases, type ExpectedEvent } from '../fixtures/timeline/cases.ts';

const dir = fileURLToPath(new URL('../fixtures/timeline/cases', import.meta.url));

const rel = (t: bigint | null): string => (t === null ? 'ongoing' : `${Number(t - CASE_START) / 1e9}s`);
const show = (e: TimelineEvent): string =>
  `${e.severity} ${e.kind} ${e.entity} ${rel(e.start)}..${e.type === 'point' ? 'point' : rel(e.end)}: ${e.description}`;

function matches(e: TimelineEvent, x: ExpectedEvent): boolean {
  return (
    e.kind === x.kind &&
    e.entity === x.entity &&
    (x.severity === undefined || e.severity === x.severity) &&
    (x.start === undefined || e.start === x.start) &&
    (x.end === undefined || e.end === x.end) &&
    (x.point !== true || e.type === 'point') &&
    (x.says === undefined || e.description.includes(x.says))
  );
}

describe('timeline cases (data files)', () => {
  const cases = loadCases(dir);
  it('finds the case files', () => {
    expect(cases.length).toBeGreaterThanOrEqual(7);
  });
  for (const c of cases) {
    it(c.name, () => {
      const timeline = buildTimeline(memorySource(c.polls), {
        thresholds: resolveThresholds(c.thresholds),
        until: c.until,
      });
      const shown = timeline.events.map(show);
      for (const x of c.expect) {
        expect(
          timeline.events.some((e) => matches(e, x)),
          `expected ${JSON.stringify({ ...x, start: x.start === undefined ? undefined : rel(x.start), end: x.end === undefined ? undefined : rel(x.end) })}\ngot:\n${shown.join('\n')}`,
        ).toBe(true);
      }
      for (const kind of c.absent) expect(shown.filter((s) => s.includes(` ${kind} `))).toEqual([]);
      if (c.exact) {
        const loud = timeline.events.filter((e) => e.severity !== 'info');
        const unexpected = loud.filter((e) => !c.expect.some((x) => matches(e, x)));
        expect(unexpected.map(show)).toEqual([]);
      }
      // every event carries the polls that showed it
      for (const e of timeline.events) expect(e.evidence.pollIds.length).toBeGreaterThan(0);
      // and none starts before the recording's first poll
      const first = c.polls.reduce((t, p) => (p.poll.startTime < t ? p.poll.startTime : t), c.polls[0]!.poll.startTime);
      expect(timeline.events.filter((e) => e.start < first).map(show)).toEqual([]);
    });
  }
});
