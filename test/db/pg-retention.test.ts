/**
 * Retention on PostgreSQL drops whole day partitions. Two clusters are recorded over five past
 * UTC days (explicit poll ids `(day << 32) + n`, the days' partitions made first): `other` has
 * a day only older upgrade polls hold (it goes), a day held by an open connection batch and a day
 * holding its operations' newest polls (both stay); `sim` plays the incident scenario across a
 * midnight, the retention cut-off a few minutes after it. The same recording is pruned twice: by
 * the collector's retention runner (partitions dropped, then rows) and by row deletion only. The
 * first drops the partitions of exactly the expected days, logs them, and leaves the same polls,
 * batches, identities, versions and documents as the second; every poll left reads as recorded;
 * trends and the timeline over the pruned window answer from the rollups, as on SQLite.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperationName, RequestOf, ResponseOf } from '../../src/api/schema/operations.ts';
import { emptyStats, RetentionRunner } from '../../src/collector/index.ts';
import {
  createHistoryReader,
  createHistoryWriter,
  createRollupStore,
  openDatabase,
  readMaintenanceLog,
  RetentionPruner,
  type FlightrecDb,
  type PollRecord,
} from '../../src/db/index.ts';
import {
  dayPartitionsOf,
  dayPartitionStatements,
  droppedPartitionsOf,
  type PartitionDrop,
} from '../../src/db/engines/pg/partition-retention.ts';
import { PARTITIONED_TABLES } from '../../src/db/engines/pg/partitions.ts';
import { createRollUp } from '../../src/report/rollup/index.ts';
import { buildTimeline, type Timeline } from '../../src/report/timeline/timeline.ts';
import type { TimelineEvent } from '../../src/report/timeline/types.ts';
import { computeTrends, type MetricName, type TrendsResult } from '../../src/report/trends/index.ts';
import { recordSim } from '../fixtures/timeline/sim-recorder.ts';
import { generateConnectionPolls } from '../helpers/connection-answers.ts';
import { copyOfPgTarget, describeWithServer, freshPgTarget } from '../helpers/pg.ts';
import { LIST_REQUEST, okRecord } from './fixtures.ts';
import { shadowLinkAnswer, upgradeAnswer } from './small-answers.ts';

const S = 1_000_000_000n;
const MIN = 60n * S;
const DAY = 86_400n * S;
const RAW_MS = 10 * 60_000;

const REQUESTS: { [N in OperationName]: (target: string) => RequestOf<N> } = {
  ListKafkaConnections: () => ({ filter: '', orderBy: '', pageSize: 20_000 }),
  GetShadowLink: (name) => ({ name }),
  ListShadowTopics: (shadowLinkName) => ({ shadowLinkName }),
  GetShadowTopic: (target) => ({ shadowLinkName: target.split('/')[0] ?? '', name: target.split('/')[1] ?? '' }),
  GetUpgradeStatus: () => ({}),
  GetIcebergStatus: () => ({ topicsFilter: [] }),
};

const CASES: readonly [MetricName, string][] = [
  ['produce-bytes', 'client'],
  ['requests', 'principal'],
  ['connections', 'broker'],
  ['shadow-lag', 'topic'],
];

/** The first of the five days: `other` records on A..A+2, `sim` from A+3 23:48 to A+4 00:13. */
const A = Math.floor(Date.now() / 86_400_000) - 7;
const at = (day: number, minutes: number): bigint => BigInt(day) * DAY + BigInt(minutes) * MIN;
const simStart = at(A + 4, -12);
const simEnd = simStart + 1500n * S;
const cutoff = at(A + 4, 5);
const now = cutoff + BigInt(RAW_MS) * 1_000_000n;
const dayName = (d: number): string => new Date(d * 86_400_000).toISOString().slice(0, 10).replace(/-/g, '');

