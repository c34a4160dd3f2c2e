/**
 * Copying a recording by recording it again (src/db/maintain/copy.ts): the copy's polls, answers, raw
 * bodies, failures, rollups and maintenance log equal the source's; a copy stopped after any
 * batch and started again ends identical, without a duplicate; a target holding another
 * recording of a cluster is refused untouched; other clusters in the target are left alone.
 */
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { OperationName } from '../../src/api/schema/operations.ts';
import { encodeAnswer, parseAnswer } from '../../src/api/wire/answers.ts';
import {
  CopyConflictError,
  createHistoryReader,
  createHistoryWriter,
  createRollupStore,
  openDatabase,
  openHistoryMaintenance,
  readMaintenanceLog,
  recordMaintenance,
  startHistoryCopy,
  type FlightrecDb,
  type PollRecord,
} from '../../src/db/index.ts';
import { writeExportBundle } from '../../src/report/export/index.ts';
import { generateConnectionPolls } from '../helpers/connection-answers.ts';
import { failedRecord, LIST_REQUEST, okRecord, tempDbPath } from './fixtures.ts';
import { icebergAnswer, shadowLinkAnswer, shadowTopic, upgradeAnswer } from './small-answers.ts';

const T0 = 1_767_225_600_000_000_000n; // 2026-01-01T00:00:00Z
const MIN = 60_000_000_000n;
const encode = encodeAnswer as unknown as (op: OperationName, v: unknown) => string;
const parse = parseAnswer as unknown as (op: OperationName, body: string) => unknown;
const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

const SMALL: { op: OperationName; request: unknown; target: string; answer: (v: number, odd: boolean) => unknown }[] = [
  { op: 'GetShadowLink', request: { name: 'dr-link' }, target: 'dr-link', answer: shadowLinkAnswer },
  {
    op: 'ListShadowTopics',
    request: { shadowLinkName: 'dr-link' },
    target: 'dr-link',
    answer: (v, odd) => ({ shadowTopics: [shadowTopic('orders', v, odd), shadowTopic('audit', v + 2)] }),
  },
  {
    op: 'GetShadowTopic',
    request: { shadowLinkName: 'dr-link', name: 'orders' },
    target: 'dr-link/orders',
    answer: (v, odd) => ({ shadowTopic: shadowTopic('orders', v, odd) }),
  },
  { op: 'GetUpgradeStatus', request: {}, target: '', answer: upgradeAnswer },
  { op: 'GetIcebergStatus', request: { topicsFilter: ['clicks'] }, target: '', answer: icebergAnswer },
];

