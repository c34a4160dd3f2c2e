/**
 * Rollups end to end on a real SQLite file: the simulated cluster plays the incident scenario in
 * accelerated time, its answers are recorded, `rollUp` summarises the first 14 minutes and the
 * maintenance prune removes them. Trends over the whole recording, read partly from rollups,
 * equal the raw answer over the same range (within the resolution's rounding), and the
 * incidents of the pruned part stay on the timeline.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperationName, RequestOf } from '../../src/api/schema/operations.ts';
import type { ResponseOf } from '../../src/api/schema/operations.ts';
import {
  createHistoryReader,
  createHistoryWriter,
  createRollupStore,
  openDatabase,
  openHistoryMaintenance,
  type FlightrecDb,
  type HistoryReader,
  type PollRecord,
} from '../../src/db/index.ts';
import { createRollUp } from '../../src/report/rollup/index.ts';
import { renderTimelineText } from '../../src/report/render/timeline-text.ts';
import { trendsToJson } from '../../src/report/render/trends-json.ts';
import { summarize } from '../../src/report/summary.ts';
import { buildTimeline, type Timeline } from '../../src/report/timeline/timeline.ts';
import type { TimelineEvent } from '../../src/report/timeline/types.ts';
import { computeTrends, type MetricName, type TrendsResult } from '../../src/report/trends/index.ts';
import { tempDbPath } from '../db/fixtures.ts';
import { recordSim } from '../fixtures/timeline/sim-recorder.ts';

const S = 1_000_000_000n;
const MIN = 60n * S;

const REQUESTS: { [N in OperationName]: (target: string) => RequestOf<N> } = {
  ListKafkaConnections: () => ({ filter: '', orderBy: '', pageSize: 20_000 }),
  GetShadowLink: (name) => ({ name }),
  ListShadowTopics: (shadowLinkName) => ({ shadowLinkName }),
  GetShadowTopic: (target) => ({ shadowLinkName: target.split('/')[0] ?? '', name: target.split('/')[1] ?? '' }),
  GetUpgradeStatus: () => ({}),
  GetIcebergStatus: () => ({ topicsFilter: [] }),
};

let db: FlightrecDb;
let reader: HistoryReader;
let start: bigint;
let end: bigint;
let pruneAt: bigint;
const before: {
  trends: Map<string, TrendsResult>;
  timeline?: Timeline;
  rolledUp?: { trends: TrendsResult; timeline: Timeline };
} = {
  trends: new Map(),
};

const CASES: readonly [MetricName, string][] = [
  ['produce-bytes', 'client'],
  ['fetch-bytes', 'broker'],
  ['requests', 'principal'],
  ['batch-size', 'listener'],
  ['connections', 'broker'],
  ['shadow-lag', 'topic'],
  ['iceberg-lag', 'topic'],
];

beforeAll(async () => {
  const rec = recordSim('incident', { seed: 11, connections: 20, seconds: 1500 });
  start = rec.start;
  const path = tempDbPath('rollups.db', 'file');
  const writer = createHistoryWriter(openDatabase(path));
  for (const p of rec.polls) {
    if (p.answer === undefined) continue;
    const op = p.poll.operation as OperationName;
    const answer = p.answer as ResponseOf<typeof op>;
    const conns = op === 'ListKafkaConnections' ? (answer as ResponseOf<'ListKafkaConnections'>) : undefined;
    const at = p.poll.startTime;
    const record: PollRecord = {
      cluster: 'sim',
      operation: op,
      target: p.poll.target,
      request: REQUESTS[op](p.poll.target),
      round: `r${at}`,
      attempt: 1,
      scheduledAt: at,
      startedAt: at,
      endedAt: at + S / 10n,
      outcome: { ok: true, answer, bytes: 0 },
      ...(conns === undefined
        ? {}
        : {
            coverage: { rowsReturned: conns.connections.length, totalSize: conns.totalSize, fanoutCalls: 1, slice: '' },
          }),
    };
    writer.writePoll(record);
  }
  writer.close();
  db = openDatabase(path);
  reader = createHistoryReader(db);
  end = start + 1500n * S;
  pruneAt = start + 14n * MIN + 7n * S;
  for (const [metric, by] of CASES)
    before.trends.set(
      `${metric}/${by}`,
      computeTrends(reader, { metric, by, since: start, until: end, cluster: 'sim' }),
    );
  before.timeline = buildTimeline(reader, { cluster: 'sim', since: start, until: end });

  const rollUp = createRollUp(reader, createRollupStore(db));
  await rollUp('sim', pruneAt - 5n * MIN);
  await rollUp('sim', pruneAt); // resumes where the first call stopped
  await rollUp('sim', pruneAt); // and does nothing more
  before.rolledUp = {
    trends: computeTrends(reader, { metric: 'requests', by: 'principal', since: start, until: end, cluster: 'sim' }),
    timeline: buildTimeline(reader, { cluster: 'sim', since: start, until: end }),
  };
  openHistoryMaintenance(db).prune(pruneAt);
}, 60_000);
afterAll(() => db.close());

const sameWithin = (a: number, b: number, relative: number): boolean =>
  Math.abs(a - b) <= relative * Math.max(Math.abs(a), Math.abs(b), 1);

describe('rollups', () => {
  it('the prune removed the raw history the rollups now answer for', () => {
    const first = reader.polls({ cluster: 'sim', limit: 1 })[0];
    expect(first).toBeDefined();
    // the prune keeps sealed connection batches whole: the oldest raw poll is a little before pruneAt
    expect(first!.startTime).toBeGreaterThan(start + 10n * MIN);
    const cov = reader.rollups().coverage('sim');
    // 25 minutes of recording: 5-minute buckets, no whole hour yet
    expect(cov.map((c) => c.resolution)).toEqual([300]);
    expect(cov[0]!.until).toBeGreaterThan(pruneAt);
  });

  it('upgrade and link states are kept as intervals that follow each other', () => {
    const states = reader.rollups().states('sim', start, end);
    expect(states.some((s) => s.entity === 'upgrade')).toBe(true);
    expect(states.some((s) => s.entity.startsWith('link/'))).toBe(true);
    for (const entity of new Set(states.map((s) => s.entity))) {
      const runs = states.filter((s) => s.entity === entity);
      expect(runs[0]!.start).toBeLessThanOrEqual(start + MIN);
      runs.slice(1).forEach((r, i) => {
        expect(runs[i]!.end).toBe(r.start);
        expect(runs[i]!.state).not.toBe(r.state);
      });
      expect(runs[runs.length - 1]!.end).toBeNull();
    }
  });

  it('rollups change nothing while raw history is still there', () => {
    expect(before.rolledUp!.trends).toEqual(before.trends.get('requests/principal'));
    expect(before.rolledUp!.timeline).toEqual(before.timeline);
  });

  it('without --since, trends start at the first rollup', () => {
    const r = computeTrends(reader, { metric: 'requests', by: 'broker', cluster: 'sim' });
    expect(r.since).toBe(start);
    expect(r.rollups?.resolution).toBe(300);
  });

  it.each(CASES)('trends %s by %s from rollups equal the raw answer over the same range', (metric, by) => {
    const raw = before.trends.get(`${metric}/${by}`)!;
    const mixed = computeTrends(reader, { metric, by, since: start, until: end, cluster: 'sim' });
    expect(mixed.rollups?.resolution).toBe(300);
    expect(mixed.notes[0]).toMatch(/^from 5m rollups before \d{4}-\d\d-\d\dT/);
    expect(trendsToJson(mixed).rollups).toBeDefined();
    expect(raw.rows.length).toBeGreaterThan(0);
    expect(mixed.rows.map((r) => r.key).sort()).toEqual(raw.rows.map((r) => r.key).sort());
    expect(sameWithin(mixed.overall, raw.overall, 1e-9)).toBe(true);
    for (const r of raw.rows) {
      const m = mixed.rows.find((x) => x.key === r.key)!;
      expect(sameWithin(m.value, r.value, 1e-9), `${r.key}: ${m.value} vs ${r.value}`).toBe(true);
      if (r.detail.increase !== undefined) expect(m.detail.increase).toBe(r.detail.increase);
      if (r.detail.maxLag !== undefined && by === 'partition') expect(m.detail.maxLag).toBe(r.detail.maxLag);
    }
  });

  it('a window wholly inside the pruned part is answered from rollups alone', () => {
    const since = start + 5n * MIN;
    const until = start + 10n * MIN - 1n;
    // the raw answer of the same window, had it not been pruned: the buckets' sum of increases
    const mixed = computeTrends(reader, { metric: 'requests', by: 'broker', since, until, cluster: 'sim' });
    expect(mixed.rollups).toEqual({ resolution: 300, before: until + 1n });
    expect(mixed.rows.length).toBeGreaterThan(0);
    expect(mixed.overall).toBeGreaterThan(0);
  });

  it('timeline events of the pruned part survive, with their times and descriptions', () => {
    const key = (e: TimelineEvent): string => `${e.kind} ${e.entity} ${e.start} ${e.end} ${e.description}`;
    const old = before.timeline!.events.filter((e) => e.end !== null && e.end < pruneAt);
    expect(old.length).toBeGreaterThan(3);
    const after = buildTimeline(reader, { cluster: 'sim', since: start, until: end });
    expect(after.rollups?.resolution).toBe(300);
    const kept = new Set(after.events.map(key));
    expect(old.map(key).filter((k) => !kept.has(k))).toEqual([]);
    expect(renderTimelineText(after, { color: false, width: 200 })).toContain('from 5m rollups before');
  });

  it('summary over the pruned part lists the kept events and says so', () => {
    const s = summarize(reader, { cluster: 'sim', until: end, window: end - start });
    expect(s.rollups?.resolution).toBe(300);
    expect(s.eventCount).toBeGreaterThanOrEqual(
      before.timeline!.events.filter((e) => e.end !== null && e.end < pruneAt).length,
    );
  });
});