/** Records into `target` (the writer closes its database): the polls' answers by id. */
function record(target: string): Map<bigint, unknown> {
  const db = openDatabase(target);
  for (let d = A; d <= A + 4; d++) for (const sql of dayPartitionStatements(d)) db.sqlite.exec(sql);
  const writer = createHistoryWriter(db, { batchFrames: 3 });
  const answers = new Map<bigint, unknown>();
  let n = 0;
  const write = (r: PollRecord): void => {
    const id = (BigInt(Math.floor(Number(r.startedAt / DAY))) << 32n) + BigInt(++n);
    expect(writer.writePoll({ ...r, id })).toBe(id);
    answers.set(id, r.outcome.ok ? r.outcome.answer : undefined);
  };
  const conns = generateConnectionPolls({ connections: 30, churn: 0.1, polls: 5, seed: 3 });
  const other = { cluster: 'other', request: {} };
  // day A: only upgrade polls (newer ones follow) and a shadow link whose document later changes
  write(okRecord('GetUpgradeStatus', upgradeAnswer(0), { ...other, at: at(A, 600) }));
  write(okRecord('GetUpgradeStatus', upgradeAnswer(1), { ...other, at: at(A, 610) }));
  const link = { cluster: 'other', request: { name: 'dr-link' }, target: 'dr-link' };
  write(okRecord('GetShadowLink', shadowLinkAnswer(0), { ...link, at: at(A, 620) }));
  // day A+1: a sealed batch of three frames, and a fourth frame in the batch left open on A+2
  conns.slice(0, 4).forEach((p, i) =>
    write(
      okRecord('ListKafkaConnections', p.answer, {
        cluster: 'other',
        request: LIST_REQUEST,
        at: at(A + 1, 1400 + i * 5),
      }),
    ),
  );
  // day A+2: the operations' newest polls
  write(
    okRecord('ListKafkaConnections', conns[4]!.answer, { cluster: 'other', request: LIST_REQUEST, at: at(A + 2, 5) }),
  );
  write(okRecord('GetUpgradeStatus', upgradeAnswer(2), { ...other, at: at(A + 2, 10) }));
  write(okRecord('GetShadowLink', shadowLinkAnswer(1), { ...link, at: at(A + 2, 15) }));
  // days A+3 and A+4: the simulated cluster, 25 minutes across their midnight
  const rec = recordSim('incident', { seed: 11, connections: 20, seconds: 1500 });
  for (const p of rec.polls) {
    if (p.answer === undefined) continue;
    const op = p.poll.operation as OperationName;
    const answer = p.answer as ResponseOf<typeof op>;
    const list = op === 'ListKafkaConnections' ? (answer as ResponseOf<'ListKafkaConnections'>) : undefined;
    const t = p.poll.startTime - rec.start + simStart;
    write({
      cluster: 'sim',
      operation: op,
      target: p.poll.target,
      request: REQUESTS[op](p.poll.target),
      round: `r${t}`,
      attempt: 1,
      scheduledAt: t,
      startedAt: t,
      endedAt: t + S / 10n,
      outcome: { ok: true, answer, bytes: 0 },
      ...(list === undefined
        ? {}
        : {
            coverage: { rowsReturned: list.connections.length, totalSize: list.totalSize, fanoutCalls: 1, slice: '' },
          }),
    });
  }
  writer.close();
  return answers;
}

/** Rows left in the tables retention cleans (besides the polls). */
function leftovers(db: FlightrecDb): Record<string, unknown> {
  const q = (sql: string): unknown => db.sqlite.prepare(sql).pluck().all();
  return {
    polls: q('SELECT id FROM poll ORDER BY id'),
    batches: q('SELECT id FROM conn_batch ORDER BY id'),
    chunks: q('SELECT count(*) FROM conn_chunk'),
    entities: q('SELECT id FROM conn_entity ORDER BY id'),
    versions: q('SELECT id FROM conn_version ORDER BY id'),
    documents: q('SELECT id FROM doc ORDER BY id'),
    frames: q('SELECT poll FROM conn_frame ORDER BY poll'),
  };
}

