/**
 * The collector's write path against a real SQLite file: a record that cannot be stored as
 * received (an injected failure, nesting too deep for the store) becomes a failed poll with the
 * reason and its raw bytes and never blocks the next one; polls held while the store refuses
 * writes are capped by memory, the oldest dropped and recorded as a `not_stored` poll (visible
 * in the poll log and as a `collection.gap` in the timeline) once writes resume.
 */
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { CallResult } from '../../src/api/client/index.ts';
import {
  Collector,
  createReporter,
  defaultCluster,
  defaultCollectorConfig,
  NOT_STORED,
  type CollectorConfig,
} from '../../src/collector/index.ts';
import {
  createHistoryReader,
  createHistoryWriter,
  openDatabase,
  StoreRefusedError,
  type FlightrecDb,
} from '../../src/db/index.ts';
import { buildTimeline, type TimelineSource } from '../../src/report/timeline/timeline.ts';
import { tempDbPath } from '../db/fixtures.ts';
import { fakeClient, memoryWriter } from './helpers/fakes.ts';
import { sqliteOf } from '../helpers/sqlite-handle.ts';

const UPGRADE = {
  activeVersion: 1n,
  autoFinalizationEnabled: false,
  members: [],
  state: 'FINALIZATION_STATE_FINALIZED',
  versionAfterFinalization: 1n,
};
const BODY = Buffer.from(
  '{"activeVersion":"1","autoFinalizationEnabled":false,"members":[],"state":"FINALIZATION_STATE_FINALIZED","versionAfterFinalization":"1"}',
);

function config(patch: Partial<CollectorConfig> = {}): CollectorConfig {
  const cluster = { ...defaultCluster('c1', 'http://127.0.0.1:1'), shadowLinks: [] };
  return { ...defaultCollectorConfig([cluster]), jitterMs: 0, ...patch };
}

function sink() {
  let text = '';
  return { write: (s: string) => void (text += s), text: () => text };
}

/** A successful answer whose decoded value carries `unknown` in an unknown field. */
function answer(unknown?: unknown, body: Buffer = BODY): CallResult<unknown> {
  const value = unknown === undefined ? UPGRADE : { ...UPGRADE, $unknown: { hostile: unknown } };
  return { ok: true, value, httpStatus: 200, elapsedMs: 1, bytes: body.length, body };
}

/** An unknown field whose value throws when anything reads it: any failure of the write path, not only deep nesting. */
function injected(): unknown {
  return Object.defineProperty({}, 'boom', {
    enumerable: true,
    get() {
      throw new Error('injected failure while serialising');
    },
  });
}

function deeplyNested(levels: number): unknown {
  let v: unknown = [];
  for (let i = 0; i < levels; i++) v = [v];
  return v;
}

let clock = 1_767_225_600_000;
const now = (): number => (clock += 1000);

function collector(
  db: FlightrecDb,
  script: (n: number) => CallResult<unknown>,
  out = sink(),
  patch: Partial<CollectorConfig> = {},
): Collector {
  let n = 0;
  return new Collector({
    config: config(patch),
    writer: createHistoryWriter(db),
    env: {},
    now,
    clientFactory: () => fakeClient(() => script(++n)),
    reporter: createReporter(out),
    sleep: async () => true,
  });
}

