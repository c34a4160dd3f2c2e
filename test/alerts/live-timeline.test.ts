/**
 * The live timeline equals `timeline` over the same recording: the incident scenario recorded
 * once (the demo database the TUI tests share), then read back step by step as a collector's hook would (after each round, up to the
 * time before which every poll is stored), and every event's last state compared with what
 * buildTimeline computes afterwards (kind, entity, start, end) — whatever the detectors produce.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHistoryReader, openDatabase, type FlightrecDb, type HistoryReader } from '../../src/db/index.ts';
import { eventKey, type LiveTransition } from '../../src/alerts/event-tracker.ts';
import { LiveTimeline } from '../../src/alerts/live-timeline.ts';
import { buildTimeline } from '../../src/report/timeline/timeline.ts';
import { DEFAULT_THRESHOLDS } from '../../src/report/timeline/thresholds.ts';
import { pollTime, type TimelineEvent } from '../../src/report/timeline/types.ts';
import { demoDatabase } from '../tui/helpers/demo-db.ts';

let db: FlightrecDb;
let reader: HistoryReader;
/** the horizons a collector's hook would give: each round's time (its polls are stored before the next) */
let horizons: bigint[];
/** the transitions of a live timeline stepped over the whole recording */
let plain: LiveTransition[];

beforeAll(async () => {
  db = openDatabase(await demoDatabase(), { readonly: true });
  reader = createHistoryReader(db);
  horizons = [...new Set(reader.polls({ cluster: 'sim' }).map((p) => pollTime(p) + 1n))].sort((a, b) =>
    a < b ? -1 : a > b ? 1 : 0,
  );
  plain = runLive();
}, 120_000);

afterAll(() => {
  db?.close();
});

const identity = (e: TimelineEvent): string => `${e.kind} ${e.entity} ${e.start} ${e.end}`;

/** Every event's last state from a stream of transitions. */
function lastStates(transitions: readonly LiveTransition[]): TimelineEvent[] {
  const last = new Map<string, TimelineEvent>();
  for (const t of transitions) last.set(eventKey(t.event), t.event);
  return [...last.values()];
}

function runLive(opts: { rebaseAfterNs?: bigint; startNs?: bigint } = {}): LiveTransition[] {
  const live = new LiveTimeline(reader, { cluster: 'sim', thresholds: DEFAULT_THRESHOLDS, ...opts });
  const out: LiveTransition[] = [];
  for (const h of horizons) out.push(...live.step(h));
  out.push(...live.finish());
  return out;
}

describe('the live timeline', () => {
  it('announces exactly the events timeline computes afterwards (kind, entity, start, end)', () => {
    const transitions = plain;
    const batch = buildTimeline(reader, { cluster: 'sim' }).events;
    expect(batch.length).toBeGreaterThan(20);
    expect(lastStates(transitions).map(identity).sort()).toEqual(batch.map(identity).sort());
    // each event opened once, ended at most once, and after it opened
    const opened = transitions.filter((t) => t.change === 'opened').map((t) => eventKey(t.event));
    expect(new Set(opened).size).toBe(opened.length);
    const ended = transitions.filter((t) => t.change === 'ended').map((t) => eventKey(t.event));
    expect(new Set(ended).size).toBe(ended.length);
    for (const key of ended) expect(opened).toContain(key);
  });

  it('fires an event when it opens and resolves it when it ends, dated-back events with their real start', () => {
    const transitions = plain;
    const catalog = transitions.filter((t) => t.event.kind === 'iceberg.catalog-unreachable');
    expect(catalog.map((t) => [t.change, t.event.end === null])).toEqual([
      ['opened', true],
      ['ended', false],
    ]);
    // seen at the poll that showed it, resolved at the poll that showed the recovery
    expect(catalog[0]!.detectedAt).toBe(catalog[0]!.event.start);
    expect(catalog[1]!.detectedAt).toBe(catalog[1]!.event.end);
    // a storm is dated back to the connections that made it: announced later than its start
    const storm = transitions.find((t) => t.event.kind === 'connections.storm' && t.change === 'opened')!;
    expect(storm.detectedAt).toBeGreaterThan(storm.event.start);
  });

  it('steps read no poll twice and cut no round: one step per poll gives the same events as one step for all', () => {
    const live = new LiveTimeline(reader, { cluster: 'sim', thresholds: DEFAULT_THRESHOLDS });
    const once = lastStates(live.finish()).map(identity).sort();
    expect(once).toEqual(lastStates(plain).map(identity).sort());
    // a step with nothing new says nothing
    expect(live.step(2n ** 62n)).toEqual([]);
  });

  it('a collector started on a recording announces what is ongoing, not what had ended', () => {
    const startNs = horizons[Math.floor(horizons.length / 2)]!;
    const transitions = runLive({ startNs });
    // what the recording said when the collector started: ended events are old news, ongoing ones are announced
    const before = buildTimeline(reader, { cluster: 'sim', until: startNs - 1n }).events;
    const keys = new Set(transitions.map((t) => eventKey(t.event)));
    const ended = before.filter((e) => e.end !== null);
    expect(ended.length).toBeGreaterThan(5);
    expect(ended.filter((e) => keys.has(eventKey(e))).map(identity)).toEqual([]);
    const ongoing = before.filter((e) => e.end === null).map((e) => eventKey(e));
    expect(ongoing.length).toBeGreaterThan(0);
    const first = transitions.filter((t) => t.detectedAt < startNs).map((t) => [t.change, eventKey(t.event)]);
    expect(first.sort()).toEqual(ongoing.map((k) => ['opened', k]).sort());
    // what ends after the start is what `timeline --since START` shows
    const since = buildTimeline(reader, { cluster: 'sim', since: startNs }).events;
    const later = (e: TimelineEvent): boolean => e.end === null || e.end > startNs;
    expect(lastStates(transitions).filter(later).map(identity).sort()).toEqual(
      since.filter(later).map(identity).sort(),
    );
  });

  it('started again on the last warm-up to bound memory, it announces no event twice and keeps ongoing ones', () => {
    const rebaseAfterNs = 4n * 60_000_000_000n;
    const transitions = runLive({ rebaseAfterNs });
    const opened = transitions.filter((t) => t.change === 'opened').map((t) => eventKey(t.event));
    expect(new Set(opened).size).toBe(opened.length);
    // the same things are announced as without the restarts (what an event is about and when it began)
    const about = (ts: readonly LiveTransition[]): string[] =>
      [...new Set(lastStates(ts).map((e) => `${e.kind} ${e.entity}`))].sort();
    expect(about(transitions)).toEqual(about(plain));
  });
});
