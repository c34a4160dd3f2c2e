import { describe, expect, it } from 'vitest';
import type { KafkaConnection } from '../../src/api/schema/connection.ts';
import type { ShadowLink } from '../../src/api/schema/shadow-link.ts';
import type { PollRecord } from '../../src/db/poll-record.ts';
import { createHistoryReader, openDatabase } from '../../src/db/index.ts';
import { DiffOptionsError, diffStates, type ResourceDiff } from '../../src/report/index.ts';
import { historyDb } from '../fixtures/report/history-db.ts';
import { fakeReader } from '../fixtures/report/fake-reader.ts';
import { connectionsAt, linkAt, scenarioRecords, T, T0 } from '../fixtures/report/scenario.ts';

const reader = fakeReader(scenarioRecords());
const of = (r: { resources: ResourceDiff[] }, name: string): ResourceDiff =>
  r.resources.find((x) => x.resource === name)!;
const byUid = (rows: KafkaConnection[], uid: string): KafkaConnection => rows.find((c) => c.uid.startsWith(uid))!;

describe('diffStates on connections', () => {
  const result = diffStates(reader, { from: T[0]!, to: T[2]! });
  const conns = of(result, 'connections');
  const stateOnly = diffStates(reader, { from: T[0]!, to: T[2]!, only: ['state', 'config'] });

  it('finds the added, removed and changed entities against the served answers', () => {
    expect(conns.observed).toBe(true);
    expect(conns.from.poll?.startTime).toBe(T[0]);
    expect(conns.to.poll?.startTime).toBe(T[2]);
    expect(conns.elapsedSeconds).toBe(120);
    expect(conns.added.map((e) => e.key)).toEqual([byUid(connectionsAt(2), 'd').uid]);
    expect(conns.added[0]!.row).toEqual(byUid(connectionsAt(2), 'd'));
    expect(conns.removed.map((e) => e.key)).toEqual([byUid(connectionsAt(0), 'b').uid]);
    // c only moved its idle time: a moving value is a difference too
    expect(conns.changed.map((e) => e.key)).toEqual([
      byUid(connectionsAt(0), 'a').uid,
      byUid(connectionsAt(0), 'c').uid,
    ]);
    expect(conns.unchanged).toBe(0);
    expect(result.unobserved).toEqual([]);
    expect(result.only).toEqual(['state', 'config', 'values']);
  });

  it('--only state and config leaves the moving values out', () => {
    const c = of(stateOnly, 'connections');
    expect(c.changed.map((e) => e.key)).toEqual([byUid(connectionsAt(0), 'a').uid]);
    expect(c.changed[0]!.counters).toEqual([]);
    expect(c.changed[0]!.gauges).toEqual([]);
    expect(c.unchanged).toBe(1);
    expect(stateOnly.differences).toBe(5);
    const values = diffStates(reader, { from: T[0]!, to: T[2]!, only: ['values'] });
    const v = of(values, 'connections');
    expect([v.added, v.removed]).toEqual([[], []]);
    expect(v.changed.every((e) => e.changes.length === 0 && e.counters.length + e.gauges.length > 0)).toBe(true);
  });

  it('reports each value change with its path and exact old and new values', () => {
    const a = conns.changed[0]!;
    expect(a.changes).toEqual([
      {
        path: 'groupMemberId',
        kind: 'value',
        type: { kind: 'string' },
        old: 'orders-member-1',
        new: 'orders-member-2',
      },
    ]);
  });

  it('shows counters as exact deltas with rates per second between the two polls', () => {
    const before = byUid(connectionsAt(0), 'a').totalRequestStatistics;
    const after = byUid(connectionsAt(2), 'a').totalRequestStatistics;
    const counters = Object.fromEntries(conns.changed[0]!.counters.map((c) => [c.path, c]));
    expect(counters['totalRequestStatistics.fetchBytes']).toMatchObject({
      kind: 'counter',
      old: before.fetchBytes,
      new: after.fetchBytes,
      delta: after.fetchBytes - before.fetchBytes,
      ratePerSecond: Number(after.fetchBytes - before.fetchBytes) / 120,
      unit: 'bytes',
    });
    expect(counters['totalRequestStatistics.requestCount']?.delta).toBe(after.requestCount - before.requestCount);
    expect(Object.keys(counters)).not.toContain('totalRequestStatistics.produceBytes');
  });

  it('reports gauges with both values and the delta, and skips in-flight samples', () => {
    const a = conns.changed[0]!;
    expect(a.gauges.map((g) => g.path)).toEqual(['idleDuration']);
    expect(a.gauges[0]).toMatchObject({ old: 250_000_000n, new: 252_000_000n, delta: 2_000_000n, unit: 'duration' });
    expect(a.changes.map((c) => c.path)).not.toContain('inFlightRequests');
  });

  it('sums counters over the entities present at both instants', () => {
    const fetch = conns.totals.find((t) => t.path === 'totalRequestStatistics.fetchBytes')!;
    const sum = (rows: KafkaConnection[]): bigint =>
      rows
        .filter((c) => c.uid[0] === 'a' || c.uid[0] === 'c')
        .reduce((s, c) => s + c.totalRequestStatistics.fetchBytes, 0n);
    expect(fetch).toMatchObject({ oldSum: sum(connectionsAt(0)), newSum: sum(connectionsAt(2)), moving: 1 });
    expect(fetch.delta).toBe(fetch.newSum - fetch.oldSum);
    expect(fetch.ratePerSecond).toBe(Number(fetch.delta) / 120);
  });
});

