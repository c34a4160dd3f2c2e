import { describe, expect, it } from 'vitest';
import type { ShadowTopic } from '../../src/api/schema/shadow-topic.ts';
import { createWorld, isSimError, parseScenario, type SimWorld } from '../../src/sim/index.ts';

const S = 1_000_000_000n;

function world(events: string, connections = 300): SimWorld {
  return createWorld({ seed: 5, connections, scenario: parseScenario(`name: t\nevents:\n${events}`, 'test') });
}
function at(w: SimWorld, seconds: number): SimWorld {
  w.advanceTo(w.config.start + BigInt(Math.round(seconds * 1000)) * 1_000_000n);
  return w;
}
const open = (w: SimWorld) => w.connections().filter((c) => c.state === 'KAFKA_CONNECTION_STATE_OPEN');
const link = (w: SimWorld, name = 'dr-primary') => {
  const r = w.getShadowLink({ name });
  if (isSimError(r)) throw new Error(r.message);
  return r.shadowLink;
};
const topic = (w: SimWorld, name: string): ShadowTopic =>
  link(w).status.shadowTopics.find((t) => t.name === name) as ShadowTopic;
const lag = (t: ShadowTopic): bigint =>
  t.status.partitionInformation.reduce((s, p) => s + p.sourceHighWatermark - p.highWatermark, 0n);
const hwm = (t: ShadowTopic): bigint => t.status.partitionInformation.reduce((s, p) => s + p.highWatermark, 0n);
const tasks = (w: SimWorld, name?: string) =>
  link(w).status.taskStatuses.filter((t) => name === undefined || t.name === name);
const upgrade = (w: SimWorld) =>
  w.getUpgradeStatus() as Exclude<ReturnType<SimWorld['getUpgradeStatus']>, { code: string }>;
const iceberg = (w: SimWorld) =>
  w.getIcebergStatus() as Exclude<ReturnType<SimWorld['getIcebergStatus']>, { code: string }>;