/** One retention pass at `now`, rollups first (for the simulated cluster: the other has nothing to sum up). */
async function retain(db: FlightrecDb, store: RetentionPruner): Promise<void> {
  const reader = createHistoryReader(db);
  const rollUp = createRollUp(reader, createRollupStore(db));
  const lines: string[] = [];
  const runner = new RetentionRunner({
    retention: { rawMs: RAW_MS, rollupsMs: null, maxSizeBytes: null },
    store,
    stats: emptyStats(),
    nowNs: () => now,
    line: (l) => lines.push(l),
    rollUp: (cluster, until) => (cluster === 'sim' ? rollUp(cluster, until) : undefined),
  });
  await runner.run(now);
  expect(lines).toEqual([]);
  // the runner cleans a cluster at most hourly: finish every cluster's cleanup, so both prunes compare
  for (const cluster of store.clusters()) while (store.cleanup(cluster, 4096).more);
}

/** The pruner, remembering what it dropped. */
class WatchedPruner extends RetentionPruner {
  readonly drops: PartitionDrop[] = [];
  override dropPartitions(cutoff: bigint): PartitionDrop {
    const r = super.dropPartitions(cutoff);
    this.drops.push(r);
    return r;
  }
}
let partitionPruner: WatchedPruner | undefined;

/** Row deletion only: the pruner as on an engine without partitions. */
class RowPruner extends RetentionPruner {
  override partitioned(): boolean {
    return false;
  }
}

