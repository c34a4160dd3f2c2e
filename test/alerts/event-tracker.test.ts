/** Transitions from successive looks at the timeline's events: opened, escalated, ended; quiet warm-up; rebase. */
import { describe, expect, it } from 'vitest';
import { EventTracker, uniqueEvents } from '../../src/alerts/event-tracker.ts';
import type { Severity, TimelineEvent } from '../../src/report/timeline/types.ts';

function ev(
  kind: string,
  entity: string,
  start: bigint,
  end: bigint | null,
  severity: Severity = 'warn',
): TimelineEvent {
  return {
    kind,
    severity,
    entity,
    related: [],
    type: 'interval',
    start,
    end,
    startedBefore: false,
    description: `${kind} ${entity}`,
    evidence: { before: {}, during: {}, after: {}, pollIds: [] },
  };
}

const changes = (ts: readonly { change: string; event: TimelineEvent }[]): string[] =>
  ts.map(
    (t) => `${t.change} ${t.event.kind} ${t.event.entity} ${t.event.start}-${t.event.end ?? ''} ${t.event.severity}`,
  );

describe('EventTracker', () => {
  it('opens, escalates and ends an event once each; a known ended event is never news again', () => {
    const t = new EventTracker('c');
    expect(changes(t.look([ev('shadow.lag-high', 'x', 10n, null)], 10n))).toEqual([
      'opened shadow.lag-high x 10- warn',
    ]);
    expect(t.look([ev('shadow.lag-high', 'x', 10n, null)], 20n)).toEqual([]);
    expect(changes(t.look([ev('shadow.lag-high', 'x', 10n, null, 'error')], 30n))).toEqual([
      'escalated shadow.lag-high x 10- error',
    ]);
    expect(changes(t.look([ev('shadow.lag-high', 'x', 10n, 40n, 'error')], 40n))).toEqual([
      'ended shadow.lag-high x 10-40 error',
    ]);
    expect(t.look([ev('shadow.lag-high', 'x', 10n, 40n, 'error')], 50n)).toEqual([]);
    expect(t.ongoing).toEqual([]);
  });

  it('an event found already ended opens with its end (a point, or an interval dated back)', () => {
    const t = new EventTracker('c');
    const got = t.look(
      [ev('collection.gap', 'api/X', 5n, 9n), { ...ev('upgrade.member-version', 'broker/1', 7n, 7n), type: 'point' }],
      10n,
    );
    expect(changes(got)).toEqual([
      'opened collection.gap api/X 5-9 warn',
      'opened upgrade.member-version broker/1 7-7 warn',
    ]);
    expect(got.every((g) => g.detectedAt === 10n)).toBe(true);
  });

  it('a detector reporting one identity twice (ongoing and closed) is read as closed', () => {
    const both = [ev('collection.gap', 'api/X', 5n, null), ev('collection.gap', 'api/X', 5n, 9n)];
    expect([...uniqueEvents(both).values()].map((e) => e.end)).toEqual([9n]);
    const t = new EventTracker('c');
    t.look([both[0]!], 6n);
    expect(changes(t.look(both, 9n))).toEqual(['ended collection.gap api/X 5-9 warn']);
  });

  it('a quiet look takes ended events without a word and announces ongoing ones', () => {
    const t = new EventTracker('c');
    expect(changes(t.look([ev('a.b', 'x', 1n, 2n), ev('a.c', 'y', 1n, null)], 3n, true))).toEqual([
      'opened a.c y 1- warn',
    ]);
    expect(t.look([ev('a.b', 'x', 1n, 2n), ev('a.c', 'y', 1n, null)], 4n)).toEqual([]);
  });

  it('a rebase keeps the identity of ongoing events, ends those the new generation does not see, forgets old ended ones', () => {
    const t = new EventTracker('c');
    t.look([ev('a.lag', 'x', 10n, null), ev('a.down', 'y', 20n, null), ev('a.old', 'z', 1n, 5n)], 30n);
    // the new generation starts later: it sees x from its own first poll, y no longer
    const got = t.rebase([ev('a.lag', 'x', 25n, null), ev('a.new', 'w', 28n, null)], 30n);
    expect(changes(got)).toEqual(['opened a.new w 28- warn', 'ended a.down y 20-30 warn']);
    expect(t.announced.map((e) => `${e.kind} ${e.start}`).sort()).toEqual(['a.lag 10', 'a.new 28']);
    // the next look of the new generation speaks of x under the start it was announced with
    expect(changes(t.look([ev('a.lag', 'x', 25n, 40n), ev('a.new', 'w', 28n, null)], 40n))).toEqual([
      'ended a.lag x 10-40 warn',
    ]);
  });
});
