import { describe, expect, it } from 'vitest';
import { encodeAnswer } from '../../src/api/wire/answers.ts';
import type { KafkaConnection } from '../../src/api/schema/connection.ts';
import { createWorld, loadScenario, type SimWorld } from '../../src/sim/index.ts';

const S = 1_000_000_000n;
const LIST = { filter: '', orderBy: '', pageSize: 5000 };

function snapshot(w: SimWorld): string {
  const d = w.describe();
  return [
    encodeAnswer('ListKafkaConnections', w.answer('ListKafkaConnections', LIST) as never),
    ...d.links.map((name) => encodeAnswer('GetShadowLink', w.answer('GetShadowLink', { name }) as never)),
    encodeAnswer('GetUpgradeStatus', w.answer('GetUpgradeStatus', {}) as never),
    encodeAnswer('GetIcebergStatus', w.answer('GetIcebergStatus', { topicsFilter: [] }) as never),
  ].join('\n');
}

const byUid = (w: SimWorld): Map<string, KafkaConnection> => new Map(w.connections().map((c) => [c.uid, c]));

describe('determinism', () => {
  it('same seed and same clock give byte-identical answers, however the clock was stepped', () => {
    const scenario = loadScenario('incident');
    const a = createWorld({ seed: 11, connections: 400, scenario });
    const b = createWorld({ seed: 11, connections: 400, scenario });
    const target = a.config.start + 9n * 60n * S + 123_456_789n;
    a.advanceTo(target);
    for (let t = b.config.start; t < target; t += 7n * S) b.advanceTo(t);
    b.advanceTo(target);
    expect(snapshot(b)).toBe(snapshot(a));
  });

  it('different seeds give different worlds', () => {
    const a = createWorld({ seed: 1, connections: 100 });
    const b = createWorld({ seed: 2, connections: 100 });
    expect(snapshot(a)).not.toBe(snapshot(b));
    const uidsA = new Set(a.connections().map((c) => c.uid));
    expect(b.connections().some((c) => uidsA.has(c.uid))).toBe(false);
  });
});

describe('realism of connections', () => {
  const w = createWorld({ seed: 21, connections: 600 });
  const start = w.config.start;
  const samples: Map<string, KafkaConnection>[] = [];
  for (let s = 0; s <= 600; s += 30) {
    w.advanceTo(start + BigInt(s) * S);
    samples.push(byUid(w));
  }

  it('counters only grow', () => {
    for (let i = 1; i < samples.length; i++) {
      for (const [uid, c] of samples[i] as Map<string, KafkaConnection>) {
        const prev = (samples[i - 1] as Map<string, KafkaConnection>).get(uid);
        if (prev === undefined) continue;
        for (const k of ['fetchBytes', 'produceBatchCount', 'produceBytes', 'requestCount'] as const) {
          expect(c.totalRequestStatistics[k] >= prev.totalRequestStatistics[k]).toBe(true);
        }
      }
    }
  });

  it('recentRequestStatistics is the increase of the totals over the last minute', () => {
    let checked = 0;
    for (let i = 2; i < samples.length; i++) {
      for (const [uid, c] of samples[i] as Map<string, KafkaConnection>) {
        const before = (samples[i - 2] as Map<string, KafkaConnection>).get(uid); // 60 s earlier
        if (before === undefined || c.state !== 'KAFKA_CONNECTION_STATE_OPEN') continue;
        for (const k of ['fetchBytes', 'produceBatchCount', 'produceBytes', 'requestCount'] as const) {
          const diff = c.totalRequestStatistics[k] - before.totalRequestStatistics[k];
          expect(c.recentRequestStatistics[k] - diff).toBeGreaterThanOrEqual(-1n);
          expect(c.recentRequestStatistics[k] - diff).toBeLessThanOrEqual(1n);
        }
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(1000);
  });

  it('connections open and close; closed ones stay listed 2 to 5 minutes with closeTime set', () => {
    const first = samples[0] as Map<string, KafkaConnection>;
    const last = samples.at(-1) as Map<string, KafkaConnection>;
    expect([...last.keys()].some((u) => !first.has(u))).toBe(true);
    const now = start + 600n * S;
    let closed = 0;
    for (const c of last.values()) {
      if (c.state !== 'KAFKA_CONNECTION_STATE_CLOSED') continue;
      closed++;
      expect(c.closeTime).toBeGreaterThan(0n);
      expect(now - c.closeTime).toBeLessThanOrEqual(300n * S);
    }
    expect(closed).toBeGreaterThan(0);
    // a connection closed in the first sample window is gone 5 minutes later
    const gone = [...(samples[2] as Map<string, KafkaConnection>).values()].filter(
      (c) => c.state === 'KAFKA_CONNECTION_STATE_CLOSED',
    );
    for (const c of gone) expect(last.has(c.uid)).toBe(false);
  });

  it('has a realistic client mix, idle durations and at most five sampled in-flight requests', () => {
    const rows = [...(samples.at(-1) as Map<string, KafkaConnection>).values()];
    const software = new Set(rows.map((c) => `${c.clientSoftwareName} ${c.clientSoftwareVersion}`));
    for (const s of [
      'apache-kafka-java 3.7.0',
      'librdkafka 2.4.0',
      'franz-go v1.17.1',
      'kafka-python 2.0.2',
      'KafkaJS 2.2.4',
    ])
      expect(software).toContain(s);
    expect(new Set(rows.map((c) => c.listenerName))).toEqual(new Set(['internal', 'external', 'replication']));
    expect(rows.some((c) => c.tlsInfo.enabled) && rows.some((c) => !c.tlsInfo.enabled)).toBe(true);
    expect(rows.some((c) => c.groupInstanceId !== '')).toBe(true);
    expect(rows.some((c) => c.transactionalId !== '')).toBe(true);
    expect(rows.some((c) => c.idleDuration > 1n * S)).toBe(true);
    expect(rows.some((c) => c.inFlightRequests.hasMoreRequests)).toBe(true);
    for (const c of rows) {
      expect(c.inFlightRequests.sampledInFlightRequests.length).toBeLessThanOrEqual(5);
      expect(c.authenticationInfo.userPrincipal).toMatch(/^User:/);
    }
  });
});