describe('poison isolation', () => {
  for (const [name, poison] of [
    ['an injected failure (a value that throws when read)', injected],
    ['an unknown field nested 5,000 levels deep', () => deeplyNested(5000)],
    ['an unknown field nested 600 levels deep (more than the readers parse back)', () => deeplyNested(600)],
  ] as const) {
    it(`stores ${name} as a failed poll with the reason and its raw bytes, and keeps recording`, async () => {
      const path = tempDbPath();
      const db = openDatabase(path);
      const out = sink();
      const rawPoison = Buffer.from(`{"members":[],"hostile":${'['.repeat(50)}${']'.repeat(50)}}`);
      const c = collector(db, (n) => (n === 2 ? answer(poison(), rawPoison) : answer()), out);
      for (let i = 0; i < 4; i++) await c.runRound('c1', 'GetUpgradeStatus');
      const report = await c.shutdown();
      expect(report.unwritten).toBe(0);
      expect(c.stats.unstorable).toBe(1);
      expect(out.text()).toMatch(
        /error: c1 GetUpgradeStatus: this answer cannot be stored as received \(.+\); it was stored as failed poll 2 with its raw bytes/,
      );

      const read = openDatabase(path, { readonly: true });
      try {
        const reader = createHistoryReader(read);
        const polls = reader.polls({});
        expect(polls.map((p) => p.outcome)).toEqual(['ok', 'internal', 'ok', 'ok']);
        const bad = reader.reconstructAnswer(polls[1]!.id);
        expect(bad.failure).toMatchObject({ code: 'internal', kind: 'unstorable' });
        expect(bad.failure!.message).toMatch(/^the answer could not be stored as received: /);
        expect(Buffer.from(bad.raw!).equals(rawPoison)).toBe(true);
        expect(reader.reconstructAnswer(polls[3]!.id).answer).toMatchObject({ activeVersion: 1n });
      } finally {
        read.close();
      }
    });
  }

  it('a poll behind a poisoned one is written at once, not held', async () => {
    const db = openDatabase(tempDbPath());
    const c = collector(db, (n) => (n === 1 ? answer(deeplyNested(20_000)) : answer()));
    await c.runRound('c1', 'GetUpgradeStatus');
    await c.runRound('c1', 'GetUpgradeStatus');
    expect(c.stats.unwritten).toBe(0);
    expect(db.sqlite.prepare('SELECT outcome FROM poll ORDER BY id').pluck().all()).toEqual(['internal', 'ok']);
    await c.shutdown();
  });

  it('keeps the raw body of a poisoned failure too (a deeply nested error answer)', async () => {
    const db = openDatabase(tempDbPath());
    const writer = createHistoryWriter(db);
    const raw = Buffer.from('{"code":"internal","message":"x","details":[[[]]]}');
    const stored = writer.storePoll({
      cluster: 'c1',
      operation: 'GetUpgradeStatus',
      target: '',
      request: {},
      round: 'r',
      attempt: 1,
      scheduledAt: 1n,
      startedAt: 1n,
      endedAt: 2n,
      outcome: {
        ok: false,
        code: 'internal',
        kind: 'connect',
        message: 'x',
        details: [deeplyNested(5000)],
        raw,
        bytes: raw.length,
      },
    });
    expect(stored.substituted).toMatch(/(nested|nesting) deeper than 512 levels/);
    const row = db.sqlite.prepare('SELECT outcome, kind, message FROM poll').get() as { kind: string; message: string };
    expect(row.kind).toBe('unstorable');
    expect(row.message).toContain('(the call had failed: internal: x)');
    const body = db.sqlite.prepare('SELECT body FROM poll_raw').pluck().get() as Buffer;
    expect(gunzipSync(body).equals(raw)).toBe(true);
    writer.close();
  });

  it('throws StoreRefusedError, and stores nothing, when the database refuses writes', () => {
    const db = openDatabase(tempDbPath());
    const writer = createHistoryWriter(db);
    sqliteOf(db).pragma('query_only = ON');
    const record = {
      cluster: 'c1',
      operation: 'GetUpgradeStatus',
      target: '',
      request: {},
      round: 'r',
      attempt: 1,
      scheduledAt: 1n,
      startedAt: 1n,
      endedAt: 2n,
      outcome: { ok: true, answer: UPGRADE, bytes: 2 },
    } as const;
    expect(() => writer.storePoll(record as never)).toThrow(StoreRefusedError);
    sqliteOf(db).pragma('query_only = OFF');
    expect(db.sqlite.prepare('SELECT count(*) FROM poll').pluck().get()).toBe(0);
    writer.close();
  });
});

