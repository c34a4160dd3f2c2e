/**
 * Trends: rates checked exactly against the counters the simulated cluster served (computed by
 * hand here), counter resets and connections that closed between polls, connection counts,
 * shadow lag with its trend classes and time lag, Iceberg commit stalls.
 */
import { describe, expect, it } from 'vitest';
import type { KafkaConnection } from '../../src/api/schema/connection.ts';
import type { ResponseOf } from '../../src/api/schema/operations.ts';
import { memorySource, type RecordedPoll } from '../../src/report/timeline/memory-source.ts';
import { okPoll } from '../helpers/recorded-poll.ts';
import { computeTrends, TrendsOptionsError } from '../../src/report/trends/index.ts';
import { DEFAULT_THRESHOLDS } from '../../src/report/timeline/thresholds.ts';
import { recordSim } from '../fixtures/timeline/sim-recorder.ts';

const S = 1_000_000_000n;
const T0 = 1_767_225_600n * S;

/** Served ListKafkaConnections answers, in order, with their poll times. */
function servedConnections(scenario: string): {
  recorded: RecordedPoll[];
  served: { time: bigint; rows: KafkaConnection[] }[];
} {
  const served: { time: bigint; rows: KafkaConnection[] }[] = [];
  const rec = recordSim(scenario, {
    seed: 11,
    connections: 150,
    seconds: 600,
    onAnswer: (op, poll, answer) => {
      if (op === 'ListKafkaConnections')
        served.push({ time: poll.startTime, rows: (answer as ResponseOf<'ListKafkaConnections'>).connections });
    },
  });
  return { recorded: rec.polls, served };
}

/** The documented definition, computed independently from the served answers. */
function byHand(
  served: { time: bigint; rows: KafkaConnection[] }[],
  key: (c: KafkaConnection) => string,
  field: 'produceBytes' | 'fetchBytes' | 'requestCount' | 'produceBatchCount',
) {
  const last = new Map<string, bigint>();
  const perKey = new Map<string, bigint>();
  const perUid = new Map<string, { inc: bigint; from: bigint; to: bigint }>();
  let prev: bigint | undefined;
  for (const { time, rows } of served) {
    for (const c of rows) {
      const v = c.totalRequestStatistics[field];
      const before = last.get(c.uid);
      let inc = 0n;
      if (before === undefined) {
        const fresh = prev !== undefined && c.openTime > prev;
        perUid.set(c.uid, { inc: 0n, from: fresh ? c.openTime : time, to: time });
        if (fresh) inc = v;
      } else inc = v >= before ? v - before : v;
      last.set(c.uid, v);
      const u = perUid.get(c.uid)!;
      u.inc += inc;
      u.to = c.state === 'KAFKA_CONNECTION_STATE_CLOSED' && c.closeTime > u.from ? c.closeTime : time;
      perKey.set(key(c), (perKey.get(key(c)) ?? 0n) + inc);
    }
    prev = time;
  }
  const windowSeconds = Number(served[served.length - 1]!.time - served[0]!.time) / 1e9;
  return { perKey, perUid, windowSeconds };
}

