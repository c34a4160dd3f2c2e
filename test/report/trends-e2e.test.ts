/**
 * Trends through the whole pipeline: the simulated cluster serves, the collector records into a
 * database (one `collect --once` per 30 simulated seconds), trends read it back; the rates equal
 * a hand computation over the answers the server actually sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KafkaConnection } from '../../src/api/schema/connection.ts';
import { parseAnswer } from '../../src/api/wire/answers.ts';
import { startSimServer, type SimServer } from '../../src/sim/index.ts';
import { runFlightrec, tempDir } from '../fixtures/timeline/run-cli.ts';

const tmp = tempDir();
const db = tmp.path('trends.db');
let sim: SimServer;
/** The answers served per round (a truncated answer is followed by per-broker slices at the same instant), merged by uid. */
const rounds = new Map<bigint, Map<string, KafkaConnection>>();

beforeAll(async () => {
  sim = await startSimServer({ seed: 5, clock: 'manual', connections: 80, scenario: 'connection-storm' });
  sim.onAnswer((op, _req, status, body) => {
    if (op !== 'ListKafkaConnections' || status !== 200) return;
    const t = sim.world.now();
    let round = rounds.get(t);
    if (round === undefined) rounds.set(t, (round = new Map()));
    for (const c of parseAnswer('ListKafkaConnections', body).connections) round.set(c.uid, c);
  });
  for (let i = 0; i < 16; i++) {
    sim.advance(i === 0 ? 40 : 30);
    const nowMs = Number(sim.world.now() / 1_000_000n);
    const r = await runFlightrec(['--db', db, 'collect', '--base-url', sim.baseUrl, '--once', '--timeout', '5s'], {
      now: () => nowMs,
    });
    if (r.code !== 0 && r.code !== 3) throw new Error(`collect --once exited ${r.code}: ${r.err}`);
  }
}, 120_000);
afterAll(async () => {
  await sim.close();
  tmp.remove();
});

describe('trends from a recorded database', () => {
  it('fetch bytes per second by client equal the hand computation over the served answers', async () => {
    const served = [...rounds].map(([time, rows]) => ({ time, rows: [...rows.values()] }));
    expect(served.length).toBe(16);
    const r = await runFlightrec(['--db', db, '-o', 'json', 'trends', 'fetch-bytes', '--by', 'client']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out) as { rows: { key: string; value: number }[]; overall: number };
    const last = new Map<string, bigint>();
    const perClient = new Map<string, bigint>();
    let prev: bigint | undefined;
    for (const { time, rows } of served) {
      for (const c of rows) {
        const v = c.totalRequestStatistics.fetchBytes;
        const before = last.get(c.uid);
        const inc =
          before === undefined ? (prev !== undefined && c.openTime > prev ? v : 0n) : v >= before ? v - before : v;
        last.set(c.uid, v);
        perClient.set(c.clientId, (perClient.get(c.clientId) ?? 0n) + inc);
      }
      prev = time;
    }
    const seconds = Number(served[served.length - 1]!.time - served[0]!.time) / 1e9;
    expect(doc.rows.length).toBe(perClient.size);
    for (const row of doc.rows) expect(row.value).toBe(Number(perClient.get(row.key)) / seconds);
    expect(doc.overall).toBe(Number([...perClient.values()].reduce((a, b) => a + b, 0n)) / seconds);
  });

  it('the table names its headline column for what it is: a mean rate over the window, a count at its end', async () => {
    const header = async (...args: string[]): Promise<string[]> => {
      const r = await runFlightrec(['--db', db, 'trends', ...args]);
      expect(r.code, r.err).toBe(0);
      return (r.out.split('\n').find((l) => l.includes('SERIES')) ?? '').trim().split(/\s{2,}/);
    };
    expect(await header('fetch-bytes', '--by', 'client')).toEqual(['CLIENT', 'MEAN RATE', 'SERIES', 'SCALE']);
    expect((await header('batch-size', '--by', 'client'))[1]).toBe('MEAN SIZE');
    expect((await header('connections', '--by', 'state'))[1]).toBe('AT END');
  });

  it('the storm shows on the timeline of the same database', async () => {
    const r = await runFlightrec(['--db', db, '-o', 'json', 'timeline', '--min-severity', 'warn']);
    const doc = JSON.parse(r.out) as { events: { kind: string; entity: string }[] };
    expect(doc.events.some((e) => e.kind === 'connections.storm' && e.entity === 'principal/User:svc-reporting')).toBe(
      true,
    );
  });
});
