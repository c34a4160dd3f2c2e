import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, startSimServer, type SimServer } from '../../src/sim/index.ts';
import { call } from './helpers.ts';

describe('ListKafkaConnections over loopback HTTP', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSimServer({ seed: 8, connections: 1500, clock: 'manual' });
    sim.advance(300);
  });
  afterAll(() => sim.close());

  it('accepts a server-dialect filter and counts every match in totalSize', async () => {
    const all = await call(sim, 'ListKafkaConnections', { pageSize: 5000 });
    const rows = all.json?.connections as { nodeId: number; state: string }[];
    expect(Number(all.json?.totalSize)).toBe(rows.length);
    const r = await call(sim, 'ListKafkaConnections', {
      filter: 'state = KAFKA_CONNECTION_STATE_OPEN AND node_id = 1',
      pageSize: 5000,
    });
    expect(r.status).toBe(200);
    const want = rows.filter((c) => c.nodeId === 1 && c.state === 'KAFKA_CONNECTION_STATE_OPEN').length;
    expect(Number(r.json?.totalSize)).toBe(want);
    expect(r.json?.connections).toHaveLength(want);
    const idle = await call(sim, 'ListKafkaConnections', {
      filter: 'idle_duration > 30s AND client_software_name = "apache-kafka-java"',
    });
    expect(idle.status).toBe(200);
  });

  it('rejects an invalid filter or order_by with invalid_argument and the engine message', async () => {
    for (const body of [
      { filter: 'state = OPEN OR node_id = 1' },
      { filter: 'nodeid = 1' },
      { filter: 'client_id = unquoted' },
      { orderBy: 'node_id sideways' },
      { orderBy: 'api_versions' },
    ]) {
      const r = await call(sim, 'ListKafkaConnections', body);
      expect({ status: r.status, code: r.json?.code }, JSON.stringify(body)).toEqual({
        status: 400,
        code: 'invalid_argument',
      });
      expect(r.json?.message?.length).toBeGreaterThan(5);
    }
  });

  it('orders by order_by keys', async () => {
    const r = await call(sim, 'ListKafkaConnections', {
      orderBy: 'node_id desc, total_request_statistics.request_count',
      pageSize: 3000,
    });
    const rows = r.json?.connections as { nodeId: number; totalRequestStatistics: { requestCount: string } }[];
    for (let i = 1; i < rows.length; i++) {
      const a = rows[i - 1]!;
      const b = rows[i]!;
      expect(a.nodeId >= b.nodeId).toBe(true);
      if (a.nodeId === b.nodeId)
        expect(BigInt(a.totalRequestStatistics.requestCount) <= BigInt(b.totalRequestStatistics.requestCount)).toBe(
          true,
        );
    }
  });

  it('pageSize: 0 means 1000, a negative value is an error, fewer rows when asked', async () => {
    const dflt = await call(sim, 'ListKafkaConnections', { pageSize: 0 });
    expect(dflt.json?.connections).toHaveLength(1000);
    expect(Number(dflt.json?.totalSize)).toBeGreaterThan(1000);
    const five = await call(sim, 'ListKafkaConnections', { pageSize: 5, filter: 'node_id = 0' });
    expect(five.json?.connections).toHaveLength(5);
    expect(Number(five.json?.totalSize)).toBeGreaterThan(5);
    const neg = await call(sim, 'ListKafkaConnections', { pageSize: -1 });
    expect({ status: neg.status, code: neg.json?.code }).toEqual({ status: 400, code: 'invalid_argument' });
  });

  it('cuts the answer at the memory budget of about 3 KiB per connection', async () => {
    const small = await startSimServer({
      world: createWorld({ seed: 8, connections: 400, memoryBudgetBytes: 100 * 3072 }),
      clock: 'manual',
    });
    try {
      const r = await call(small, 'ListKafkaConnections', { pageSize: 1000 });
      expect(r.json?.connections).toHaveLength(100);
      expect(Number(r.json?.totalSize)).toBeGreaterThanOrEqual(400);
    } finally {
      await small.close();
    }
  });

  it('answers resource_exhausted (429) after a short wait when two calls overlap', async () => {
    const busy = await startSimServer({
      seed: 2,
      connections: 50,
      clock: 'manual',
      listLatencyMs: 400,
      overlapWaitMs: 50,
    });
    try {
      const first = call(busy, 'ListKafkaConnections', {});
      await new Promise((r) => setTimeout(r, 50));
      const started = Date.now();
      const second = await call(busy, 'ListKafkaConnections', {});
      expect(Date.now() - started).toBeGreaterThanOrEqual(45);
      expect({ status: second.status, code: second.json?.code }).toEqual({ status: 429, code: 'resource_exhausted' });
      expect((await first).status).toBe(200);
      expect((await call(busy, 'ListKafkaConnections', {})).status).toBe(200);
    } finally {
      await busy.close();
    }
  });

  it('serves overlapping calls one after the other when the running one ends within the wait', async () => {
    const busy = await startSimServer({
      seed: 2,
      connections: 50,
      clock: 'manual',
      listLatencyMs: 60,
      overlapWaitMs: 2000,
    });
    try {
      const replies = await Promise.all([1, 2, 3].map(() => call(busy, 'ListKafkaConnections', {})));
      expect(replies.map((r) => r.status)).toEqual([200, 200, 200]);
    } finally {
      await busy.close();
    }
  });

  it('locks per broker: calls narrowed to different brokers do not collide', async () => {
    const busy = await startSimServer({
      seed: 2,
      connections: 50,
      clock: 'manual',
      listLatencyMs: 300,
      overlapWaitMs: 30,
    });
    try {
      const [a, b] = await Promise.all([
        call(busy, 'ListKafkaConnections', { filter: 'node_id = 0' }),
        call(busy, 'ListKafkaConnections', { filter: 'node_id = 1' }),
      ]);
      expect([a.status, b.status]).toEqual([200, 200]);
      const first = call(busy, 'ListKafkaConnections', {
        filter: 'node_id = 2 AND state = KAFKA_CONNECTION_STATE_OPEN',
      });
      await new Promise((r) => setTimeout(r, 50));
      const all = await call(busy, 'ListKafkaConnections', {});
      expect(all.status).toBe(429);
      expect(all.json?.message).toMatch(/broker 2/);
      expect((await first).status).toBe(200);
    } finally {
      await busy.close();
    }
  });

  it('answers failed_precondition without a licence', async () => {
    const unlicensed = await startSimServer({ seed: 2, connections: 10, clock: 'manual', licence: false });
    try {
      const r = await call(unlicensed, 'ListKafkaConnections', {});
      expect({ status: r.status, code: r.json?.code }).toEqual({ status: 400, code: 'failed_precondition' });
      expect(r.json?.message).toMatch(/licen[cs]e/);
      expect((await call(unlicensed, 'GetUpgradeStatus')).status).toBe(200);
    } finally {
      await unlicensed.close();
    }
  });
});
