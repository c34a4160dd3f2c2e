/**
 * The fleet's reads ahead (the small answers of every cluster's window in one statement per
 * table, every cluster's newest Iceberg answer in one go) change no line: the fleet of a reader
 * that offers them equals the fleet of the same reader without them, on SQLite and on
 * PostgreSQL, at instants inside and after the recording and with short and long windows; on
 * PostgreSQL with fewer round trips.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHistoryReader, openDatabase, type FlightrecDb } from '../../src/db/index.ts';
import type { PgSyncDatabase } from '../../src/db/engines/pg/sync-database.ts';
import { parseTimeText } from '../../src/api/time-text.ts';
import { fleetStatus, type FleetReader } from '../../src/report/fleet.ts';
import { SmallRowsAhead, type SmallTable } from '../../src/db/read/small-rows-ahead.ts';
import { NarrowFrameReader } from '../../src/db/connections/narrow-frames.ts';
import { CounterVersionLoader } from '../../src/db/connections/counter-versions.ts';
import { Resolver } from '../../src/db/encoding/dictionary.ts';
import type { PollRow } from '../../src/api/schema/resources.ts';
import { recordClusters, tempDir } from '../fixtures/timeline/run-cli.ts';
import { describeWithServer, freshPgTarget, type PgTarget } from '../helpers/pg.ts';

/** Three clusters with incidents of different kinds (shadow link, Iceberg catalog, upgrade), and one never recorded by name. */
const CLUSTERS = [
  { cluster: 'dc-shadow', scenario: 'shadow-link', for: '5m', seed: '21' },
  { cluster: 'lake', scenario: 'iceberg', for: '5m', seed: '22' },
  { cluster: 'prod-up', scenario: 'rolling-upgrade', for: '5m', seed: '23' },
] as const;

async function record(db: string): Promise<void> {
  await recordClusters(db, CLUSTERS, 30);
}

/** The reader without its reads ahead: every read as each line alone makes it. */
function withoutReadAhead(reader: FleetReader): FleetReader {
  return {
    clusters: () => reader.clusters(),
    stateAt: (...a) => reader.stateAt(...a),
    recentPolls: (q) => reader.recentPolls(q),
    reconstructAnswer: (id) => reader.reconstructAnswer(id),
    newestPolls: (q) => reader.newestPolls!(q),
    connectionVersionsAt: (at, o) => reader.connectionVersionsAt!(at, o),
    polls: (q) => reader.polls(q),
    samples: (r, q) => reader.samples(r, q),
    connectionFrames: (q) => reader.connectionFrames!(q),
    rollups: () => reader.rollups!(),
    consistent: (fn) => reader.consistent!(fn),
  };
}

const t = (s: string): bigint => parseTimeText(s, 0n);
/** inside the incidents, near the end, and long after the recording */
const CASES = [
  { at: t('2026-01-01T00:02:15Z'), window: 60_000_000_000n },
  { at: t('2026-01-01T00:02:15Z'), window: 6n * 3_600_000_000_000n },
  { at: t('2026-01-01T00:04:40Z'), window: 6n * 3_600_000_000_000n },
  { at: t('2026-03-01T00:00:00Z'), window: 120_000_000_000n },
];

function expectSameFleets(db: FlightrecDb): void {
  const reader = createHistoryReader(db);
  for (const c of CASES) {
    const fleet = fleetStatus(reader, c);
    expect(fleet.lines.map((l) => l.cluster).sort()).toEqual(CLUSTERS.map((x) => x.cluster).sort());
    expect(fleet).toEqual(fleetStatus(withoutReadAhead(reader), c));
    // a subset, and events off
    expect(fleetStatus(reader, { ...c, clusters: ['lake'] })).toEqual(
      fleetStatus(withoutReadAhead(reader), { ...c, clusters: ['lake'] }),
    );
    expect(fleetStatus(reader, { ...c, events: false })).toEqual(
      fleetStatus(withoutReadAhead(reader), { ...c, events: false }),
    );
  }
}