describeWithServer('retention on PostgreSQL drops day partitions', () => {
  let dropped: FlightrecDb;
  let rows: FlightrecDb;
  let answers: Map<bigint, unknown>;
  const before: { trends: Map<string, TrendsResult>; timeline?: Timeline } = { trends: new Map() };

  beforeAll(async () => {
    // one recording, and a copy of it for the row-deleting pruner: the same polls, ids and rows
    const recorded = await freshPgTarget({ migrated: true });
    answers = record(recorded.target);
    const targets = [recorded.target, (await copyOfPgTarget(recorded)).target];
    dropped = openDatabase(targets[0]!);
    rows = openDatabase(targets[1]!);
    const reader = createHistoryReader(dropped);
    for (const [metric, by] of CASES)
      before.trends.set(
        `${metric}/${by}`,
        computeTrends(reader, { metric, by, since: simStart, until: simEnd, cluster: 'sim' }),
      );
    before.timeline = buildTimeline(reader, { cluster: 'sim', since: simStart, until: simEnd });
    partitionPruner = new WatchedPruner(dropped);
    await retain(dropped, partitionPruner);
    await retain(rows, new RowPruner(rows));
  }, 600_000);
  afterAll(() => {
    dropped?.close();
    rows?.close();
  });

  it('drops the partitions of the days whose every poll goes, and only those', () => {
    const days = new Set(dayPartitionsOf(dropped.sqlite).map((p) => p.day));
    expect([A, A + 1, A + 2, A + 3, A + 4].filter((d) => days.has(d))).toEqual([A + 1, A + 2, A + 4]);
    for (const d of [A + 1, A + 2, A + 4])
      expect(dayPartitionsOf(dropped.sqlite).filter((p) => p.day === d)).toHaveLength(PARTITIONED_TABLES.length);
    // the row-only prune kept them all
    expect(new Set(dayPartitionsOf(rows.sqlite).map((p) => p.day)).has(A)).toBe(true);
  });

  it('leaves what row deletion leaves: polls, batches, chunks, identities, versions, documents', () => {
    const left = leftovers(dropped);
    const expected = leftovers(rows);
    for (const [k, v] of Object.entries(expected)) expect(left[k], k).toEqual(v);
    // the open batch holds day A+1; day A's link document went with its poll
    const polls = left.polls as number[];
    expect(polls.some((id) => Math.floor(id / 2 ** 32) === A + 1)).toBe(true);
    expect(polls.some((id) => Math.floor(id / 2 ** 32) === A)).toBe(false);
    expect(polls.some((id) => Math.floor(id / 2 ** 32) === A + 3)).toBe(false);
  });

  it('keeps protected polls, and every poll left reads as recorded', () => {
    const reader = createHistoryReader(dropped);
    const ids = dropped.sqlite.prepare('SELECT id FROM poll ORDER BY id').pluck().safeIntegers().all() as bigint[];
    // other: the open batch's two frames, the newest upgrade and shadow link polls
    const other = dropped.sqlite
      .prepare(
        "SELECT operation FROM poll p JOIN cluster c ON c.id = p.cluster_id WHERE c.name = 'other' ORDER BY p.id",
      )
      .pluck()
      .all();
    expect(other).toEqual(['ListKafkaConnections', 'ListKafkaConnections', 'GetUpgradeStatus', 'GetShadowLink']);
    expect(ids.length).toBeGreaterThan(20);
    for (const id of ids) expect(reader.reconstructAnswer(id).answer, `poll ${id}`).toEqual(answers.get(id));
  });

  it('logs each dropped day with its cut-off (the day end), the raw prune after it', () => {
    const log = readMaintenanceLog(dropped.sqlite);
    const days = log.filter((e) => e.action === 'retention-partitions');
    expect(days.map((e) => e.cutoff)).toEqual([BigInt(A + 1) * DAY, BigInt(A + 4) * DAY]);
    for (const e of days) {
      expect(e.polls).toBeGreaterThan(0);
      expect(e.samples).toBeGreaterThan(0);
      expect(e.bytes).toBeGreaterThan(0);
    }
    expect(log.filter((e) => e.action === 'retention-raw').map((e) => e.cluster)).toContain('sim');
    expect(readMaintenanceLog(rows.sqlite).some((e) => e.action === 'retention-partitions')).toBe(false);
    // the names the log gives are the partitions dropped, gone from the catalog
    const names = days.map((e) => droppedPartitionsOf(e.cutoff!));
    const sorted = (lists: readonly (readonly string[])[]): string[][] => lists.map((l) => [...l].sort());
    expect(sorted(names)).toEqual(sorted(partitionPruner!.drops.flatMap((d) => d.days.map((x) => x.partitions))));
    expect(names.flat()).toContain(`poll_d${dayName(A)}`);
    expect(names.flat()).toContain(`conn_frame_d${dayName(A + 3)}`);
    const present = new Set(dayPartitionsOf(dropped.sqlite).map((p) => p.name));
    expect(names.flat().filter((n) => present.has(n))).toEqual([]);
  });

  it.each(CASES)('trends %s by %s over the pruned window answer from rollups, as row deletion does', (metric, by) => {
    const raw = before.trends.get(`${metric}/${by}`)!;
    const mixed = computeTrends(createHistoryReader(dropped), {
      metric,
      by,
      since: simStart,
      until: simEnd,
      cluster: 'sim',
    });
    expect(mixed).toEqual(
      computeTrends(createHistoryReader(rows), { metric, by, since: simStart, until: simEnd, cluster: 'sim' }),
    );
    expect(mixed.rollups?.resolution).toBe(300);
    expect(raw.rows.length).toBeGreaterThan(0);
    expect(mixed.rows.map((r) => r.key).sort()).toEqual(raw.rows.map((r) => r.key).sort());
    const near = (a: number, b: number): boolean => Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b), 1);
    expect(near(mixed.overall, raw.overall)).toBe(true);
  });

  it('timeline events of the pruned window survive, from the rollups', () => {
    const key = (e: TimelineEvent): string => `${e.kind} ${e.entity} ${e.start} ${e.end} ${e.description}`;
    const old = before.timeline!.events.filter((e) => e.end !== null && e.end < cutoff);
    expect(old.length).toBeGreaterThan(0);
    const after = buildTimeline(createHistoryReader(dropped), { cluster: 'sim', since: simStart, until: simEnd });
    expect(after.rollups?.resolution).toBe(300);
    const kept = new Set(after.events.map(key));
    expect(old.map(key).filter((k) => !kept.has(k))).toEqual([]);
    expect(after).toEqual(buildTimeline(createHistoryReader(rows), { cluster: 'sim', since: simStart, until: simEnd }));
  });
});