describe('held polls while the database refuses writes', () => {
  it('are capped by memory: the oldest are dropped and recorded as not_stored when writes resume', async () => {
    const path = tempDbPath();
    const db = openDatabase(path);
    const out = sink();
    const big = Buffer.alloc(100_000, 0x20);
    // each held poll is estimated at ~300 KB (raw kept: keepRawAnswers) against a budget of 1 MB
    const c = collector(db, () => answer(undefined, big), out, { maxHeldBytes: 1_000_000, keepRawAnswers: true });
    await c.runRound('c1', 'GetUpgradeStatus');
    sqliteOf(db).pragma('query_only = ON');
    for (let i = 0; i < 10; i++) await c.runRound('c1', 'GetUpgradeStatus');
    expect(c.stats.unwritten).toBeGreaterThan(0);
    expect(c.stats.unwritten).toBeLessThan(10);
    expect(c.stats.heldBytes).toBeLessThanOrEqual(1_000_000);
    const dropped = c.stats.dropped;
    expect(dropped).toBe(10 - c.stats.unwritten);
    sqliteOf(db).pragma('query_only = OFF');
    await c.runRound('c1', 'GetUpgradeStatus');
    await c.shutdown();
    expect(c.stats.unwritten).toBe(0);
    expect(out.text()).toContain('the database accepts writes again');

    const read = openDatabase(path, { readonly: true });
    try {
      const reader = createHistoryReader(read);
      const polls = reader.polls({});
      // the first poll, then the lost run, then the held ones and the last: nothing silently missing
      expect(polls.map((p) => p.outcome)).toEqual(['ok', NOT_STORED, ...Array(10 - dropped + 1).fill('ok')]);
      const lost = polls[1]!;
      expect(lost.message).toMatch(
        new RegExp(
          `^${dropped} polls between \\S+Z and \\S+Z not stored: the database refused writes: attempt to write a readonly database \\(SQLITE_READONLY\\)$`,
        ),
      );
      expect(lost.startTime < lost.endTime).toBe(true);
      const timeline = buildTimeline(reader as unknown as TimelineSource, {});
      const gap = timeline.events.find((e) => e.kind === 'collection.gap' && e.description.includes('not stored'));
      expect(gap).toMatchObject({ severity: 'error', entity: 'api/GetUpgradeStatus' });
    } finally {
      read.close();
    }
  });

  it('say what was lost on shutdown when the database never came back', async () => {
    const writer = memoryWriter();
    const out = sink();
    const c = new Collector({
      config: config({ maxHeldBytes: 5_000 }),
      writer,
      env: {},
      now,
      clientFactory: () => fakeClient(() => answer()),
      reporter: createReporter(out),
      sleep: async () => true,
    });
    writer.failing = true;
    for (let i = 0; i < 6; i++) await c.runRound('c1', 'GetUpgradeStatus');
    const report = await c.shutdown();
    expect(report.unwritten).toBe(6);
    expect(c.stats.dropped).toBeGreaterThan(0);
    expect(out.text()).toContain('error: 6 polls could not be written to the database and are lost');
  });
});

describe('import of a poisoned file', () => {
  it('stores a failed poll with the raw bytes instead of nothing, and exits 1', async () => {
    const { writeFileSync } = await import('node:fs');
    const { memoryIo } = await import('../helpers/memory-io.ts');
    const { runCli } = await import('./helpers/run-cli.ts');
    const path = tempDbPath();
    const file = `${path}.answer.json`;
    const body = `{"activeVersion":"1","members":[],"x-deep":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    writeFileSync(file, body);
    const io = memoryIo();
    const code = await runCli(['--db', path, 'import', '--op', 'GetUpgradeStatus', file], io);
    expect(code).toBe(1);
    expect(io.err()).toMatch(/stored as failed poll 1/);
    const db = openDatabase(path, { readonly: true });
    try {
      expect(db.sqlite.prepare('SELECT ok FROM poll').pluck().all()).toEqual([0]);
      const raw = db.sqlite.prepare('SELECT body FROM poll_raw WHERE poll_id = 1').pluck().get() as Buffer;
      expect(gunzipSync(raw).toString('utf8')).toBe(body);
    } finally {
      db.close();
    }
  });
});