/** Every kind of poll the store keeps, in two clusters (polls at the same instant in both), then a prune and rollups. */
function recordSource(path: string): void {
  const db = openDatabase(path, { keepRawAnswers: true });
  const writer = createHistoryWriter(db, { batchFrames: 3 });
  const conns = generateConnectionPolls({
    connections: 30,
    polls: 10,
    seed: 5,
    unknownFields: true,
    hugeCounters: true,
  });
  const write = (r: PollRecord): bigint => writer.writePoll(r);
  for (let i = 0; i < 10; i++) {
    const at = T0 + BigInt(i) * MIN;
    for (const cluster of ['prod', 'stage']) {
      const text = encode('ListKafkaConnections', conns[i]!.answer);
      const answer = parse('ListKafkaConnections', text) as never;
      const huge = i === 4 ? 2n ** 64n - 1n : BigInt(conns[i]!.answer.connections.length);
      write({
        ...okRecord('ListKafkaConnections', answer, { at, request: LIST_REQUEST, cluster, raw: i % 3 === 0 }),
        coverage: {
          rowsReturned: conns[i]!.answer.connections.length,
          totalSize: huge,
          fanoutCalls: 2,
          slice: 'node_id = 1',
        },
        ...(i === 2 ? { redactions: 3 } : {}),
      });
      for (const c of SMALL) {
        const t = encode(c.op, c.answer(i, i % 2 === 1));
        write(
          okRecord(c.op, parse(c.op, t) as never, {
            at: at + 1000n,
            request: c.request as never,
            target: c.target,
            cluster,
            raw: i === 5,
          }),
        );
      }
      const round = `f${i}`;
      write(
        failedRecord(
          'GetUpgradeStatus',
          {
            code: 'unavailable',
            kind: 'connect',
            httpStatus: i % 2 === 0 ? 503 : 0,
            message: `down ${i} \u001b[31m`,
            details: [{ type: 'x', value: 'AAE=', debug: { n: i } }],
            raw: bytes(`{"code":"unavailable","message":"down ${i}"}`),
          },
          { at: at + 2000n, request: {}, cluster, round, attempt: 1 },
        ),
      );
      write({
        ...failedRecord(
          'GetIcebergStatus',
          {
            code: 'invalid_answer',
            kind: 'invalid_answer',
            message: 'bad',
            path: '$.topics[0]',
            raw: new Uint8Array([0xff, 0, 1]),
          },
          { at: at + 2000n, request: { topicsFilter: [] }, cluster, round, attempt: 2 },
        ),
        redactions: 1,
      });
    }
  }
  writer.close();
  const w = openDatabase(path);
  // a gap in the ids and the oldest polls gone, as retention leaves them
  openHistoryMaintenance(w).prune(T0 + 2n * MIN);
  recordMaintenance(w.sqlite, {
    at: T0 + 11n * MIN,
    cluster: 'prod',
    action: 'retention-raw',
    cutoff: T0 + 2n * MIN,
    polls: 14,
    samples: 99,
    bytes: 4096,
    durationMs: 3,
  });
  recordMaintenance(w.sqlite, { at: T0 + 12n * MIN, action: 'prune', polls: 0, samples: 0, bytes: 0, durationMs: 1 });
  const rollups = createRollupStore(w);
  // `old` keeps only rollups: its polls were all pruned (a cluster row without a poll)
  w.sqlite.prepare("INSERT INTO cluster (name) VALUES ('old')").run();
  for (const cluster of ['prod', 'old']) {
    rollups.writeBuckets(cluster, 300, T0 + 5n * MIN, {
      buckets: [{ start: T0, connPolls: 5, firstPoll: T0, lastPoll: T0 + 4n * MIN }],
      conns: [
        {
          start: T0,
          nodeId: 1,
          listener: 'internal',
          principal: 'User:a',
          clientId: 'c',
          software: 'java 3.7',
          openMin: 1,
          openMax: 9,
          openLast: 4,
          openSum: 20,
          opened: 3,
          closed: 2,
          authFailures: 1,
          resets: 0,
          produceBytes: 2n ** 70n,
          produceBatches: 5n,
          fetchBytes: 0n,
          requests: 12n,
        },
      ],
      shadow: [
        {
          start: T0,
          link: 'dr-link',
          topic: 'orders',
          partition: 0,
          lagMin: 1n,
          lagMax: 2n ** 62n,
          lagLast: 3n,
          shadowLast: 100n,
          sourceLast: 103n,
          progress: 7n,
          state: 'ACTIVE',
        },
      ],
      iceberg: [{ start: T0, topic: 'clicks', lagMin: 0n, lagMax: 5n, lagLast: 2n, partitions: 3 }],
    });
    rollups.writeBuckets(cluster, 3600, T0, { buckets: [], conns: [], shadow: [], iceberg: [] });
    rollups.writeEvents(
      cluster,
      T0 + 5n * MIN,
      [{ kind: 'broker_down', entity: 'broker/2', start: T0 + MIN, end: null, body: '{"kind":"broker_down"}' }],
      [],
    );
    rollups.writeStates(cluster, [{ entity: 'upgrade', start: T0, end: T0 + MIN, state: 'READY' }]);
  }
  w.close();
}

/** The export bundle of a database (fixed time: byte-comparable). */
function exportOf(db: FlightrecDb, cluster?: string): string {
  let out = '';
  writeExportBundle(createHistoryReader(db), (s) => (out += s), { redact: false, now: 0, generator: 'test', cluster });
  return out;
}

