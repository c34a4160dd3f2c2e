import { describe, expect, it } from 'vitest';
import type { PollRecord } from '../../src/db/poll-record.ts';
import { runRound } from '../../src/collector/poller.ts';
import { PROBE_PAGE_SIZE } from '../../src/collector/fanout.ts';
import { connectionsServer, deps, fail, fakeClient, ok, runtime } from './helpers/fakes.ts';

const UPGRADE = {
  activeVersion: 1n,
  autoFinalizationEnabled: false,
  members: [],
  state: 'FINALIZATION_STATE_FINALIZED',
  versionAfterFinalization: 1n,
};

describe('a poll round', () => {
  it('records one attempt with its request, round and times', async () => {
    const records: PollRecord[] = [];
    const client = fakeClient(() => ok(UPGRADE));
    const r = await runRound(runtime(client), 'GetUpgradeStatus', deps(records), 5n);
    expect(r).toMatchObject({
      cluster: 'test',
      operation: 'GetUpgradeStatus',
      targets: 1,
      calls: 1,
      failedCalls: 0,
      failures: [],
      stopped: false,
    });
    expect(records).toHaveLength(1);
    const rec = records[0]!;
    expect(rec).toMatchObject({
      cluster: 'test',
      operation: 'GetUpgradeStatus',
      target: '',
      request: {},
      round: r.round,
      attempt: 1,
      scheduledAt: 5n,
    });
    expect(rec.startedAt).toBeGreaterThan(0n);
    expect(rec.endedAt).toBeGreaterThan(rec.startedAt);
    expect(rec.outcome).toMatchObject({ ok: true, answer: UPGRADE, bytes: 2 });
  });

  it('a store that is behind (record gives a promise) holds the next call until it settles', async () => {
    const records: PollRecord[] = [];
    const events: string[] = [];
    const client = fakeClient((op, _req, n) => {
      events.push(`call ${n}`);
      return n < 2 ? fail(op, 'unavailable', 503) : ok(UPGRADE);
    });
    let release: () => void = () => undefined;
    const caughtUp = new Promise<void>((r) => {
      release = r;
    });
    const d = deps(records, {
      record: (rec) => {
        records.push(rec);
        events.push(`record ${rec.attempt}`);
        return rec.attempt === 1 ? caughtUp : undefined;
      },
    });
    const round = runRound(runtime(client), 'GetUpgradeStatus', d);
    await new Promise((r) => setTimeout(r, 20));
    expect(events).toEqual(['call 1', 'record 1']);
    events.push('caught up');
    release();
    const r = await round;
    expect(events).toEqual(['call 1', 'record 1', 'caught up', 'call 2', 'record 2']);
    expect(r.calls).toBe(2);
  });

  it('retries unavailable with back-off and records every attempt', async () => {
    const records: PollRecord[] = [];
    const client = fakeClient((op, _req, n) => (n < 3 ? fail(op, 'unavailable', 503) : ok(UPGRADE)));
    const d = deps(records);
    const r = await runRound(runtime(client), 'GetUpgradeStatus', d);
    expect(records.map((x) => [x.attempt, x.outcome.ok, x.round])).toEqual([
      [1, false, r.round],
      [2, false, r.round],
      [3, true, r.round],
    ]);
    expect(records[0]!.outcome).toMatchObject({ ok: false, code: 'unavailable', kind: 'connect', httpStatus: 503 });
    expect(r.failures).toEqual([]);
    expect(r.failedCalls).toBe(2);
    expect(d.slept).toEqual([375, 750]); // equal jitter at random 0.5 of 500 ms, 1000 ms
  });

  it('waits longer after resource_exhausted', async () => {
    const records: PollRecord[] = [];
    const client = fakeClient((op, _req, n) => (n < 2 ? fail(op, 'resource_exhausted', 429) : ok(UPGRADE)));
    const d = deps(records);
    await runRound(runtime(client), 'GetUpgradeStatus', d);
    expect(d.slept).toEqual([3750]);
  });

  it('gives up after maxAttempts and reports the last failure', async () => {
    const records: PollRecord[] = [];
    const client = fakeClient((op) => fail(op, 'deadline_exceeded', 504));
    const r = await runRound(runtime(client), 'GetUpgradeStatus', deps(records));
    expect(records).toHaveLength(4);
    expect(r.failures).toEqual([
      {
        target: '',
        code: 'deadline_exceeded',
        kind: 'connect',
        httpStatus: 504,
        message: 'deadline_exceeded from fake',
      },
    ]);
  });

  for (const code of [
    'invalid_argument',
    'failed_precondition',
    'permission_denied',
    'unauthenticated',
    'not_found',
  ] as const) {
    it(`does not retry ${code}`, async () => {
      const records: PollRecord[] = [];
      const client = fakeClient((op) => fail(op, code, 400, 'the cluster has no valid enterprise licence'));
      const r = await runRound(runtime(client), 'GetUpgradeStatus', deps(records));
      expect(records).toHaveLength(1);
      expect(r.failures[0]!.code).toBe(code);
    });
  }

  it('polls each configured link and topic, one target each', async () => {
    const records: PollRecord[] = [];
    const client = fakeClient((op, req) => (req.name === 'gone' ? fail(op, 'not_found', 404) : ok({})));
    const rt = runtime(client, {
      shadowLinks: [
        { name: 'dr', topics: ['orders', 'gone'] },
        { name: 'audit', topics: [] },
      ],
    });
    const links = await runRound(rt, 'GetShadowLink', deps(records));
    const lists = await runRound(rt, 'ListShadowTopics', deps(records));
    const topics = await runRound(rt, 'GetShadowTopic', deps(records));
    expect([links.targets, lists.targets, topics.targets]).toEqual([2, 2, 2]);
    expect(client.calls.map((c) => [c.op, c.request])).toEqual([
      ['GetShadowLink', { name: 'dr' }],
      ['GetShadowLink', { name: 'audit' }],
      ['ListShadowTopics', { shadowLinkName: 'dr' }],
      ['ListShadowTopics', { shadowLinkName: 'audit' }],
      ['GetShadowTopic', { name: 'orders', shadowLinkName: 'dr' }],
      ['GetShadowTopic', { name: 'gone', shadowLinkName: 'dr' }],
    ]);
    expect(records.map((r) => r.target)).toEqual(['dr', 'audit', 'dr', 'audit', 'dr/orders', 'dr/gone']);
    expect(topics.failures.map((f) => f.target)).toEqual(['dr/gone']);
  });

  it('does nothing for the shadow operations when no link is configured', async () => {
    const records: PollRecord[] = [];
    const client = fakeClient(() => ok({}));
    const r = await runRound(runtime(client), 'GetShadowLink', deps(records));
    expect(r.targets).toBe(0);
    expect(client.calls).toHaveLength(0);
  });

  it('sends the configured Iceberg topics filter', async () => {
    const records: PollRecord[] = [];
    const client = fakeClient(() => ok({ catalog: {}, topics: [] }));
    await runRound(runtime(client, { icebergTopics: ['orders'] }), 'GetIcebergStatus', deps(records));
    expect(client.calls[0]!.request).toEqual({ topicsFilter: ['orders'] });
  });
});