describe('trends of counter rates, against what the simulator served', () => {
  const { recorded, served } = servedConnections('connection-storm');
  const source = memorySource(recorded);

  it('produce bytes per second by principal equal the hand computation', () => {
    const r = computeTrends(source, { metric: 'produce-bytes', by: 'principal' });
    const hand = byHand(served, (c) => c.authenticationInfo.userPrincipal || '(none)', 'produceBytes');
    expect(r.rows.length).toBe(hand.perKey.size);
    for (const row of r.rows) expect(row.value).toBe(Number(hand.perKey.get(row.key)) / hand.windowSeconds);
    const total = [...hand.perKey.values()].reduce((a, b) => a + b, 0n);
    expect(r.overall).toBe(Number(total) / hand.windowSeconds);
  });

  it('requests per second per connection equal the hand computation, closed connections included', () => {
    const r = computeTrends(source, { metric: 'requests', by: 'connection' });
    const hand = byHand(served, (c) => c.uid, 'requestCount');
    let closedCounted = 0;
    for (const row of r.rows) {
      const u = hand.perUid.get(row.key)!;
      const seconds = Number(u.to - u.from) / 1e9;
      expect(row.value).toBe(seconds > 0 ? Number(u.inc) / seconds : 0);
      if ((row.detail.closedInWindow as number) > 0 && u.inc > 0n) closedCounted++;
    }
    // the storm's short-lived connections opened and closed between polls, and still count
    expect(closedCounted).toBeGreaterThan(100);
  });

  it('average batch size by software is produced bytes over produced batches', () => {
    const r = computeTrends(source, { metric: 'batch-size', by: 'software' });
    const key = (c: KafkaConnection): string => `${c.clientSoftwareName} ${c.clientSoftwareVersion}`;
    const bytes = byHand(served, key, 'produceBytes').perKey;
    const batches = byHand(served, key, 'produceBatchCount').perKey;
    for (const row of r.rows) {
      const b = batches.get(row.key)!;
      expect(row.value).toBe(b === 0n ? 0 : Number(bytes.get(row.key)) / Number(b));
    }
  });

  it('connection counts by state follow the last poll', () => {
    const r = computeTrends(source, { metric: 'connections', by: 'state' });
    const last = served[served.length - 1]!.rows;
    for (const row of r.rows)
      expect(row.value).toBe(last.filter((c) => c.state === `KAFKA_CONNECTION_STATE_${row.key}`).length);
    expect(r.rows.find((x) => x.key === 'CLOSED')!.detail.max).toBeGreaterThan(500);
  });

  it('refuses unknown metrics and keys, with what is accepted', () => {
    expect(() => computeTrends(source, { metric: 'latency' as never })).toThrow(TrendsOptionsError);
    expect(() => computeTrends(source, { metric: 'shadow-lag', by: 'client' })).toThrow(/partition, topic, link/);
  });
});

const poll = okPoll;

describe('counter resets and fresh connections', () => {
  const conn = (uid: string, produced: number, open = '2025-12-31T00:00:00Z') => ({
    uid,
    clientId: 'app',
    state: 'KAFKA_CONNECTION_STATE_OPEN',
    openTime: open,
    totalRequestStatistics: { produceBytes: String(produced) },
  });
  const polls = [
    poll('ListKafkaConnections', T0, { connections: [conn('a', 1000)] }),
    poll('ListKafkaConnections', T0 + 10n * S, {
      connections: [conn('a', 3000), conn('b', 500, '2026-01-01T00:00:05Z')],
    }),
    // a's counter went down: reset, counted from zero
    poll('ListKafkaConnections', T0 + 20n * S, {
      connections: [conn('a', 400), conn('b', 900, '2026-01-01T00:00:05Z')],
    }),
  ];
  it('counts deltas, a reset from zero, and a new connection from its open time', () => {
    const r = computeTrends(memorySource(polls), { metric: 'produce-bytes', by: 'connection' });
    const a = r.rows.find((x) => x.key === 'a')!;
    const b = r.rows.find((x) => x.key === 'b')!;
    expect(a.detail.increase).toBe(String(2000 + 400));
    expect(a.detail.resets).toBe(1);
    expect(a.value).toBe(2400 / 20);
    expect(b.detail.increase).toBe('900');
    expect(b.value).toBe(900 / 15);
    expect(r.overall).toBe(3300 / 20);
    expect(r.notes.join()).toContain('1 counter resets');
  });
});

