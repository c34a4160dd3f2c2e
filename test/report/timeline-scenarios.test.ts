/**
 * Every built-in scenario recorded by the collector from the simulated cluster (accelerated
 * time, into a real database), then the timeline read back through the store: each injected
 * incident is reported with the right kind and entity, starting within one poll interval of
 * the injection and ending within one poll interval of its resolution; `quiet` has nothing
 * above info.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createHistoryReader, openDatabase } from '../../src/db/index.ts';
import { buildTimeline, type TimelineSource } from '../../src/report/timeline/timeline.ts';
import { severityRank } from '../../src/report/timeline/types.ts';
import { BUILTIN_SCENARIOS, createWorld, DEFAULT_START_NS, loadScenario } from '../../src/sim/index.ts';
import { describeEvent, expectationsFor, matching } from '../fixtures/timeline/expectations.ts';
import { recordScenario, tempDir } from '../fixtures/timeline/run-cli.ts';

const S = 1_000_000_000n;
/** Every operation is polled every 30 s in these recordings. */
const POLL_INTERVAL = 30n * S;
/**
 * The call deadline is real time while the simulated clock runs as fast as possible: each call
 * into api-faults' `slow` window waits the whole deadline, about fifty of them. Half a second
 * still times out against the 15 s delay and keeps the recording to seconds instead of minutes.
 */
const EXTRA_ARGS: Record<string, readonly string[]> = { 'api-faults': ['--timeout', '500ms'] };

const tmp = tempDir();
afterAll(() => tmp.remove());

function timelineOf(db: string) {
  const handle = openDatabase(db, { readonly: true });
  try {
    return buildTimeline(createHistoryReader(handle) as unknown as TimelineSource, {});
  } finally {
    handle.close();
  }
}

describe('timeline over every built-in scenario', () => {
  it('has a test for every built-in scenario', () => {
    expect([...BUILTIN_SCENARIOS].sort()).toEqual(
      [
        'api-faults',
        'auth-failures',
        'broker-outage',
        'connection-storm',
        'consumer-idle',
        'iceberg',
        'incident',
        'quiet',
        'rolling-upgrade',
        'shadow-link',
      ].sort(),
    );
  });

  for (const name of BUILTIN_SCENARIOS) {
    it(`${name}: reports each injected incident, in time`, async () => {
      const scenario = loadScenario(name);
      const duration = `${(scenario.duration ?? 600n * S) / S}s`;
      const db = tmp.path(`${name}.db`);
      await recordScenario(db, name, duration, EXTRA_ARGS[name] ?? []);
      const timeline = timelineOf(db);
      const start = DEFAULT_START_NS;
      const world = createWorld({ seed: 1, scenario }).describe();
      const shadowTopics: Record<string, string[]> = {};
      for (const t of world.topics) (shadowTopics[t.link] ??= []).push(t.topic);
      const expectations = expectationsFor(scenario, {
        start,
        brokers: world.brokers,
        links: world.links,
        shadowTopics,
      });
      // only api-faults serves a uid twice; the collector's fan-out rounds must not look like it
      if (name !== 'api-faults')
        expect(
          timeline.events.filter((e) => e.kind === 'api.duplicate-uids').map((e) => describeEvent(e, start)),
        ).toEqual([]);
      if (name === 'quiet') {
        const loud = timeline.events.filter((e) => severityRank(e.severity) > severityRank('info'));
        expect(loud.map((e) => describeEvent(e, start))).toEqual([]);
        return;
      }
      expect(expectations.length).toBeGreaterThan(0);
      const missing: string[] = [];
      for (const x of expectations) {
        if (matching(timeline.events, x, POLL_INTERVAL).length > 0) continue;
        const candidates = timeline.events
          .filter((e) => x.kinds.includes(e.kind) && x.entity(e.entity))
          .map((e) => describeEvent(e, start));
        missing.push(
          `${x.label} ${x.kinds.join('|')} at ${Number(x.start - start) / 1e9}s..${x.end === undefined ? '-' : `${Number(x.end - start) / 1e9}s`} ${x.state ?? ''}; candidates: ${candidates.join('; ') || 'none'}`,
        );
      }
      expect(missing).toEqual([]);
    }, 180_000);
  }
});