describe('fleet reads ahead on SQLite', () => {
  const tmp = tempDir();
  const file = tmp.path('fleet.db');
  beforeAll(() => record(file), 240_000);
  afterAll(() => tmp.remove());

  it('gives the same lines as without them', () => {
    const db = openDatabase(file, { readonly: true });
    try {
      expectSameFleets(db);
      expectChunksRight(db);
      expectPinBoundRight(db);
      expectFramePinRight(db);
      expectDocsRight(db);
    } finally {
      db.close();
    }
  }, 120_000);
});

/**
 * The shadow links of a scan (their rows read ahead, the documents they name with them in one
 * statement) and of a fleet's read ahead are the links each poll's answer gives read alone.
 */
function expectDocsRight(db: FlightrecDb): void {
  const scan = createHistoryReader(db);
  const linkSamples = [...scan.samples('shadow-links', { cluster: 'dc-shadow', since: 0n, until: 2n ** 62n })];
  expect(linkSamples.length).toBeGreaterThan(4);
  const alone = createHistoryReader(db);
  const want = linkSamples.map(
    (s) => (alone.reconstructAnswer(s.poll.id).answer as { shadowLink: unknown }).shadowLink,
  );
  expect(linkSamples.map((s) => s.row)).toEqual(want);
  const ahead = createHistoryReader(db);
  const got = ahead.consistent(() => {
    ahead.readAheadWindows(CLUSTERS.map((c) => ({ cluster: c.cluster, since: 0n, until: 2n ** 62n })));
    return linkSamples.map((s) => (ahead.reconstructAnswer(s.poll.id).answer as { shadowLink: unknown }).shadowLink);
  });
  expect(got).toEqual(want);
}

/** A lean frame reader of its own (its own version cache). */
function frameReader(db: FlightrecDb): NarrowFrameReader {
  const resolver = new Resolver(db.sqlite);
  return new NarrowFrameReader(db.sqlite, new CounterVersionLoader(db, resolver), (stmt, ...args) =>
    db.engine.prefetch(stmt, ...args),
  );
}

/**
 * The connection frames pinned for every cluster's window (read at once) are the frames read
 * without: read in the order pinned, in another order, a few polls and one poll at a time, and past the bounds
 * of frames and of bytes held. Returns the round trips of the reads in the order pinned, per bound
 * (PostgreSQL; 0 on SQLite).
 */
function expectFramePinRight(db: FlightrecDb): Map<number, number> {
  const reader = createHistoryReader(db);
  const groups: PollRow[][] = CLUSTERS.map((c) =>
    reader.polls({ cluster: c.cluster }).filter((p) => p.operation === 'ListKafkaConnections' && p.outcome === 'ok'),
  );
  expect(groups.every((g) => g.length > 4)).toBe(true);
  const inRead = <T>(fn: () => T): T => db.sqlite.transaction(fn).deferred();
  const plain = frameReader(db);
  const want = inRead(() => groups.map((g) => plain.framesOf(g)));
  expect(want.flat().length).toBe(groups.flat().length);
  const handle = db.sqlite as unknown as Partial<PgSyncDatabase>;
  const trips = new Map<number, number>();
  const total = groups.flat().length;
  // bounds of frames held (their bytes unbounded), then of bytes held (kilobytes of id lists and heads)
  const frameBounds = [0, groups[0]!.length, groups[0]!.length + 1, total].map((n) => [n, Infinity] as const);
  const byteBounds = [0, 1, 512, 2048, 8192, 65_536].map((n) => [total, n] as const);
  for (const [bound, bytes] of [...frameBounds, ...byteBounds]) {
    const r = frameReader(db);
    const got = inRead(() => {
      r.pin(
        groups.flatMap((g) => g.map((p) => Number(p.id))),
        bound,
        bytes,
      );
      const before = handle.waits?.count ?? 0;
      const frames = groups.map((g) => r.framesOf(g));
      if (bytes === Infinity) trips.set(bound, (handle.waits?.count ?? 0) - before);
      r.unpin();
      return frames;
    });
    expect(got).toEqual(want);
    // in another order, a few polls at a time and one at a time (a poll held without its frame would show)
    for (const step of [3, 1]) {
      const other = frameReader(db);
      const reversed = inRead(() => {
        other.pin(
          groups.flatMap((g) => g.map((p) => Number(p.id))),
          bound,
          bytes,
        );
        const out = [...groups].reverse().map((g) => {
          const frames = [];
          for (let i = 0; i < g.length; i += step) frames.push(...other.framesOf(g.slice(i, i + step)));
          return frames;
        });
        other.unpin();
        return out.reverse();
      });
      expect(reversed, `bound ${bound} frames, ${bytes} bytes, ${step} at a time`).toEqual(want);
    }
  }
  return trips;
}

