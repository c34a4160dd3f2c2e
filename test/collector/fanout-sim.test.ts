/**
 * The connections fan-out against the simulated cluster over loopback HTTP: when a broker goes
 * down its clients reconnect to the others, whose shards then hold more rows than the server's
 * default page (1000). The server lists a whole broker when asked for enough rows, so a round
 * must cover every connection the server lists (coverage 100 %), not stop at a page per shard.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectClient } from '../../src/api/client/index.ts';
import type { PollRecord } from '../../src/db/poll-record.ts';
import { runRound, type ClusterRuntime } from '../../src/collector/poller.ts';
import {
  BYTES_PER_CONNECTION,
  createWorld,
  parseScenario,
  startSimServer,
  type SimServer,
} from '../../src/sim/index.ts';
import { deps, runtime } from './helpers/fakes.ts';

const SCENARIO = `name: broker-outage
description: broker 2 goes down; its clients reconnect to brokers 0 and 1
duration: 10m
events:
  - { at: 1m, kind: broker_down, broker: 2, duration: 5m }
`;

/** A simulated cluster of 3 brokers, one shard each, with the default memory budget. */
async function simulated(connections: number): Promise<SimServer> {
  const world = createWorld({
    seed: 5,
    scenario: parseScenario(SCENARIO, 'broker-outage'),
    connections,
    shardsPerBroker: 1,
  });
  return startSimServer({ world, clock: 'manual' });
}

function runtimeFor(sim: SimServer): ClusterRuntime {
  return runtime(new ConnectClient({ baseUrl: sim.baseUrl, timeoutMs: 30_000 }));
}

/** The uids the simulated cluster lists now. */
const listed = (sim: SimServer): Set<string> => new Set(sim.world.connections().map((c) => c.uid));

describe('connections fan-out against the simulator, a broker down', () => {
  let sim: SimServer;
  beforeAll(async () => {
    // 2,600 connections: about 870 per broker (one page each) before the outage, 1,300 after
    sim = await simulated(2_600);
  });
  afterAll(async () => sim?.close());

  it('covers every listed connection before and during the outage with the default page size', async () => {
    const rt = runtimeFor(sim);
    const records: PollRecord[] = [];
    const d = deps(records);
    const before = await runRound(rt, 'ListKafkaConnections', d);
    expect(before.coverage).toMatchObject({ complete: true, rowsCovered: listed(sim).size });

    sim.world.advanceBy(150); // broker 2 is down
    const byNode = new Map<number, number>();
    for (const c of sim.world.connections()) byNode.set(c.nodeId, (byNode.get(c.nodeId) ?? 0) + 1);
    expect(byNode.has(2)).toBe(false);
    expect(Math.min(...byNode.values())).toBeGreaterThan(1000); // more than a default page per broker (one shard)

    const during = await runRound(rt, 'ListKafkaConnections', d);
    const all = listed(sim);
    expect(during.coverage!.totalSize).toBe(BigInt(all.size));
    expect(during.coverage).toMatchObject({ complete: true, rowsCovered: all.size });
    const seen = new Set(
      records
        .filter((r) => r.round === during.round && r.outcome.ok)
        .flatMap((r) => (r.outcome.ok ? (r.outcome.answer as { connections: { uid: string }[] }).connections : []))
        .map((c) => c.uid),
    );
    expect(seen).toEqual(all);
    // the unsliced page, then one call per known broker: no shard slice was needed
    expect(during.calls).toBe(4);
  });
});

describe('connections fan-out against the simulator, a memory budget below a broker', () => {
  let sim: SimServer;
  beforeAll(async () => {
    const world = createWorld({
      seed: 6,
      connections: 2_400,
      brokers: 1,
      shardsPerBroker: 4,
      memoryBudgetBytes: 1_500 * BYTES_PER_CONNECTION,
    });
    sim = await startSimServer({ world, clock: 'manual' });
  });
  afterAll(async () => sim?.close());

  it('slices a broker the budget cuts by shard and still covers every connection', async () => {
    const rt = runtimeFor(sim);
    const records: PollRecord[] = [];
    const d = deps(records);
    await runRound(rt, 'ListKafkaConnections', d); // learns the broker and its shards
    const r = await runRound(rt, 'ListKafkaConnections', d);
    const all = listed(sim);
    expect(r.coverage).toMatchObject({ complete: true, rowsCovered: all.size, totalSize: BigInt(all.size) });
    const slices = records.filter((x) => x.round === r.round).map((x) => x.coverage!.slice);
    expect(slices).toEqual([
      '',
      'node_id = 0',
      'node_id = 0 AND shard_id = 0',
      'node_id = 0 AND shard_id = 1',
      'node_id = 0 AND shard_id = 2',
      'node_id = 0 AND shard_id = 3',
    ]);
  });
});

describe('connections fan-out against the simulator, a memory budget below a shard', () => {
  let sim: SimServer;
  beforeAll(async () => {
    const world = createWorld({
      seed: 7,
      connections: 1_200,
      brokers: 1,
      shardsPerBroker: 1,
      memoryBudgetBytes: 500 * BYTES_PER_CONNECTION,
    });
    sim = await startSimServer({ world, clock: 'manual' });
  });
  afterAll(async () => sim?.close());

  it('reports the coverage the server allows and the slice it cut', async () => {
    const rt = runtimeFor(sim);
    const d = deps([]);
    await runRound(rt, 'ListKafkaConnections', d);
    const r = await runRound(rt, 'ListKafkaConnections', d);
    const all = listed(sim).size;
    expect(r.coverage).toMatchObject({ complete: false, rowsCovered: 500, totalSize: BigInt(all) });
    expect(r.coverage!.cut).toMatchObject({ slice: 'node_id = 0 AND shard_id = 0', rowsReturned: 500 });
    expect(r.coverage!.cut!.totalSize).toBe(BigInt(all));
  });
});