/** Every poll column (cluster by name) and raw body, in id order. */
function pollTable(db: FlightrecDb): unknown[] {
  const rows = db.sqlite
    .prepare(
      `SELECT p.*, c.name AS cluster_name, r.body FROM poll p JOIN cluster c ON c.id = p.cluster_id
       LEFT JOIN poll_raw r ON r.poll_id = p.id ORDER BY p.id`,
    )
    .safeIntegers()
    .all() as Record<string, unknown>[];
  return rows.map(({ cluster_id: _cid, body, ...rest }) => ({
    ...rest,
    body: body instanceof Buffer ? gunzipSync(body).toString('base64') : null,
  }));
}

/** What the rollups hold for each cluster, through the rollup reader. */
function rollupsOf(db: FlightrecDb): unknown {
  const r = createRollupStore(db);
  const all = [-(2n ** 62n), 2n ** 62n] as const;
  return ['prod', 'stage', 'old'].map((c) => ({
    coverage: r.coverage(c),
    events: r.events(c, ...all),
    states: r.states(c, ...all),
    eventsUntil: r.progress(c, 0),
    ...Object.fromEntries(
      [300, 3600].map((res) => [
        res,
        [r.buckets(c, res, ...all), r.conns(c, res, ...all), r.shadow(c, res, ...all), r.iceberg(c, res, ...all)],
      ]),
    ),
  }));
}

/** Runs a copy to the end (or `stopAfter` batches); returns it. */
function copyInto(
  source: string,
  target: string,
  batchPolls: number,
  stopAfter = Infinity,
  batchBytes?: number,
): ReturnType<typeof startHistoryCopy> {
  const from = openDatabase(source, { readonly: true });
  const to = openDatabase(target, { keepRawAnswers: true });
  let copy: ReturnType<typeof startHistoryCopy>;
  try {
    copy = startHistoryCopy(from, to, { batchPolls, ...(batchBytes === undefined ? {} : { batchBytes }) });
  } catch (err) {
    to.close();
    from.close();
    throw err;
  }
  try {
    let steps = 0;
    while (steps < stopAfter && copy.step() > 0) steps++;
    if (steps < stopAfter) copy.finish();
  } finally {
    copy.close();
    from.close();
  }
  return copy;
}