describe('diffStates on shadow links', () => {
  const result = diffStates(reader, {
    from: T[0]!,
    to: T[2]!,
    resources: ['shadow-links', 'shadow-tasks', 'shadow-partitions'],
  });

  it('spells out configuration changes', () => {
    const link = of(result, 'shadow-links').changed[0]!;
    expect(link.key).toBe('dr-link');
    expect(link.changes.map((c) => c.description)).toEqual([
      'source password of user "replicator" rotated: set at 2025-09-01T10:01:30Z (previously 2025-08-31T10:00:00Z)',
      'TLS to the source cluster turned off',
      'TLS to the source cluster: certificate material (files) removed',
      'consumer group filter added: include prefix "billing."',
      'consumer offset sync interval 30s → 1m00s',
      'consumer offset sync effective interval 30s → 1m00s',
    ]);
    const rotated = link.changes[0]!;
    expect(rotated.path).toBe(
      'configurations.clientOptions.authenticationConfiguration.scramConfiguration.passwordSetAt',
    );
    expect(rotated.old).toBe(
      linkAt(0).configurations.clientOptions.authenticationConfiguration.scramConfiguration!.passwordSetAt,
    );
    expect(rotated.new).toBe(
      linkAt(2).configurations.clientOptions.authenticationConfiguration.scramConfiguration!.passwordSetAt,
    );
  });

  it('reports task state changes in shadow-tasks, and partition movement as values', () => {
    const task = of(result, 'shadow-tasks').changed[0]!;
    expect(task.key).toBe('dr-link/consumer-offsets/2/0');
    expect(task.changes.map((c) => [c.path, c.old, c.new])).toEqual([
      ['state', 'TASK_STATE_ACTIVE', 'TASK_STATE_FAULTED'],
      ['reason', '', 'SASL authentication failed'],
    ]);
    const parts = of(result, 'shadow-partitions');
    expect(parts.changed).toHaveLength(2);
    for (const p of parts.changed) {
      expect(p.changes).toEqual([]);
      expect(p.counters.map((c) => c.path)).toContain('highWatermark');
      expect(p.gauges.find((g) => g.path === 'lag')).toMatchObject({ old: 0n, new: 100n, delta: 100n });
    }
    const lag = parts.totals.find((t) => t.path === 'lag')!;
    expect([lag.oldSum, lag.newSum]).toEqual([0n, 200n]);
    const stateOnly = diffStates(reader, { from: T[0]!, to: T[2]!, resources: ['shadow-partitions'], only: ['state'] });
    expect(of(stateOnly, 'shadow-partitions')).toMatchObject({ changed: [], unchanged: 2 });
  });

  it('spells a switch of the authentication alternative and a removed filter', () => {
    const before = linkAt(0);
    const after: ShadowLink = structuredClone(linkAt(0));
    after.configurations.clientOptions.authenticationConfiguration = {
      plainConfiguration: { username: 'legacy', passwordSet: true, passwordSetAt: T0 },
    };
    after.configurations.consumerOffsetSyncOptions.groupFilters = [];
    after.configurations.consumerOffsetSyncOptions.paused = true;
    const records = [linkRecord(before, T[0]!), linkRecord(after, T[1]!)];
    const link = of(diffStates(fakeReader(records), { from: T[0]!, to: T[1]! }), 'shadow-links').changed[0]!;
    expect(link.changes.map((c) => c.description)).toEqual([
      'source authentication changed from SASL/SCRAM (SCRAM_SHA_256 user "replicator") to SASL/PLAIN (PLAIN user "legacy")',
      'consumer group filter removed: include literal "orders"',
      'consumer offset sync paused',
    ]);
  });
});