describeWithServer('retention on PostgreSQL when a reader holds the partitioned tables', () => {
  it('gives the drop up after its lock time-out and deletes the rows instead; the next pass drops the day', async () => {
    const target = (await freshPgTarget({ migrated: true })).target;
    const db = openDatabase(target);
    for (const d of [A, A + 1]) for (const sql of dayPartitionStatements(d)) db.sqlite.exec(sql);
    const writer = createHistoryWriter(db);
    const write = (day: number, n: number, minutes: number): void => {
      const id = (BigInt(day) << 32n) + BigInt(n);
      writer.writePoll({
        ...okRecord('GetUpgradeStatus', upgradeAnswer(n), { request: {}, at: at(day, minutes) }),
        id,
      });
    };
    write(A, 1, 60);
    write(A, 2, 70);
    write(A + 1, 3, 10);
    writer.close();
    const store = openDatabase(target);
    const pruner = new RetentionPruner(store);
    const lines: string[] = [];
    const pass = (): Promise<void> =>
      new RetentionRunner({
        retention: { rawMs: 60_000, rollupsMs: null, maxSizeBytes: null },
        store: pruner,
        stats: emptyStats(),
        nowNs: () => at(A + 1, 30),
        line: (l) => lines.push(l),
      }).run(at(A + 1, 30));
    const reader = new pg.Client({ connectionString: new URL(target).toString() });
    await reader.connect();
    try {
      await reader.query('BEGIN');
      await reader.query('SELECT count(*) FROM poll');
      await pass();
      expect(lines.join('\n')).toMatch(/dropping day partitions failed, their rows are pruned instead: .*lock/);
      const polls = store.sqlite.prepare('SELECT id FROM poll ORDER BY id').pluck().safeIntegers().all();
      expect(polls).toEqual([(BigInt(A + 1) << 32n) + 3n]);
      expect(dayPartitionsOf(store.sqlite).some((p) => p.day === A)).toBe(true);
      await reader.query('COMMIT');
      await pass();
      expect(dayPartitionsOf(store.sqlite).some((p) => p.day === A)).toBe(false);
      expect(readMaintenanceLog(store.sqlite).map((e) => e.action)).toEqual(['retention-raw', 'retention-partitions']);
    } finally {
      await reader.end();
      store.close();
    }
  }, 300_000);
});

describe('retention on any PostgreSQL (PGlite without a server)', () => {
  it('drops a day whose polls all go, keeps the day of the newest poll, and logs it', async () => {
    const target = (await freshPgTarget({ migrated: true })).target;
    const db = openDatabase(target);
    for (const d of [A, A + 1]) for (const sql of dayPartitionStatements(d)) db.sqlite.exec(sql);
    const writer = createHistoryWriter(db);
    const answers = [0, 1, 2].map((n) =>
      okRecord('GetUpgradeStatus', upgradeAnswer(n), { request: {}, at: at(A + (n === 2 ? 1 : 0), 10 + n) }),
    );
    answers.forEach((r, n) => writer.writePoll({ ...r, id: (BigInt(A + (n === 2 ? 1 : 0)) << 32n) + BigInt(n + 1) }));
    writer.close();
    const store = openDatabase(target);
    try {
      await new RetentionRunner({
        retention: { rawMs: 60_000, rollupsMs: null, maxSizeBytes: null },
        store: new RetentionPruner(store),
        stats: emptyStats(),
        nowNs: () => at(A + 1, 30),
      }).run(at(A + 1, 30));
      const days = new Set(dayPartitionsOf(store.sqlite).map((p) => p.day));
      expect([days.has(A), days.has(A + 1)]).toEqual([false, true]);
      const ids = store.sqlite.prepare('SELECT id FROM poll').pluck().safeIntegers().all() as bigint[];
      expect(ids).toEqual([(BigInt(A + 1) << 32n) + 3n]);
      expect(createHistoryReader(store).reconstructAnswer(ids[0]!).answer).toEqual(upgradeAnswer(2));
      const log = readMaintenanceLog(store.sqlite);
      expect(log).toMatchObject([{ action: 'retention-partitions', polls: 2, cutoff: BigInt(A + 1) * DAY }]);
      expect(droppedPartitionsOf(log[0]!.cutoff!)).toContain(`poll_d${dayName(A)}`);
    } finally {
      store.close();
    }
  }, 300_000);
});