/** Runs `fn` on a read-only handle of `path`. */
function readDb<T>(path: string, fn: (db: FlightrecDb) => T): T {
  const db = openDatabase(path, { readonly: true });
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

const source = tempDbPath('source.db', 'file');
recordSource(source);
const expected = readDb(source, (db) => ({
  export: exportOf(db),
  polls: pollTable(db),
  rollups: rollupsOf(db),
  log: readMaintenanceLog(db.sqlite, 1000),
}));

describe('db copy engine', () => {
  it('the source has what a copy must keep', () => {
    const polls = expected.polls as Record<string, unknown>[];
    expect(polls.length).toBeGreaterThan(80);
    // pruned: gaps in the ids (a copy numbering its polls itself would not reproduce them)
    expect((polls.at(-1) as { id: bigint }).id).toBeGreaterThan(BigInt(polls.length));
    expect(polls.some((p) => p.ok === 0n && p.http_status === 0n)).toBe(true);
    expect(polls.some((p) => p.ok === 1n && p.body !== null)).toBe(true);
    expect(polls.some((p) => p.redactions === 3n)).toBe(true);
    expect(polls.some((p) => p.total_size === null && p.extra !== null)).toBe(true); // totalSize beyond int64
    expect(expected.log).toHaveLength(2);
  });

  it('copies every poll, answer, raw body, rollup and log entry: the same export, byte for byte', () => {
    const target = tempDbPath('copy.db');
    const copy = copyInto(source, target, 7);
    expect(copy.skipped).toBe(0);
    expect(copy.copied).toBe(copy.total);
    expect(copy.copied).toBe(expected.polls.length);
    expect(copy.idsKept).toBe(copy.copied);
    expect(copy.clusters).toEqual(['old', 'prod', 'stage']);
    readDb(target, (db) => {
      expect(exportOf(db)).toBe(expected.export);
      expect(pollTable(db)).toEqual(expected.polls);
      expect(rollupsOf(db)).toEqual(expected.rollups);
      expect(readMaintenanceLog(db.sqlite, 1000)).toEqual(expected.log);
    });
  });

  it('a copy stopped after some batches and started again ends identical, without a duplicate', () => {
    const target = tempDbPath('resumed.db');
    const first = copyInto(source, target, 5, 3);
    expect(first.copied).toBe(15);
    expect(readDb(target, (db) => pollTable(db).length)).toBe(15);
    const second = copyInto(source, target, 5);
    expect(second.skipped).toBe(15);
    expect(second.copied).toBe(expected.polls.length - 15);
    expect(second.total).toBe(second.copied);
    // a third run finds everything there and adds nothing (rollups rewritten in place, no log entry twice)
    const third = copyInto(source, target, 5);
    expect([third.total, third.copied, third.skipped]).toEqual([0, 0, expected.polls.length]);
    readDb(target, (db) => {
      expect(exportOf(db)).toBe(expected.export);
      expect(pollTable(db)).toEqual(expected.polls);
      expect(rollupsOf(db)).toEqual(expected.rollups);
      expect(readMaintenanceLog(db.sqlite, 1000)).toEqual(expected.log);
    });
  });

  it('holds fewer polls in a batch when their answers are large (bounded memory)', () => {
    const target = tempDbPath('small-batches.db');
    // a budget of 1 byte: one poll per batch (every poll here has a size: an answer or a raw body)
    const first = copyInto(source, target, 64, 5, 1);
    expect(first.copied).toBe(5);
    const rest = copyInto(source, target, 64, Infinity, 1);
    expect(rest.skipped + rest.copied).toBe(expected.polls.length);
    readDb(target, (db) => expect(exportOf(db)).toBe(expected.export));
  });

  it('refuses a target holding another recording of a cluster, and writes nothing', () => {
    const target = tempDbPath('other.db');
    const db = openDatabase(target);
    const w = createHistoryWriter(db);
    w.writePoll(
      failedRecord(
        'GetUpgradeStatus',
        { code: 'unavailable', kind: 'connect', message: 'x' },
        { at: T0, request: {}, cluster: 'stage' },
      ),
    );
    w.close();
    expect(() => copyInto(source, target, 10)).toThrow(CopyConflictError);
    expect(() => copyInto(source, target, 10)).toThrow(
      /1 polls of cluster "stage" that are not the beginning of the source's/,
    );
    expect(readDb(target, (d) => pollTable(d).length)).toBe(1);
  });

  it('refuses to resume from a source pruned since the copy began', () => {
    const src = tempDbPath('pruned-later.db');
    const target = tempDbPath('pruned-copy.db');
    recordSource(src);
    copyInto(src, target, 10, 2);
    const w = openDatabase(src);
    openHistoryMaintenance(w).prune(T0 + 5n * MIN);
    w.close();
    expect(() => copyInto(src, target, 10)).toThrow(CopyConflictError);
  });

  it('leaves other clusters of the target alone and numbers the polls itself where their ids are taken', () => {
    const target = tempDbPath('fleet.db');
    const db = openDatabase(target);
    const w = createHistoryWriter(db);
    for (let i = 0; i < 200; i++)
      w.writePoll(
        okRecord('GetUpgradeStatus', upgradeAnswer(i, false), {
          at: T0 + BigInt(i) * MIN,
          request: {},
          cluster: 'lab',
        }),
      );
    w.close();
    const labBefore = readDb(target, (d) => exportOf(d, 'lab'));
    const copy = copyInto(source, target, 16);
    expect(copy.copied).toBe(expected.polls.length);
    expect(copy.idsKept).toBe(0);
    const withoutIds = (text: string): string => text.replace(/"id":"\d+",/g, '');
    readDb(source, (src) =>
      readDb(target, (dst) => {
        expect(exportOf(dst, 'lab')).toBe(labBefore);
        for (const c of ['prod', 'stage']) {
          expect(exportOf(dst, c)).not.toBe(exportOf(src, c));
          expect(withoutIds(exportOf(dst, c))).toBe(withoutIds(exportOf(src, c)));
        }
        expect(rollupsOf(dst)).toEqual(expected.rollups);
      }),
    );
  });
});