describe('shadow lag trends', () => {
  const part = (hwm: number, src: number, at: bigint) => ({
    partitionId: '0',
    highWatermark: String(hwm),
    sourceHighWatermark: String(src),
    sourceLastUpdatedTimestamp: new Date(Number(at / 1_000_000n)).toISOString(),
  });
  const topic = (name: string, hwm: number, src: number, at: bigint) => ({
    name,
    status: { state: 'SHADOW_TOPIC_STATE_ACTIVE', partitionInformation: [part(hwm, src, at)] },
  });
  // source grows 100 records/s; "steady" trails by 5,000 records (50 s); "stuck" makes no progress
  const polls: RecordedPoll[] = [];
  for (let i = 0; i <= 10; i++) {
    const at = T0 + BigInt(i * 30) * S;
    const src = 100_000 + i * 3000;
    polls.push(
      poll(
        'ListShadowTopics',
        at,
        {
          shadowTopics: [
            topic('steady', src - 5000, src, at),
            topic('stuck', 90_000, src, at),
            topic('idle', 500, 600, at),
            topic('behind', 50_000, src, at),
          ],
        },
        'dr',
      ),
    );
  }
  const r = computeTrends(memorySource(polls), { metric: 'shadow-lag', by: 'topic' });
  const row = (k: string) => r.rows.find((x) => x.key === `dr/${k}`)!;

  it('reports the last lag per topic, largest first', () => {
    expect(row('steady').value).toBe(5000);
    expect(row('stuck').value).toBe(130_000 - 90_000);
    expect(r.rows[0]!.key).toBe('dr/behind');
  });

  it('classes the window: ok, stopped (no progress while the source moves), stalled (nothing moves)', () => {
    expect(row('steady').trend).toBe('ok');
    expect(row('stuck').trend).toBe('stopped');
    expect(row('idle').trend).toBe('stalled');
    // one poll without progress is not yet stopped (it must persist); from the second on it is
    const classes = row('stuck').trendSeries!.filter((c) => c !== undefined);
    expect(classes[0]).toBe('ok');
    expect(classes.slice(1).every((c) => c === 'stopped')).toBe(true);
    // a lag below the material floor (thresholds.shadow.materialLag) is never stalled
    const floor = computeTrends(memorySource(polls), {
      metric: 'shadow-lag',
      by: 'topic',
      thresholds: { ...DEFAULT_THRESHOLDS, shadow: { ...DEFAULT_THRESHOLDS.shadow, materialLag: 101n } },
    });
    expect(floor.rows.find((x) => x.key === 'dr/idle')!.trend).toBe('ok');
    expect(floor.rows.find((x) => x.key === 'dr/stuck')!.trend).toBe('stopped');
  });

  it('estimates the time lag from the recorded source offsets, and flags extrapolation', () => {
    expect(row('steady').detail.timeLagSeconds).toBe(50);
    expect(row('steady').detail.extrapolated).toBe(false);
    // 50,000 lies before the first recorded source offset (100,000): 500 s earlier at 100/s
    expect(row('behind').detail.timeLagSeconds).toBe(300 + 500);
    expect(row('behind').detail.extrapolated).toBe(true);
    expect(r.notes.join()).toContain('extrapolated');
  });

  it('rolls partitions up to the link', () => {
    const links = computeTrends(memorySource(polls), { metric: 'shadow-lag', by: 'link' });
    expect(links.rows).toHaveLength(1);
    expect(links.rows[0]!.value).toBe(5000 + 40_000 + 100 + 80_000);
  });
});

describe('Iceberg commit lag trends', () => {
  const polls: RecordedPoll[] = [];
  for (let i = 0; i <= 5; i++) {
    const at = T0 + BigInt(i * 60) * S;
    const committed = i < 3 ? 1000 + i * 1000 : 3000;
    const translated = 1050 + i * 1000;
    polls.push(
      poll('GetIcebergStatus', at, {
        catalog: { reachable: true },
        topics: [
          {
            topic: 't',
            lifecycleState: 'ICEBERG_LIFECYCLE_STATE_LIVE',
            partitions: [
              {
                partition: 0,
                commitLag: String(translated - committed),
                lastCommittedOffset: String(committed),
                lastTranslatedOffset: String(translated),
              },
            ],
          },
        ],
      }),
    );
  }
  it('reports the commit lag and detects commits stalled while translation advances', () => {
    const r = computeTrends(memorySource(polls), { metric: 'iceberg-lag', by: 'topic' });
    expect(r.rows[0]!.value).toBe(6050 - 3000);
    expect(r.rows[0]!.detail.commitsStalled).toBe(true);
    // two minutes without a commit is under thresholds.iceberg.commitStall (3m): not yet stalled
    expect(r.rows[0]!.trendSeries!.slice(-2)).toEqual(['ok', 'stalled']);
    // a commit lag under the material floor is never stalled
    const small = computeTrends(memorySource(polls), {
      metric: 'iceberg-lag',
      by: 'topic',
      thresholds: { ...DEFAULT_THRESHOLDS, iceberg: { ...DEFAULT_THRESHOLDS.iceberg, materialLag: 5000n } },
    });
    expect(small.rows[0]!.trend).toBe('ok');
    expect(small.rows[0]!.trendSeries!.filter((c) => c === 'stalled')).toEqual([]);
  });
});
