import { describe, expect, it } from 'vitest';
import { encodeAnswer, parseAnswer } from '../../src/api/wire/answers.ts';
import { OPERATIONS, OPERATION_NAMES, type OperationName } from '../../src/api/schema/operations.ts';
import { createWorld, encodeAnswerFast, isSimError, loadScenario, type SimWorld } from '../../src/sim/index.ts';
import { checkWire } from './helpers.ts';

const EPOCH = '1970-01-01T00:00:00.000000000Z';

function requests(w: SimWorld): [OperationName, unknown][] {
  const d = w.describe();
  const out: [OperationName, unknown][] = [
    ['ListKafkaConnections', { filter: '', orderBy: '', pageSize: 0 }],
    ['GetUpgradeStatus', {}],
    ['GetIcebergStatus', { topicsFilter: [] }],
  ];
  for (const l of d.links) out.push(['GetShadowLink', { name: l }], ['ListShadowTopics', { shadowLinkName: l }]);
  for (const t of d.topics) out.push(['GetShadowTopic', { name: t.topic, shadowLinkName: t.link }]);
  return out;
}

describe('every answer follows the wire rules', () => {
  for (const seed of [1, 7, 424242]) {
    it(`seed ${seed}: all operations, through an incident`, () => {
      const w = createWorld({ seed, connections: 150, scenario: loadScenario('incident') });
      const seen = new Set<OperationName>();
      for (const minute of [0, 3, 6, 9, 12, 15, 18]) {
        w.advanceTo(w.config.start + BigInt(minute * 60 + 1) * 1_000_000_000n);
        for (const [op, req] of requests(w)) {
          const value = w.answer(op, req as never);
          expect(isSimError(value), `${op} ${JSON.stringify(req)}`).toBe(false);
          const text = encodeAnswer(op, value as never);
          expect(encodeAnswerFast(op, value as never)).toBe(text);
          checkWire(OPERATIONS[op].response, JSON.parse(text), op);
          expect(() => parseAnswer(op, text)).not.toThrow();
          seen.add(op);
        }
      }
      expect([...seen].sort()).toEqual([...OPERATION_NAMES].sort());
    });
  }

  it('writes the epoch for unset timestamps and leaves unset Iceberg offsets out', () => {
    const w = createWorld({ seed: 3, connections: 300 });
    w.advanceBy(600);
    const text = encodeAnswer(
      'ListKafkaConnections',
      w.answer('ListKafkaConnections', { filter: '', orderBy: '', pageSize: 0 }) as never,
    );
    const conns = JSON.parse(text).connections as { state: string; closeTime: string }[];
    expect(conns.some((c) => c.state === 'KAFKA_CONNECTION_STATE_CLOSED')).toBe(true);
    for (const c of conns) {
      if (c.state === 'KAFKA_CONNECTION_STATE_CLOSED') expect(c.closeTime).not.toBe(EPOCH);
      else expect(c.closeTime).toBe(EPOCH);
    }
    const ice = JSON.parse(encodeAnswer('GetIcebergStatus', w.getIcebergStatus() as never));
    const empty = ice.topics.find((t: { topic: string }) => t.topic === 'fraud-scores').partitions.at(-1);
    expect(empty).toEqual({ partition: 2, commitLag: '0' });
    const lso = JSON.parse(encodeAnswer('GetShadowLink', w.getShadowLink({ name: 'dr-primary' }) as never));
    // topic mode link: schema registry status all defaults, epoch timestamps included
    const other = JSON.parse(encodeAnswer('GetShadowLink', w.getShadowLink({ name: 'analytics-mirror' }) as never));
    expect(other.shadowLink.status.schemaRegistrySyncStatus.lastFullSync.startTime).toBe(EPOCH);
    expect(lso.shadowLink.status.schemaRegistrySyncStatus.totalsSinceTaskStart.startTime).not.toBe(EPOCH);
  });

  it('never returns a password, only passwordSet and passwordSetAt', () => {
    const w = createWorld({ seed: 5 });
    for (const name of w.describe().links) {
      const text = encodeAnswer('GetShadowLink', w.getShadowLink({ name }) as never);
      expect(text).not.toMatch(/"password"\s*:/i);
      expect(text).toMatch(/"passwordSet":true,"passwordSetAt":"20/);
    }
  });

  it('writes apiVersions with decimal string keys', () => {
    const w = createWorld({ seed: 9, connections: 50 });
    const c = JSON.parse(
      encodeAnswer(
        'ListKafkaConnections',
        w.answer('ListKafkaConnections', { filter: '', orderBy: '', pageSize: 0 }) as never,
      ),
    ).connections[0];
    expect(Object.keys(c.apiVersions).every((k) => /^[0-9]+$/.test(k))).toBe(true);
  });

  it('the fast encoder stays exact when worlds share uids (same seed, different shapes)', () => {
    const a = createWorld({ seed: 12, connections: 300, brokers: 3 });
    const b = createWorld({ seed: 12, connections: 300, brokers: 5, startTime: 1_800_000_000_000_000_000n });
    for (let i = 0; i < 3; i++) {
      for (const w of [a, b, a]) {
        w.advanceBy(20);
        const value = w.answer('ListKafkaConnections', { filter: '', orderBy: '', pageSize: 0 }) as never;
        expect(encodeAnswerFast('ListKafkaConnections', value)).toBe(encodeAnswer('ListKafkaConnections', value));
      }
    }
  });
});