describe('the connections fan-out', () => {
  // node 1: 7 rows on shards 0..2 (more than the cap of 5), node 2: 3 rows, node 3: 2 rows
  const rows = [
    ...[0, 0, 1, 1, 2, 2, 2].map((shardId, i) => ({ uid: `n1-${i}`, nodeId: 1, shardId })),
    ...[0, 1, 1].map((shardId, i) => ({ uid: `n2-${i}`, nodeId: 2, shardId })),
    ...[0, 0].map((shardId, i) => ({ uid: `n3-${i}`, nodeId: 3, shardId })),
  ];

  it('does not fan out when the answer is complete', async () => {
    const records: PollRecord[] = [];
    const client = fakeClient((_op, req) => connectionsServer(rows, 100)(req));
    const r = await runRound(runtime(client), 'ListKafkaConnections', deps(records));
    expect(client.calls).toHaveLength(1);
    expect(r.coverage).toEqual({ rowsCovered: 12, totalSize: 12n, calls: 1, complete: true });
    expect(records[0]!.coverage).toEqual({ rowsReturned: 12, totalSize: 12n, fanoutCalls: 1, slice: '' });
    expect(records[0]!.request).toEqual({ filter: '', orderBy: '', pageSize: 0 });
  });

  it('fans out by broker, then by shard, over brokers from upgrade members and connections', async () => {
    const records: PollRecord[] = [];
    const client = fakeClient((op, req) =>
      op === 'GetUpgradeStatus'
        ? ok({ ...UPGRADE, members: [{ nodeId: 1 }, { nodeId: 2 }, { nodeId: 3 }] })
        : connectionsServer(rows, 5)(req),
    );
    const rt = runtime(client, {
      connections: {
        pageSize: 0,
        filter: 'state = KAFKA_CONNECTION_STATE_OPEN',
        orderBy: '',
        fanout: true,
        maxCalls: 100,
      },
    });
    await runRound(rt, 'GetUpgradeStatus', deps(records));
    const r = await runRound(rt, 'ListKafkaConnections', deps(records));
    const filters = client.calls.slice(1).map((c) => c.request.filter);
    const base = 'state = KAFKA_CONNECTION_STATE_OPEN';
    expect(filters).toEqual([
      base,
      `${base} AND node_id = 1`,
      `${base} AND node_id = 1 AND shard_id = 0`,
      `${base} AND node_id = 1 AND shard_id = 1`,
      `${base} AND node_id = 1 AND shard_id = 2`,
      `${base} AND node_id = 2`,
      `${base} AND node_id = 3`,
    ]);
    expect(r.coverage).toEqual({ rowsCovered: 12, totalSize: 12n, calls: 7, complete: true });
    const conn = records.filter((x) => x.operation === 'ListKafkaConnections');
    expect(conn.map((x) => x.coverage!.slice)).toEqual([
      '',
      'node_id = 1',
      'node_id = 1 AND shard_id = 0',
      'node_id = 1 AND shard_id = 1',
      'node_id = 1 AND shard_id = 2',
      'node_id = 2',
      'node_id = 3',
    ]);
    expect(conn.map((x) => x.coverage!.fanoutCalls)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(new Set(conn.map((x) => x.round)).size).toBe(1);
    expect(client.maxActive).toBe(1);
  });

  it('asks only for the total in the first call once a round was cut, and the full page again once the cluster fits', async () => {
    const records: PollRecord[] = [];
    let listed = rows;
    const client = fakeClient((_op, req) => connectionsServer(listed, 5)(req));
    const rt = runtime(client);
    rt.topology.brokers.add(1).add(2).add(3); // as GetUpgradeStatus members teach it
    const first = await runRound(rt, 'ListKafkaConnections', deps(records));
    expect(first.coverage).toMatchObject({ rowsCovered: 12, complete: true });
    const pages = (round: string): unknown[] =>
      records.filter((x) => x.round === round).map((x) => (x.request as { pageSize: number }).pageSize);
    expect(pages(first.round)[0]).toBe(0);

    // the configured page was cut: the next first call asks for one row, the slices list them all
    const second = await runRound(rt, 'ListKafkaConnections', deps(records, { roundId: () => 'second' }));
    expect(second.coverage).toEqual({ rowsCovered: 12, totalSize: 12n, calls: second.calls, complete: true });
    expect(pages('second')[0]).toBe(PROBE_PAGE_SIZE);
    expect(records.find((x) => x.round === 'second')!.coverage).toMatchObject({ rowsReturned: 1, totalSize: 12n });

    // the cluster shrank below the page the server cut at: a probe, then the full page (one call)
    listed = rows.slice(0, 4);
    const third = await runRound(rt, 'ListKafkaConnections', deps(records, { roundId: () => 'third' }));
    expect(third.coverage).toMatchObject({ rowsCovered: 4, totalSize: 4n, complete: true });
    expect(pages('third')[0]).toBe(PROBE_PAGE_SIZE);
    const fourth = await runRound(rt, 'ListKafkaConnections', deps(records, { roundId: () => 'fourth' }));
    expect(fourth.calls).toBe(1);
    expect(pages('fourth')).toEqual([0]);
  });

  it('asks for a full page again after a round that a probe left incomplete', async () => {
    const records: PollRecord[] = [];
    // the brokers' rows interleaved: a full page (5 rows) names all three brokers
    const mixed = [0, 7, 10, 1, 8, 11, 2, 9, 3, 4, 5, 6].map((i) => rows[i]!);
    const client = fakeClient((_op, req) => connectionsServer(mixed, 5)(req));
    const rt = runtime(client);
    await runRound(rt, 'ListKafkaConnections', deps(records));
    rt.topology.brokers.clear(); // forgotten: the probe's round has no broker to slice by
    rt.topology.shards.clear();
    const probed = await runRound(rt, 'ListKafkaConnections', deps(records, { roundId: () => 'probed' }));
    expect(probed.coverage!.complete).toBe(false);
    const next = await runRound(rt, 'ListKafkaConnections', deps(records, { roundId: () => 'next' }));
    expect(records.find((x) => x.round === 'next')!.request).toMatchObject({ pageSize: 0 });
    expect(next.coverage!.rowsCovered).toBeGreaterThan(probed.coverage!.rowsCovered);
  });

  it('never probes without fan-out', async () => {
    const records: PollRecord[] = [];
    const client = fakeClient((_op, req) => connectionsServer(rows, 5)(req));
    const rt = runtime(client, { connections: { pageSize: 0, filter: '', orderBy: '', fanout: false, maxCalls: 256 } });
    await runRound(rt, 'ListKafkaConnections', deps(records));
    await runRound(rt, 'ListKafkaConnections', deps(records));
    expect(client.calls.map((c) => c.request.pageSize)).toEqual([0, 0]);
  });

  it('stops at maxCalls and records the coverage reached', async () => {
    const records: PollRecord[] = [];
    const client = fakeClient((_op, req) => connectionsServer(rows, 5)(req));
    const rt = runtime(client, { connections: { pageSize: 0, filter: '', orderBy: '', fanout: true, maxCalls: 2 } });
    const r = await runRound(rt, 'ListKafkaConnections', deps(records));
    expect(client.calls).toHaveLength(2);
    expect(r.coverage!.complete).toBe(false);
    expect(r.coverage!.totalSize).toBe(12n);
  });

  it('keeps going past a failed slice', async () => {
    const records: PollRecord[] = [];
    const client = fakeClient((op, req) =>
      String(req.filter).includes('node_id = 2') ? fail(op, 'permission_denied', 403) : connectionsServer(rows, 5)(req),
    );
    const rt = runtime(client);
    rt.topology.brokers.add(1).add(2).add(3);
    const r = await runRound(rt, 'ListKafkaConnections', deps(records));
    expect(r.failures).toHaveLength(1);
    expect(r.coverage!.rowsCovered).toBe(9);
    expect(records.at(-1)!.request).toMatchObject({ filter: 'node_id = 3' });
  });
});

describe('one call at a time and stopping', () => {
  it('never overlaps calls of concurrent rounds on one cluster', async () => {
    const records: PollRecord[] = [];
    const client = fakeClient((op) => (op === 'GetUpgradeStatus' ? ok(UPGRADE) : ok({})));
    const rt = runtime(client, { shadowLinks: [{ name: 'a', topics: ['x', 'y'] }] });
    const d = deps(records);
    await Promise.all(
      ['GetUpgradeStatus', 'GetShadowLink', 'ListShadowTopics', 'GetShadowTopic', 'GetIcebergStatus'].map((op) =>
        runRound(rt, op as never, d),
      ),
    );
    expect(client.calls).toHaveLength(6);
    expect(client.maxActive).toBe(1);
  });

  it('starts no call once stopping', async () => {
    const records: PollRecord[] = [];
    const stop = new AbortController();
    stop.abort();
    const client = fakeClient(() => ok(UPGRADE));
    const r = await runRound(runtime(client), 'GetUpgradeStatus', deps(records, { stopping: stop.signal }));
    expect(client.calls).toHaveLength(0);
    expect(records).toHaveLength(0);
    expect(r.stopped).toBe(true);
  });

  it('does not retry once stopping, and records the attempt that was cut', async () => {
    const records: PollRecord[] = [];
    const stop = new AbortController();
    const client = fakeClient((op) => {
      stop.abort();
      return fail(op, 'unavailable', 503);
    });
    const r = await runRound(runtime(client), 'GetUpgradeStatus', deps(records, { stopping: stop.signal }));
    expect(records).toHaveLength(1);
    expect(r.stopped).toBe(true);
    expect(r.failures).toHaveLength(1);
  });

  it('turns a client that throws into a recorded failure', async () => {
    const records: PollRecord[] = [];
    const client = fakeClient(() => {
      throw new TypeError('bad request shape');
    });
    const r = await runRound(runtime(client), 'GetUpgradeStatus', deps(records));
    expect(records[0]!.outcome).toMatchObject({
      ok: false,
      code: 'internal',
      message: 'the client failed: bad request shape',
    });
    expect(r.failures).toHaveLength(1);
  });
});