describe('unobserved instants', () => {
  it('reports an instant after failed polls as unobserved, never as no change', () => {
    const result = diffStates(reader, { from: T[0]!, to: T[3]!, resources: ['connections'] });
    const conns = of(result, 'connections');
    expect(conns.observed).toBe(false);
    expect(conns.to).toMatchObject({ observed: false, failures: 1 });
    expect(conns.to.poll?.startTime).toBe(T[2]);
    expect(conns.to.lastFailure?.outcome).toBe('unavailable');
    expect(result.unobserved).toEqual(['connections']);
    expect(result.differences).toBe(0);
  });

  it('reports an instant before the first poll as unobserved', () => {
    const result = diffStates(reader, { from: T0 - 1n, to: T[1]!, resources: ['connections'] });
    expect(of(result, 'connections').from).toMatchObject({ observed: false, poll: undefined, failures: 0 });
    expect(result.unobserved).toEqual(['connections']);
  });

  it('reports a resource asked for by name but never recorded as unobserved; skips it by default', () => {
    expect(diffStates(reader, { from: T[0]!, to: T[1]!, resources: ['upgrade'] }).unobserved).toEqual(['upgrade']);
    const all = diffStates(reader, { from: T[0]!, to: T[1]! });
    expect(all.skipped).toEqual(['upgrade', 'upgrade-members', 'iceberg-topics', 'iceberg-partitions']);
    expect(all.resources.map((r) => r.resource)).toEqual([
      'connections',
      'shadow-links',
      'shadow-tasks',
      'shadow-topics',
      'shadow-partitions',
    ]);
  });

  it('treats a failed poll of one link as unobserved even when another link answered later', () => {
    const other: ShadowLink = { ...structuredClone(linkAt(0)), name: 'other-link' };
    const failedB: PollRecord = {
      ...linkRecord(linkAt(0), T[1]!),
      outcome: { ok: false, code: 'unavailable', kind: 'connect', httpStatus: 503, message: 'down', bytes: 0 },
    };
    // the real store: it composes the state of several links from one poll per link
    const store = historyDb([
      linkRecord(linkAt(0), T[0]!),
      linkRecord(other, T[0]! + 1n),
      failedB,
      linkRecord(other, T[1]! + 1n),
    ]);
    const db = openDatabase(store.path, { readonly: true });
    try {
      const result = diffStates(createHistoryReader(db), { from: T[0]! + 1n, to: T[2]!, resources: ['shadow-links'] });
      expect(of(result, 'shadow-links').to.poll?.target).toBe('other-link');
      expect(result.unobserved).toEqual(['shadow-links']);
      expect(of(result, 'shadow-links').to).toMatchObject({ failures: 1, lastFailure: { target: 'dr-link' } });
    } finally {
      db.close();
      store.cleanup();
    }
  });

  it('counts a failed attempt followed by a successful retry as observed', () => {
    const failed: PollRecord = {
      ...connRecord(connectionsAt(0), T[1]!),
      outcome: { ok: false, code: 'resource_exhausted', kind: 'connect', httpStatus: 429, message: 'busy', bytes: 0 },
    };
    const records = [connRecord(connectionsAt(0), T[0]!), failed, connRecord(connectionsAt(1), T[1]! + 5_000_000_000n)];
    const result = diffStates(fakeReader(records), { from: T[0]!, to: T[2]!, resources: ['connections'] });
    expect(result.unobserved).toEqual([]);
    expect(result.differences).toBeGreaterThan(0);
  });

  it('observes again after the failure is followed by a success', () => {
    const result = diffStates(reader, { from: T[2]!, to: T[4]!, resources: ['connections'], only: ['state'] });
    expect(result.unobserved).toEqual([]);
    expect(of(result, 'connections').changed).toEqual([]);
    expect(result.differences).toBe(0);
  });
});

