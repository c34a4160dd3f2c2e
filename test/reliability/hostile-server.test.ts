/**
 * Issue 19's done-when: the hostile server (test/fixtures/hostile-server) drives one collector,
 * with authentication configured, through every named mode: the 20 cluster faults of the
 * reliability suite and the answers that once silenced, crashed or leaked through it; then
 * through the store faults. Each mode is a test: one round of every operation in the mode,
 * then a healthy round. It checks that every call the server saw is a stored poll (the failure
 * is a poll, with its evidence), that the healthy round after it records normally, and that
 * the process's RSS stays under the bound stated below.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Collector,
  connectClientFactory,
  createReporter,
  defaultCluster,
  defaultCollectorConfig,
  OPERATION_ORDER,
  type CollectorConfig,
  type RoundResult,
} from '../../src/collector/index.ts';
import {
  createHistoryReader,
  openDatabase,
  openRecordingStore,
  type FlightrecDb,
  type RecordingStore,
} from '../../src/db/index.ts';
import { startSimServer, type SimServer } from '../../src/sim/index.ts';
import { ALL_MODES, type CheckedMode } from '../fixtures/hostile-server/modes.ts';
import { startHostileServer, type HostileServer } from '../fixtures/hostile-server/server.ts';
import { sqliteOf } from '../helpers/sqlite-handle.ts';

/** The bound: the collector's process grows by less than this over the whole hostile run. */
const RSS_GROWTH_BOUND = 256 * 1024 * 1024;
const PASSWORD = 'hunter2/p@ss w:rd"x';
const MIB = 1024 * 1024;

const dir = mkdtempSync(join(tmpdir(), 'flightrec-hostile-'));
const dbPath = join(dir, 'hostile.db');
let sim: SimServer;
let server: HostileServer;
let store: RecordingStore;
let db: FlightrecDb;
let collector: Collector;
const lines: string[] = [];
/** the pauses the collector asked for, by the mode in force */
const slept: { mode: string; ms: number }[] = [];
let rssBase = 0;
let rssPeak = 0;

function config(url: string, links: { name: string; topics: string[] }[]): CollectorConfig {
  const cluster = {
    ...defaultCluster('hostile', url),
    timeoutMs: 250,
    // scaled down so that the cases run in seconds: the mechanisms are those of the defaults
    maxAnswerBytes: 1 * MIB,
    maxParseBytes: 8 * MIB,
    auth: { kind: 'basic', username: 'flightrec', passwordEnv: 'HOSTILE_PASSWORD' } as const,
    shadowLinks: links,
  };
  return { ...defaultCollectorConfig([cluster]), jitterMs: 0, maxHeldBytes: 64 * MIB };
}

function sampleRss(): void {
  rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
}

async function roundOfAll(): Promise<RoundResult[]> {
  const out: RoundResult[] = [];
  for (const op of OPERATION_ORDER) out.push(await collector.runRound('hostile', op));
  sampleRss();
  return out;
}

beforeAll(async () => {
  sim = await startSimServer({ seed: 7, clock: 'manual', connections: 60, overlapWaitMs: 200 });
  server = await startHostileServer(sim, ALL_MODES);
  const described = sim.describe();
  const links = described.links.map((name) => ({
    name,
    topics: described.topics
      .filter((t) => t.link === name)
      .map((t) => t.topic)
      .slice(0, 1),
  }));
  store = openRecordingStore(dbPath, { onOpen: (d) => (db = d) });
  collector = new Collector({
    config: config(server.url, links),
    writer: store,
    env: { HOSTILE_PASSWORD: PASSWORD },
    now: Date.now,
    clientFactory: connectClientFactory,
    reporter: createReporter({ write: (s: string) => void lines.push(s) }),
    sleep: async (ms) => (slept.push({ mode: server.mode, ms }), true),
    owner: 'hostile-test',
  });
  await roundOfAll();
  rssBase = process.memoryUsage().rss;
  rssPeak = rssBase;
}, 60_000);

