/**
 * Point 7 of issue 19 at the real defaults (no scaled-down limits): the largest real answers
 * (50,000 connections, about 55 MB) are recorded; an answer within the default size limit whose
 * decoding would take more memory than the default budget (an array of empty objects: 64
 * bytes of heap for every 3 bytes) becomes a failed poll with its first bytes kept, never a
 * crash, and the next poll records normally. RSS is measured around each (bounds below).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_ANSWER_BYTES, defaultMaxParseBytes } from '../../src/api/client/index.ts';
import {
  Collector,
  connectClientFactory,
  defaultCluster,
  defaultCollectorConfig,
  type CollectorConfig,
} from '../../src/collector/index.ts';
import { createHistoryReader, openRecordingStore, type FlightrecDb } from '../../src/db/index.ts';
import { createWorld, startSimServer, type SimServer } from '../../src/sim/index.ts';
import { startHostileServer, type HostileServer, type Mode } from '../fixtures/hostile-server/server.ts';

const MIB = 1024 * 1024;
/** RSS growth allowed while recording the 55 MB answer (body, decoded answer, write batches). */
const LARGE_ANSWER_RSS_BOUND = 768 * MIB;
/** RSS growth allowed around the refused answer (its bytes in the server and the client; nothing decoded). */
const REFUSED_ANSWER_RSS_BOUND = 512 * MIB;
const HUGE_BYTES = 96 * MIB;

const dir = mkdtempSync(join(tmpdir(), 'flightrec-large-'));
let sim: SimServer;
let server: HostileServer;
let hugeBody: Buffer | undefined;

const huge: Mode = {
  name: 'huge-default',
  ops: ['GetUpgradeStatus'],
  respond: async () => {
    hugeBody ??= Buffer.from(`{"x":[${'{},'.repeat(Math.floor(HUGE_BYTES / 3) - 1)}{}]}`, 'latin1');
    return { kind: 'answer', served: { status: 200, contentType: 'application/json', body: hugeBody } };
  },
};

beforeAll(async () => {
  const world = createWorld({ seed: 11, connections: 50_000, memoryBudgetBytes: 512 * MIB });
  sim = await startSimServer({ world, clock: 'manual' });
  server = await startHostileServer(sim, [huge]);
}, 120_000);

afterAll(async () => {
  await server.close();
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

function config(): CollectorConfig {
  const cluster = {
    ...defaultCluster('big', server.url),
    timeoutMs: 60_000,
    shadowLinks: [],
    connections: { ...defaultCluster('x', 'http://x').connections, pageSize: 50_000, fanout: false },
  };
  return { ...defaultCollectorConfig([cluster]), jitterMs: 0 };
}

describe('large answers at the default limits', () => {
  it('uses the defaults it claims: 128 MiB answers, a decode budget of at most 1 GiB', () => {
    expect(DEFAULT_MAX_ANSWER_BYTES).toBe(128 * MIB);
    expect(defaultMaxParseBytes()).toBeLessThanOrEqual(1024 * MIB);
  });

  it('records 50,000 connections (about 55 MB) and refuses a 96 MiB array of empty objects without crashing', async () => {
    let db: FlightrecDb | undefined;
    const path = join(dir, 'big.db');
    const c = new Collector({
      config: config(),
      writer: openRecordingStore(path, { onOpen: (d) => (db = d) }),
      env: {},
      now: Date.now,
      clientFactory: connectClientFactory,
      sleep: async () => true,
    });
    const rss0 = process.memoryUsage().rss;
    const big = await c.runRound('big', 'ListKafkaConnections');
    const rss1 = process.memoryUsage().rss;
    expect(big.failures).toEqual([]);
    expect(big.coverage!.rowsCovered).toBeGreaterThanOrEqual(50_000);
    const bytes = db!.sqlite
      .prepare('SELECT bytes FROM poll WHERE operation = ? ORDER BY id DESC')
      .pluck()
      .get('ListKafkaConnections') as number;
    expect(bytes).toBeGreaterThan(50_000_000);

    server.setMode('huge-default');
    const refused = await c.runRound('big', 'GetUpgradeStatus');
    const rss2 = process.memoryUsage().rss;
    server.setMode('healthy');
    const next = await c.runRound('big', 'GetUpgradeStatus');
    expect(refused.failures[0]).toMatchObject({ code: 'resource_exhausted', kind: 'protocol' });
    expect(refused.failures[0]!.message).toMatch(
      new RegExp(
        `^answer of ${hugeBody!.length} bytes would need about [0-9.]+ MiB to decode, more than the budget of [0-9.]+ MiB \\(maxParseBytes\\)`,
      ),
    );
    expect(refused.calls).toBe(1);
    expect(next.failures).toEqual([]);
    const reader = createHistoryReader(db!);
    // the refused call is the one GetUpgradeStatus poll with that outcome (found by it, not by its
    // place: the message lists every poll of the operation if it is not there)
    const upgrades = reader.polls({ operation: 'GetUpgradeStatus' });
    const listed = upgrades.map((p) => `${p.id} ${p.outcome} ${p.bytes} B ${p.message}`).join('\n');
    const refusedPoll = upgrades.filter((p) => p.outcome === 'resource_exhausted');
    expect(refusedPoll, listed).toHaveLength(1);
    const kept = reader.reconstructAnswer(refusedPoll[0]!.id);
    expect(kept.failure?.bytes, listed).toBe(hugeBody!.length);
    expect(Buffer.from(kept.raw!).toString('latin1')).toMatch(/^\{"x":\[\{\},\{\},/);
    await c.shutdown();
    console.info(
      `large answers: RSS ${Math.round(rss0 / MIB)} MiB before, ${Math.round(rss1 / MIB)} MiB after 50,000 connections (${Math.round(bytes / MIB)} MiB), ` +
        `${Math.round(rss2 / MIB)} MiB after the refused ${HUGE_BYTES / MIB} MiB answer`,
    );
    expect(rss1 - rss0).toBeLessThan(LARGE_ANSWER_RSS_BOUND);
    expect(rss2 - rss0).toBeLessThan(LARGE_ANSWER_RSS_BOUND + REFUSED_ANSWER_RSS_BOUND);
  }, 120_000);
});