describe('diffStates edge cases', () => {
  it('finds no differences between an instant and itself', () => {
    const result = diffStates(reader, { from: T[2]!, to: T[2]! });
    expect(result.differences).toBe(0);
    expect(result.unobserved).toEqual([]);
  });

  it('refuses polls and a reversed range', () => {
    expect(() => diffStates(reader, { from: T[0]!, to: T[1]!, resources: ['polls'] })).toThrow(DiffOptionsError);
    expect(() => diffStates(reader, { from: T[1]!, to: T[0]! })).toThrow(/after/);
  });

  it('marks a counter that went down as a change (a reset), and reports map keys and list order', () => {
    const a = connectionsAt(0)[0]!;
    const b: KafkaConnection = structuredClone(a);
    b.totalRequestStatistics.requestCount = 3n;
    b.apiVersions = { '0': 9, '1': 14, '18': 3 };
    const records = [connRecord([a], T[0]!), connRecord([b], T[1]!)];
    const ch = of(diffStates(fakeReader(records), { from: T[0]!, to: T[1]! }), 'connections').changed[0]!;
    expect(ch.changes.map((c) => [c.path, c.kind, c.old, c.new])).toEqual([
      ['apiVersions.1', 'value', 13, 14],
      ['apiVersions.18', 'value', undefined, 3],
    ]);
    const reset = ch.counters.find((c) => c.path === 'totalRequestStatistics.requestCount')!;
    expect([reset.kind, reset.old, reset.new]).toEqual(['counter', a.totalRequestStatistics.requestCount, 3n]);
    expect(reset.delta).toBe(3n - a.totalRequestStatistics.requestCount);
  });
});

function connRecord(connections: KafkaConnection[], at: bigint): PollRecord {
  return {
    cluster: 'prod',
    operation: 'ListKafkaConnections',
    target: '',
    request: { filter: '', orderBy: '', pageSize: 0 },
    round: `c${at}`,
    attempt: 1,
    scheduledAt: at,
    startedAt: at,
    endedAt: at,
    outcome: { ok: true, answer: { connections, totalSize: BigInt(connections.length) }, bytes: 1 },
  };
}

function linkRecord(shadowLink: ShadowLink, at: bigint): PollRecord {
  return {
    cluster: 'prod',
    operation: 'GetShadowLink',
    target: shadowLink.name,
    request: { name: shadowLink.name },
    round: `l${at}`,
    attempt: 1,
    scheduledAt: at,
    startedAt: at,
    endedAt: at,
    outcome: { ok: true, answer: { shadowLink }, bytes: 1 },
  };
}