afterAll(async () => {
  await collector.shutdown();
  await server.close();
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Polls of the open database with id > `after`, reconstructed. */
function pollsAfter(after: bigint) {
  const reader = createHistoryReader(db);
  return reader
    .polls({})
    .filter((p) => p.id > after)
    .map((p) => ({ row: p, rebuilt: reader.reconstructAnswer(p.id) }));
}

function lastPollId(): bigint {
  return BigInt((db.sqlite.prepare('SELECT coalesce(max(id), 0) FROM poll').pluck().get() as number) ?? 0);
}

describe('the hostile server drives the collector through every mode', () => {
  for (const mode of ALL_MODES as readonly CheckedMode[]) {
    it(`${mode.name}: every call is a stored poll with its evidence, the next round records, RSS bounded`, async () => {
      const fromLog = server.log.length;
      const fromPoll = lastPollId();
      server.setMode(mode.name);
      await roundOfAll();
      server.setMode('healthy');
      const hitLog = server.log.slice(fromLog).filter((e) => e.mode === mode.name);
      const recovery = await roundOfAll();

      const polls = pollsAfter(fromPoll);
      // nothing lost, nothing invented: the n-th request the server saw is the n-th poll
      expect(polls.length).toBe(server.log.length - fromLog);
      expect(collector.stats.unwritten).toBe(0);
      const problems: string[] = [];
      server.log.slice(fromLog).forEach((entry, i) => {
        const p = polls[i]!;
        if (entry.op !== p.row.operation)
          problems.push(`poll ${p.row.id}: the server saw ${entry.op}, the poll is ${p.row.operation}`);
        if (entry.mode !== mode.name) return;
        const ok = p.row.outcome === 'ok';
        if (mode.expect === 'fail' && ok) problems.push(`poll ${p.row.id} ${p.row.operation} succeeded`);
        if (mode.expect === 'ok' && !ok)
          problems.push(`poll ${p.row.id} ${p.row.operation} failed: ${p.row.outcome}: ${p.row.message}`);
        const why = mode.evidence?.(p.rebuilt);
        if (why !== undefined) problems.push(`poll ${p.row.id} ${p.row.operation}: ${why}`);
      });
      expect(problems).toEqual([]);
      expect(hitLog.length).toBeGreaterThan(0);
      // the healthy round after the mode records normally
      expect(
        recovery.filter((r) => r.failures.length > 0).map((r) => `${r.operation}: ${r.failures[0]!.message}`),
      ).toEqual([]);
      expect(process.memoryUsage().rss - rssBase).toBeLessThan(RSS_GROWTH_BOUND);
    });
  }

  it('honours Retry-After (seconds and HTTP date) up to retry.maxDelay', () => {
    const during = (mode: string): number[] => slept.filter((s) => s.mode === mode).map((s) => s.ms);
    // an hour asked: the policy's maxDelay (30 s) each time, not the 2.5-20 s back-off of resource_exhausted
    expect(during('retry-after-seconds').length).toBeGreaterThan(0);
    expect(new Set(during('retry-after-seconds'))).toEqual(new Set([30_000]));
    // 20 s from now asked as a date: about 20 s, not the 0.25-2 s back-off of unavailable
    expect(during('retry-after-date').length).toBeGreaterThan(0);
    for (const ms of during('retry-after-date')) expect(ms).toBeGreaterThan(15_000);
    expect(slept.every((s) => s.ms <= 30_000)).toBe(true);
  });

  it('never wrote a configured secret, in any encoding, to the round lines', () => {
    expect(lines.join('')).not.toContain('hunter2');
  });

  it(`stays under the RSS bound over the whole run (growth < ${RSS_GROWTH_BOUND / MIB} MiB)`, () => {
    expect(rssPeak - rssBase).toBeLessThan(RSS_GROWTH_BOUND);
    console.info(
      `hostile run: RSS ${Math.round(rssBase / MIB)} MiB at start, peak ${Math.round(rssPeak / MIB)} MiB (growth ${Math.round((rssPeak - rssBase) / MIB)} MiB)`,
    );
  });
});

describe('store faults in the middle of a recording', () => {
  it('disk full, then space again: the polls held meanwhile are written, none lost', async () => {
    const fromLog = server.log.length;
    const fromPoll = lastPollId();
    const pages = sqliteOf(db).pragma('page_count', { simple: true }) as number;
    sqliteOf(db).pragma(`max_page_count = ${pages}`);
    await roundOfAll();
    await roundOfAll();
    expect(collector.stats.unwritten).toBeGreaterThan(0);
    sqliteOf(db).pragma('max_page_count = 1073741823');
    await roundOfAll();
    expect(collector.stats.unwritten).toBe(0);
    expect(pollsAfter(fromPoll).length).toBe(server.log.length - fromLog);
    expect(lines.join('')).toMatch(/database or disk is full/);
  });

  it('the database turned read-only, then writable again: the same', async () => {
    const fromLog = server.log.length;
    const fromPoll = lastPollId();
    sqliteOf(db).pragma('query_only = ON');
    await roundOfAll();
    sqliteOf(db).pragma('query_only = OFF');
    await roundOfAll();
    expect(collector.stats.unwritten).toBe(0);
    expect(pollsAfter(fromPoll).length).toBe(server.log.length - fromLog);
  });

  it('a second collector for the same cluster on the same database waits as a standby: the server sees one of them', async () => {
    const fromLog = server.log.length;
    const fromPoll = lastPollId();
    const second = new Collector({
      config: config(server.url, []),
      writer: openRecordingStore(dbPath),
      env: { HOSTILE_PASSWORD: PASSWORD },
      now: Date.now,
      owner: 'second',
      sleep: async () => true,
    });
    for (const op of ['GetUpgradeStatus', 'ListKafkaConnections'] as const) {
      expect((await second.runRound('hostile', op)).standby).toBe(true);
      await collector.runRound('hostile', op);
    }
    await second.shutdown();
    expect(server.log.length - fromLog).toBe(2);
    expect(pollsAfter(fromPoll).length).toBe(2);
  });

  it('disk full for longer than the held-memory budget allows: the oldest are dropped and recorded as not_stored', async () => {
    let small: FlightrecDb | undefined;
    const path = join(mkdtempSync(join(dir, 'budget-')), 'b.db');
    const c = new Collector({
      config: { ...config(server.url, []), maxHeldBytes: 64 * 1024 },
      writer: openRecordingStore(path, { onOpen: (d) => (small = d) }),
      env: { HOSTILE_PASSWORD: PASSWORD },
      now: Date.now,
      sleep: async () => true,
    });
    await c.runRound('hostile', 'ListKafkaConnections');
    sqliteOf(small!).pragma(`max_page_count = ${sqliteOf(small!).pragma('page_count', { simple: true }) as number}`);
    const fromLog = server.log.length;
    for (let i = 0; i < 6; i++) await c.runRound('hostile', 'ListKafkaConnections');
    expect(c.stats.dropped).toBeGreaterThan(0);
    expect(c.stats.heldBytes).toBeLessThanOrEqual(64 * 1024);
    sqliteOf(small!).pragma('max_page_count = 1073741823');
    await c.runRound('hostile', 'ListKafkaConnections');
    const reader = createHistoryReader(small!);
    const polls = reader.polls({}).slice(1);
    const lost = polls.filter((p) => p.outcome === 'not_stored');
    // a lost run is written as soon as the store takes it (a small row may fit where a large poll does not)
    expect(lost.length).toBeGreaterThan(0);
    let counted = 0;
    for (const p of lost) {
      const m =
        /^([0-9]+) polls? between \S+ and \S+ not stored: the database refused writes: database or disk is full \(SQLITE_FULL\)$/.exec(
          p.message,
        );
      expect(m, p.message).not.toBeNull();
      counted += Number(m![1]);
    }
    expect(counted).toBe(c.stats.dropped);
    // every call the server saw is a stored poll, or counted in the not_stored poll
    expect(polls.length - lost.length + c.stats.dropped).toBe(server.log.length - fromLog);
    await c.shutdown();
  });

  it('the database file deleted: recording goes on into a new database at the same path', async () => {
    const old = db;
    rmSync(dbPath);
    const fromLog = server.log.length;
    await roundOfAll();
    expect(db).not.toBe(old);
    expect(collector.stats.reopened).toBe(1);
    expect(pollsAfter(0n).length).toBe(server.log.length - fromLog);
    expect(lines.join('')).toContain(`the database file ${dbPath} was deleted while recording`);
  });
});

describe('the database file replaced by one that cannot be used: the collector stops with a clear error', () => {
  const cases: [string, (path: string) => void, RegExp][] = [
    [
      'a corrupt header',
      (p) => writeFileSync(p, Buffer.alloc(8192, 0x41)),
      /not an SQLite database \(or encrypted, or (corrupt|its first page is damaged)\)|damaged or truncated/,
    ],
    [
      'corrupt pages',
      (p) => {
        const d = openDatabase(`${p}.tmp`);
        d.close();
        const bytes = Buffer.alloc(4096 * 8, 0);
        readFileSync(`${p}.tmp`).copy(bytes, 0, 0, 100);
        writeFileSync(p, bytes);
      },
      /malformed|corrupt|not a flightrec history/,
    ],
    [
      'a newer schema',
      (p) => {
        const d = new Database(p);
        d.exec(
          'CREATE TABLE poll (id INTEGER); CREATE TABLE __drizzle_migrations (id INTEGER, hash TEXT, created_at NUMERIC)',
        );
        d.prepare('INSERT INTO __drizzle_migrations VALUES (1, ?, ?)').run('x', 9_999_999_999_999);
        d.pragma('user_version = 999');
        d.close();
      },
      /written by a newer flightrec/,
    ],
    [
      'a read-only file in a read-only directory',
      (p) => {
        const d = openDatabase(p);
        d.close();
        chmodSync(p, 0o444);
      },
      /readonly|read-only|permission|attempt to write/i,
    ],
  ];
  for (const [name, replace, message] of cases) {
    it(name, async () => {
      if (name.startsWith('a read-only') && process.getuid?.() === 0) return; // root writes anyway: disk.test.ts covers it as another user
      const sub = mkdtempSync(join(dir, 'replaced-'));
      const path = join(sub, 'h.db');
      const out: string[] = [];
      const c = new Collector({
        config: config(server.url, []),
        writer: openRecordingStore(path),
        env: { HOSTILE_PASSWORD: PASSWORD },
        now: Date.now,
        reporter: createReporter({ write: (s: string) => void out.push(s) }),
        sleep: async () => true,
      });
      await c.runRound('hostile', 'GetUpgradeStatus');
      rmSync(path);
      replace(path);
      const r = await c.runRound('hostile', 'GetUpgradeStatus');
      expect(r.calls).toBe(0);
      expect(c.fatal?.message).toContain(
        `the database file ${path} was replaced by another file while recording, and no database can be opened there`,
      );
      expect(c.fatal?.message).toMatch(message);
      expect(out.join('')).toContain('recording stopped');
      await c.shutdown();
    });
  }
});