/** More ranges than one statement reads: the chunks put together answer as one per cluster. */
function expectChunksRight(db: FlightrecDb): void {
  const reader = createHistoryReader(db);
  const names = CLUSTERS.map((c) => c.cluster);
  const many = Array.from({ length: 12 }, () => names).flat();
  const until = CASES[2]!.at;
  // 36 ranges read ahead (two statements) and kept for the transaction: the lines read from them are those read without
  const alone = (): unknown[] => names.map((c) => fleetStatus(withoutReadAhead(reader), { at: until, clusters: [c] }));
  const plain = alone();
  reader.consistent(() => {
    reader.readAheadWindows(many.map((cluster) => ({ cluster, since: 0n, until })));
    expect(alone()).toEqual(plain);
  });
}

const SMALL_TABLES: readonly SmallTable[] = [
  'link',
  'tasks',
  'topics',
  'partitions',
  'upgrade',
  'members',
  'iceberg',
  'icebergTopics',
  'icebergPartitions',
];

/**
 * Past its bound of rows held, `pin` leaves the rest to be read as before: every poll's rows are the same.
 * With `stride`, every stride-th poll of each operation only (still far more polls than the
 * largest bound, every table among them): on PostgreSQL each read past the bound is a round trip, some 20,000 for all
 * 462 polls (8 s).
 */
function expectPinBoundRight(db: FlightrecDb, stride = 1): void {
  const seen = new Map<string, number>();
  const polls = db.sqlite
    .prepare<[], [bigint, string]>(
      `SELECT id, operation FROM poll WHERE ok = 1 AND operation <> 'ListKafkaConnections' ORDER BY id`,
    )
    .raw()
    .safeIntegers()
    .all()
    .map(([id, operation]) => ({ id: Number(id), operation }))
    // every stride-th poll of each operation
    .filter((p) => {
      const n = seen.get(p.operation) ?? 0;
      seen.set(p.operation, n + 1);
      return n % stride === 0;
    });
  expect(polls.length).toBeGreaterThan(10);
  const plain = new SmallRowsAhead(db.sqlite);
  const want = polls.map((p) => SMALL_TABLES.map((t) => plain.rows(t, p.id)));
  expect(want.flat(2).length).toBeGreaterThan(20);
  // every table holds rows of some poll: each is read past the bounds
  expect(SMALL_TABLES.filter((_, k) => want.every((w) => w[k]!.length === 0))).toEqual([]);
  for (const bound of [0, 1, 7, 20]) {
    const held = new SmallRowsAhead(db.sqlite);
    held.pin(polls, bound);
    expect(polls.map((p) => SMALL_TABLES.map((t) => held.rows(t, p.id)))).toEqual(want);
  }
}

describeWithServer('fleet reads ahead on PostgreSQL', () => {
  let pgt: PgTarget;
  beforeAll(async () => {
    pgt = await freshPgTarget({ migrated: true });
    await record(pgt.target);
  }, 300_000);
  afterAll(() => pgt.drop());

  it('gives the same lines as without them, in fewer round trips', () => {
    const db = openDatabase(pgt.target, { readonly: true });
    try {
      expectSameFleets(db);
      expectChunksRight(db);
      expectPinBoundRight(db, 4);
      expectDocsRight(db);
      const frameTrips = expectFramePinRight(db);
      // every frame pinned: the frames read in one statement with the pin, none per cluster
      const all = Math.max(...frameTrips.keys());
      expect(frameTrips.get(all)).toBeLessThan(frameTrips.get(0)!);
      const handle = db.sqlite as unknown as PgSyncDatabase;
      const trips = (reader: FleetReader): number => {
        const before = handle.waits.count;
        fleetStatus(reader, CASES[2]!);
        return handle.waits.count - before;
      };
      const reader = createHistoryReader(db);
      const alone = trips(withoutReadAhead(reader));
      const ahead = trips(reader);
      expect(ahead).toBeLessThan(alone);
    } finally {
      db.close();
    }
  }, 120_000);
});