describe('each scenario event is observable at its scheduled time', () => {
  it('broker_down: its connections go, its tasks stop, its member is not alive; then it is back', () => {
    const w = world('  - { at: 60s, kind: broker_down, broker: 2, duration: 2m }');
    expect(open(at(w, 59)).some((c) => c.nodeId === 2)).toBe(true);
    at(w, 61);
    expect(w.connections().some((c) => c.nodeId === 2)).toBe(false);
    expect(
      tasks(w)
        .filter((t) => t.brokerId === 2)
        .every((t) => t.state === 'TASK_STATE_NOT_RUNNING' && t.reason.includes('down')),
    ).toBe(true);
    expect(upgrade(w).members.find((m) => m.nodeId === 2)?.alive).toBe(false);
    at(w, 181);
    expect(upgrade(w).members.every((m) => m.alive)).toBe(true);
    expect(
      tasks(w)
        .filter((t) => t.brokerId === 2)
        .every((t) => t.state === 'TASK_STATE_ACTIVE'),
    ).toBe(true);
    expect(open(at(w, 600)).some((c) => c.nodeId === 2 && c.openTime > w.config.start + 180n * S)).toBe(true);
  });

  it('broker_down: the clients of the lost broker reconnect elsewhere under the same client id and address', () => {
    const w = world('  - { at: 60s, kind: broker_down, broker: 2, duration: 2m }');
    const lost = open(at(w, 59)).filter((c) => c.nodeId === 2 && !c.clientId.includes('storm'));
    expect(lost.length).toBeGreaterThan(10);
    // every client id of the lost broker has as many connections again within seconds, elsewhere
    const count = (
      conns: readonly { clientId: string; source: { ipAddress: string } }[],
      id: string,
      ip: string,
    ): number => conns.filter((c) => c.clientId === id && c.source.ipAddress === ip).length;
    const before = open(at(w, 59));
    const after = open(at(w, 75));
    const clients = [...new Map(lost.map((c) => [`${c.clientId}@${c.source.ipAddress}`, c])).values()];
    const kept = clients.filter(
      (c) => count(after, c.clientId, c.source.ipAddress) >= count(before, c.clientId, c.source.ipAddress),
    );
    expect(kept.length / clients.length).toBeGreaterThan(0.9);
    expect(after.filter((c) => c.nodeId === 2)).toHaveLength(0);
  });

  it('connection_storm: one client opens many short-lived connections', () => {
    const w = world('  - { at: 60s, kind: connection_storm, client: reporting-batch, rate: 20, duration: 60s }');
    const storm = () => w.connections().filter((c) => c.clientId.startsWith('reporting-batch-storm'));
    at(w, 59);
    expect(storm()).toHaveLength(0);
    at(w, 90);
    expect(storm().length).toBeGreaterThan(400);
    expect(storm().some((c) => c.state === 'KAFKA_CONNECTION_STATE_CLOSED')).toBe(true);
    expect(new Set(storm().map((c) => c.authenticationInfo.userPrincipal))).toEqual(new Set(['User:svc-reporting']));
    at(w, 60 + 60 + 330);
    expect(storm()).toHaveLength(0);
  });

  it('auth_failures: a wave of connections failing authentication', () => {
    const w = world('  - { at: 60s, kind: auth_failures, rate: 5, duration: 60s }');
    const failed = () => w.connections().filter((c) => c.authenticationInfo.state === 'AUTHENTICATION_STATE_FAILURE');
    at(w, 59);
    expect(failed()).toHaveLength(0);
    at(w, 100);
    expect(failed().length).toBeGreaterThan(150);
    expect(failed().every((c) => c.state !== 'KAFKA_CONNECTION_STATE_OPEN' && c.listenerName === 'external')).toBe(
      true,
    );
    at(w, 500);
    expect(failed()).toHaveLength(0);
  });

  it('consumer_group_idle: the group stops consuming and its connections go idle', () => {
    const w = world('  - { at: 60s, kind: consumer_group_idle, group: analytics-etl, duration: 5m }');
    const group = () => open(w).filter((c) => c.groupId === 'analytics-etl' && c.openTime < w.config.start);
    at(w, 59);
    expect(group().every((c) => c.recentRequestStatistics.requestCount > 0n && c.idleDuration === 0n)).toBe(true);
    at(w, 130);
    expect(group().length).toBeGreaterThan(3);
    for (const c of group()) {
      expect(c.recentRequestStatistics.fetchBytes).toBe(0n);
      expect(c.idleDuration).toBeGreaterThanOrEqual(69n * S);
      expect(c.inFlightRequests.sampledInFlightRequests).toEqual([]);
    }
    at(w, 400);
    expect(group().every((c) => c.recentRequestStatistics.fetchBytes > 0n)).toBe(true);
  });

  it('link_paused: link, tasks and topics paused, replication frozen, then resumed and caught up', () => {
    const w = world('  - { at: 60s, kind: link_paused, duration: 60s }');
    expect(link(at(w, 59)).status.state).toBe('SHADOW_LINK_STATE_ACTIVE');
    at(w, 70);
    const frozen = hwm(topic(w, 'orders'));
    expect(link(w).status.state).toBe('SHADOW_LINK_STATE_PAUSED');
    expect(tasks(w).every((t) => t.state === 'TASK_STATE_PAUSED')).toBe(true);
    expect(topic(w, 'orders').status.state).toBe('SHADOW_TOPIC_STATE_PAUSED');
    expect(hwm(topic(at(w, 110), 'orders'))).toBe(frozen);
    const behind = lag(topic(w, 'orders'));
    at(w, 240);
    expect(link(w).status.state).toBe('SHADOW_LINK_STATE_ACTIVE');
    expect(lag(topic(w, 'orders')) * 5n).toBeLessThan(behind);
  });

  it('link_unavailable: tasks LINK_UNAVAILABLE with a reason, source information stale', () => {
    const w = world('  - { at: 60s, kind: link_unavailable, duration: 60s, reason: "source cluster unreachable" }');
    at(w, 90);
    expect(
      tasks(w, 'source_topic_sync').every(
        (t) => t.state === 'TASK_STATE_LINK_UNAVAILABLE' && t.reason === 'source cluster unreachable',
      ),
    ).toBe(true);
    const p = topic(w, 'orders').status.partitionInformation[0];
    expect(p?.sourceLastUpdatedTimestamp).toBeLessThanOrEqual(w.config.start + 60n * S);
    expect(link(w).status.schemaRegistrySyncStatus.lastErrorMessage).toMatch(/unreachable/);
    expect(
      tasks(at(w, 121)).every((t) => t.state === 'TASK_STATE_ACTIVE' || t.reason === 'paused by configuration'),
    ).toBe(true);
  });

  it('task_faulted: one task on one broker faults with its reason', () => {
    const w = world(
      '  - { at: 60s, kind: task_faulted, task: consumer_offset_sync, broker: 1, reason: boom, duration: 60s }',
    );
    expect(tasks(at(w, 59)).some((t) => t.state === 'TASK_STATE_FAULTED')).toBe(false);
    at(w, 61);
    expect(tasks(w).filter((t) => t.state === 'TASK_STATE_FAULTED')).toEqual([
      expect.objectContaining({ name: 'consumer_offset_sync', brokerId: 1, reason: 'boom' }),
    ]);
    expect(tasks(at(w, 121)).some((t) => t.state === 'TASK_STATE_FAULTED')).toBe(false);
  });

  it('topic_faulted: one shadow topic faults and stops replicating', () => {
    const w = world('  - { at: 60s, kind: topic_faulted, topic: payments, duration: 60s }');
    at(w, 61);
    expect(topic(w, 'payments').status.state).toBe('SHADOW_TOPIC_STATE_FAULTED');
    expect(topic(w, 'orders').status.state).toBe('SHADOW_TOPIC_STATE_ACTIVE');
    const h = hwm(topic(w, 'payments'));
    expect(hwm(topic(at(w, 100), 'payments'))).toBe(h);
    expect(topic(at(w, 121), 'payments').status.state).toBe('SHADOW_TOPIC_STATE_ACTIVE');
  });

  it('failover: FAILING_OVER, then FAILED_OVER', () => {
    const w = world('  - { at: 60s, kind: failover, topic: inventory, transition: 20s }');
    expect(topic(at(w, 59), 'inventory').status.state).toBe('SHADOW_TOPIC_STATE_ACTIVE');
    expect(topic(at(w, 61), 'inventory').status.state).toBe('SHADOW_TOPIC_STATE_FAILING_OVER');
    expect(topic(at(w, 81), 'inventory').status.state).toBe('SHADOW_TOPIC_STATE_FAILED_OVER');
    expect(topic(w, 'orders').status.state).toBe('SHADOW_TOPIC_STATE_ACTIVE');
  });

  it('promotion: PROMOTING, then PROMOTED (every topic of the link)', () => {
    const w = world('  - { at: 60s, kind: promotion, transition: 30s }');
    expect(link(at(w, 61)).status.shadowTopics.every((t) => t.status.state === 'SHADOW_TOPIC_STATE_PROMOTING')).toBe(
      true,
    );
    expect(link(at(w, 91)).status.shadowTopics.every((t) => t.status.state === 'SHADOW_TOPIC_STATE_PROMOTED')).toBe(
      true,
    );
  });

  it('source_traffic_spike: lag grows during the spike and drains afterwards', () => {
    const w = world('  - { at: 60s, kind: source_traffic_spike, topic: orders, factor: 8, duration: 2m }');
    const before = lag(topic(at(w, 59), 'orders'));
    const during = lag(topic(at(w, 175), 'orders'));
    expect(during).toBeGreaterThan(before * 10n);
    const after = lag(topic(at(w, 900), 'orders'));
    expect(after * 10n).toBeLessThan(during);
  });

  it('rolling_upgrade: members move one by one, then ready to finalize, then finalized', () => {
    const w = world(
      '  - { at: 60s, kind: rolling_upgrade, to_release: v26.1.1, member_interval: 60s, restart: 20s, auto_finalize: false, finalize_after: 60s }',
    );
    expect(upgrade(at(w, 59))).toMatchObject({
      state: 'FINALIZATION_STATE_FINALIZED',
      activeVersion: 15n,
      versionAfterFinalization: 15n,
    });
    const first = upgrade(at(w, 61));
    expect(first.state).toBe('FINALIZATION_STATE_UPGRADE_IN_PROGRESS');
    expect(first.members[0]).toMatchObject({ alive: false, versionKnown: false });
    const mid = upgrade(at(w, 100));
    expect(mid.members.map((m) => m.releaseVersion)).toEqual(['v26.1.1', 'v25.3.6', 'v25.3.6']);
    expect(mid.versionAfterFinalization).toBe(mid.activeVersion);
    const ready = upgrade(at(w, 60 + 120 + 25 + 1));
    expect(ready).toMatchObject({
      state: 'FINALIZATION_STATE_READY_TO_FINALIZE',
      activeVersion: 15n,
      versionAfterFinalization: 16n,
      autoFinalizationEnabled: false,
    });
    expect(upgrade(at(w, 60 + 120 + 25 + 61))).toMatchObject({
      state: 'FINALIZATION_STATE_FINALIZED',
      activeVersion: 16n,
      versionAfterFinalization: 16n,
    });
  });

  it('iceberg_catalog_unreachable: catalog error, commits stop, translation goes on, then recovery', () => {
    const w = world('  - { at: 60s, kind: iceberg_catalog_unreachable, error_code: timedout, duration: 4m }');
    expect(iceberg(at(w, 59)).catalog.reachable).toBe(true);
    const early = iceberg(at(w, 61));
    expect(early.catalog).toMatchObject({ reachable: false, errorCode: 'timedout' });
    const p0 = early.topics[0]?.partitions[0];
    const p1 = iceberg(at(w, 290)).topics[0]?.partitions[0];
    expect(p1?.lastCommittedOffset).toBe(p0?.lastCommittedOffset);
    expect((p1?.lastTranslatedOffset ?? 0n) > (p0?.lastTranslatedOffset ?? 0n)).toBe(true);
    expect((p1?.commitLag ?? 0n) > (p0?.commitLag ?? 0n)).toBe(true);
    const healed = iceberg(at(w, 60 + 240 + 100));
    expect(healed.catalog).toEqual({ reachable: true, errorCode: '', errorMessage: '' });
    expect((healed.topics[0]?.partitions[0]?.lastCommittedOffset ?? 0n) > (p1?.lastCommittedOffset ?? 0n)).toBe(true);
  });

  it('iceberg_commit_stall: one topic stops committing while the catalog is reachable', () => {
    const w = world('  - { at: 60s, kind: iceberg_commit_stall, topic: clickstream, duration: 3m }');
    const pick = (name: string) => iceberg(w).topics.find((t) => t.topic === name)?.partitions[0];
    at(w, 100);
    const c0 = pick('clickstream');
    const o0 = pick('orders');
    at(w, 230);
    expect(iceberg(w).catalog.reachable).toBe(true);
    expect(pick('clickstream')?.lastCommittedOffset).toBe(c0?.lastCommittedOffset);
    expect((pick('clickstream')?.commitLag ?? 0n) > (c0?.commitLag ?? 0n)).toBe(true);
    expect(pick('orders')?.lastCommittedOffset).not.toBe(o0?.lastCommittedOffset);
  });
});
