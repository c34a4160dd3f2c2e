/** The collector's metrics without a network: bounded cardinality, label hygiene, value rules, JSON lines, config keys. */
import parsePrometheusTextFormat, { type PromFamily } from 'parse-prometheus-text-format';
import { describe, expect, it } from 'vitest';
import { KafkaConnection } from '../../src/api/schema/connection.ts';
import type { OperationName, ResponseOf } from '../../src/api/schema/operations.ts';
import { defaultMessage } from '../../src/api/wire/defaults.ts';
import { ConfigError } from '../../src/collector/config-error.ts';
import { loadCollectorConfig } from '../../src/collector/config-load.ts';
import { isLoopback } from '../../src/collector/health-server.ts';
import { createJsonReporter, jsonLineOf } from '../../src/collector/json-log.ts';
import { CollectorMetrics } from '../../src/collector/metrics/collector-metrics.ts';
import { gaugeValue, labelValue, topN } from '../../src/collector/metrics/labels.ts';
import { cronIntervalMs, Readiness } from '../../src/collector/metrics/readiness.ts';
import { emptyStats } from '../../src/collector/output.ts';
import type { RoundResult } from '../../src/collector/poller.ts';
import type { PollRecord } from '../../src/db/poll-record.ts';

const T0 = 1_767_225_600_000_000_000n; // 2026-01-01T00:00:00Z

function record(op: OperationName, answer: unknown, round = 'r1', target = ''): PollRecord {
  const outcome: PollRecord['outcome'] = { ok: true, answer: answer as ResponseOf<OperationName>, bytes: 10 };
  const r: PollRecord = {
    cluster: 'prod',
    operation: op,
    target,
    request: {},
    round,
    attempt: 1,
    scheduledAt: T0,
    startedAt: T0,
    endedAt: T0 + 120_000_000n,
    outcome,
  };
  return r;
}

function roundOf(op: OperationName, round = 'r1', rowsCovered = 0, totalSize = 0n): RoundResult {
  const r: RoundResult = {
    cluster: 'prod',
    operation: op,
    round,
    scheduledAt: T0,
    targets: 1,
    calls: 1,
    failedCalls: 0,
    failures: [],
    coverage: { rowsCovered, totalSize, calls: 1, complete: BigInt(rowsCovered) === totalSize },
    stopped: false,
    startedAt: T0,
    endedAt: T0 + 120_000_000n,
  };
  return r;
}

function open(
  uid: string,
  nodeId: number,
  listenerName: string,
): ReturnType<typeof defaultMessage<typeof KafkaConnection>> {
  return { ...defaultMessage(KafkaConnection), uid, nodeId, listenerName, state: 'KAFKA_CONNECTION_STATE_OPEN' };
}

async function scrape(m: CollectorMetrics): Promise<PromFamily[]> {
  return parsePrometheusTextFormat((await m.page()).body);
}

function series(families: PromFamily[], name: string): PromFamily['metrics'] {
  return families.find((f) => f.name === name)?.metrics ?? [];
}

const SAFE = /^[A-Za-z0-9._:/-]{1,64}$/;

describe('bounded cluster series', () => {
  it('a connection storm (5,000 connections on 5,000 node/listener pairs, hostile names) gives at most 21 series', async () => {
    const m = new CollectorMetrics({ stats: () => emptyStats() });
    const storm = (tag: string) =>
      Array.from({ length: 5_000 }, (_, i) =>
        open(`${tag}-${i}`, 1000 + i, `${tag} "lis\u001b[31m${i % 10}"\n${'x'.repeat(100)}`),
      );
    const conns = storm('a');
    // one heavy pair, so that the top of the list is known
    for (let i = 0; i < 300; i++) conns.push(open(`heavy-${i}`, 7, 'internal'));
    m.record(record('ListKafkaConnections', { connections: conns.slice(0, 3_000), totalSize: 5_300n }));
    m.record(record('ListKafkaConnections', { connections: conns.slice(3_000), totalSize: 5_300n }));
    m.round(roundOf('ListKafkaConnections', 'r1', 5_300, 5_300n));
    const first = series(await scrape(m), 'flightrec_cluster_open_connections');
    expect(first).toHaveLength(21);
    expect(first.reduce((s, x) => s + Number(x.value), 0)).toBe(5_300);
    expect(first[0]).toEqual({ labels: { cluster: 'prod', node: '7', listener: 'internal' }, value: '300' });
    expect(first.find((x) => x.labels?.node === 'other')).toEqual({
      labels: { cluster: 'prod', node: 'other', listener: 'other' },
      value: String(5_000 - 19),
    });
    for (const x of first) for (const v of Object.values(x.labels ?? {})) expect(v).toMatch(SAFE);

    // the next storm has other names: the old series are gone, the count stays bounded
    m.record(record('ListKafkaConnections', { connections: storm('b'), totalSize: 5_000n }, 'r2'));
    m.round(roundOf('ListKafkaConnections', 'r2', 5_000, 5_000n));
    const second = series(await scrape(m), 'flightrec_cluster_open_connections');
    expect(second).toHaveLength(21);
    expect(second.some((x) => x.labels?.listener === 'internal')).toBe(false);
  });

  it('a failed or cut connections round keeps the previous counts; closed connections are not counted', async () => {
    const m = new CollectorMetrics({ stats: () => undefined });
    m.record(
      record('ListKafkaConnections', {
        connections: [open('u1', 1, 'ext'), { ...open('u2', 1, 'ext'), state: 'KAFKA_CONNECTION_STATE_CLOSED' }],
        totalSize: 2n,
      }),
    );
    m.round(roundOf('ListKafkaConnections', 'r1', 2, 2n));
    m.record(record('ListKafkaConnections', { connections: [open('u3', 2, 'ext')], totalSize: 9n }, 'r2'));
    m.round({
      ...roundOf('ListKafkaConnections', 'r2', 1, 9n),
      failures: [{ target: '', code: 'unavailable', kind: 'connect', message: 'x' }],
    });
    expect(series(await scrape(m), 'flightrec_cluster_open_connections')).toEqual([
      { labels: { cluster: 'prod', node: '1', listener: 'ext' }, value: '1' },
    ]);
    expect(series(await scrape(m), 'flightrec_connections_coverage_ratio')[0]!.value).toBe(String(1 / 9));
  });

  it('shadow lag by link and topic, Iceberg commit lag by topic (int64 beyond 2^53 rounded), upgrade state', async () => {
    const m = new CollectorMetrics({ stats: () => undefined, topN: 3 });
    const part = (hw: bigint, src: bigint) => ({
      partitionId: 0n,
      highWatermark: hw,
      sourceHighWatermark: src,
      sourceLastStableOffset: src,
      sourceLastUpdatedTimestamp: 0n,
    });
    const topic = (name: string, lag: bigint) => ({
      name,
      topicId: '',
      sourceTopicName: name,
      sourceTopicId: '',
      status: { state: 'SHADOW_TOPIC_STATE_ACTIVE', partitionInformation: [part(10n, 10n + lag), part(5n, 4n)] },
    });
    m.record(
      record(
        'ListShadowTopics',
        { shadowTopics: [topic('a', 5n), topic('b', 50n), topic('c', 7n), topic('d', 1n), topic('e', 2n)] },
        'r1',
        'dr',
      ),
    );
    m.record(record('GetShadowTopic', { shadowTopic: topic('a', 500n) }, 'r2', 'dr/a'));
    const big = 2n ** 63n - 1n;
    m.record(
      record('GetIcebergStatus', {
        catalog: { reachable: true, errorCode: '', errorMessage: '' },
        topics: [{ topic: 'ice', lifecycleState: 'X', partitions: [{ partition: 0, commitLag: big }] }],
      }),
    );
    m.record(
      record('GetUpgradeStatus', {
        activeVersion: 1n,
        autoFinalizationEnabled: true,
        members: [],
        state: 'FINALIZATION_STATE_UPGRADE_IN_PROGRESS',
        versionAfterFinalization: 2n,
      }),
    );
    const f = await scrape(m);
    expect(series(f, 'flightrec_cluster_shadow_lag').map((x) => [x.labels?.topic, x.value])).toEqual([
      ['a', '500'],
      ['b', '50'],
      ['c', '7'],
      ['other', '3'],
    ]);
    expect(series(f, 'flightrec_cluster_iceberg_commit_lag')).toEqual([
      { labels: { cluster: 'prod', topic: 'ice' }, value: '9223372036854776000' },
    ]);
    expect(series(f, 'flightrec_cluster_upgrade_state')).toEqual([
      { labels: { cluster: 'prod', state: 'upgrade_in_progress' }, value: '1' },
    ]);
  });

  it('polls by outcome, labelled duration histograms and the last success (checked through the registry)', async () => {
    const stats = {
      ...emptyStats(),
      dropped: 4,
      unwritten: 2,
      heldBytes: 2048,
      retentionRuns: 3,
      prunedBytes: 1e6,
      maxPruneDelayMs: 12,
    };
    const m = new CollectorMetrics({ stats: () => stats, dbSize: () => 4096 });
    m.record(record('GetUpgradeStatus', {}));
    m.record({
      ...record('GetUpgradeStatus', {}),
      outcome: { ok: false, code: 'unavailable', kind: 'connect', message: 'down', bytes: 0 },
    });
    const json = await m.registry.getMetricsAsJSON();
    const hist = json.find((x) => x.name === 'flightrec_poll_duration_seconds')!;
    const count = hist.values.find(
      (v) => 'metricName' in v && v.metricName === 'flightrec_poll_duration_seconds_count',
    );
    expect(count).toMatchObject({ value: 2, labels: { cluster: 'prod', operation: 'GetUpgradeStatus' } });
    const f = await scrape(m);
    expect(series(f, 'flightrec_polls_total').map((x) => [x.labels?.outcome, x.value])).toEqual([
      ['ok', '1'],
      ['unavailable', '1'],
    ]);
    expect(series(f, 'flightrec_last_successful_poll_timestamp_seconds')[0]!.value).toBe('1767225600.12');
    expect(series(f, 'flightrec_polls_dropped_total')[0]!.value).toBe('4');
    expect(series(f, 'flightrec_held_bytes')[0]!.value).toBe('2048');
    expect(series(f, 'flightrec_database_size_bytes')[0]!.value).toBe('4096');
    expect(series(f, 'flightrec_retention_runs_total')[0]!.value).toBe('3');
    expect(series(f, 'flightrec_retention_max_prune_delay_seconds')[0]!.value).toBe('0.012');
    stats.dropped = 6;
    expect(series(await scrape(m), 'flightrec_polls_dropped_total')[0]!.value).toBe('6');
  });
});

describe('label and value rules', () => {
  it('labelValue keeps a safe alphabet, cuts at 64, never yields other or an empty value', () => {
    expect(labelValue('orders.v2:eu/1-a_b')).toBe('orders.v2:eu/1-a_b');
    expect(labelValue('a "b"\n\u001b[2J\u202e')).toBe('a__b____2J_');
    expect(labelValue('x'.repeat(200))).toHaveLength(64);
    expect(labelValue('other')).toBe('other_');
    expect(labelValue('')).toBe('none');
  });

  it('topN keeps the largest, sums the rest into other, merges equal label sets', () => {
    const s = [5, 1, 9, 3, 3].map((value, i) => ({ labels: [`k${i}`], value }));
    expect(topN([...s, { labels: ['k1'], value: 10 }], 2)).toEqual([
      { labels: ['k1'], value: 11 },
      { labels: ['k2'], value: 9 },
      { labels: ['other'], value: 11 },
    ]);
    expect(topN(s, 10)).toHaveLength(5);
  });

  it('gaugeValue is exact to 2^53 and rounds past it', () => {
    expect(gaugeValue(2n ** 53n)).toBe(9_007_199_254_740_992);
    expect(gaugeValue(2n ** 53n + 1n)).toBe(9_007_199_254_740_992);
    expect(gaugeValue(-(2n ** 63n))).toBe(-9_223_372_036_854_775_808);
  });
});

describe('readiness', () => {
  it('derives the interval from the next two fire times of the cron expression', () => {
    expect(cronIntervalMs('*/30 * * * * *')).toBe(30_000);
    expect(cronIntervalMs('0 * * * * *')).toBe(60_000);
    expect(cronIntervalMs('*/10 * * * *')).toBe(600_000);
    expect(cronIntervalMs('0 0 3 * * *')).toBe(86_400_000);
  });

  it('does not call a target late before it was due: it waits for its first poll for twice its interval', () => {
    let now = Number(T0 / 1_000_000n);
    const r = new Readiness(
      [
        { cluster: 'prod', operation: 'GetUpgradeStatus', target: '', expression: '*/30 * * * * *' },
        { cluster: 'prod', operation: 'GetIcebergStatus', target: '', expression: '0 * * * * *' },
      ],
      () => now,
    );
    now += 6_000; // six seconds after the start
    expect(r.check()).toEqual({
      ready: false,
      text:
        'not ready yet: 2 of 2 scheduled targets waiting for their first poll, none late\n' +
        'prod GetUpgradeStatus: waiting for its first successful poll (running 6s; late after 60s, schedule */30 * * * * *)\n' +
        'prod GetIcebergStatus: waiting for its first successful poll (running 6s; late after 120s, schedule 0 * * * * *)\n',
    });
    now += 60_000; // the 30 s schedule had two chances
    expect(r.check().text).toBe(
      'not ready: 1 of 2 scheduled targets late, 1 waiting for their first poll\n' +
        'prod GetUpgradeStatus: no successful poll yet (allowed 60s, schedule */30 * * * * *)\n' +
        'prod GetIcebergStatus: waiting for its first successful poll (running 66s; late after 120s, schedule 0 * * * * *)\n',
    );
  });

  it('late after twice the interval, with the last error sanitized; the injected clock decides', () => {
    let now = Number(T0 / 1_000_000n);
    const r = new Readiness(
      [{ cluster: 'prod', operation: 'GetUpgradeStatus', target: '', expression: '*/30 * * * * *' }],
      () => now,
    );
    r.record(record('GetUpgradeStatus', {})); // ends at T0 + 120 ms
    now += 120 + 60_000;
    expect(r.check().ready).toBe(true);
    r.record({
      ...record('GetUpgradeStatus', {}),
      outcome: {
        ok: false,
        code: 'unauthenticated',
        kind: 'connect',
        httpStatus: 401,
        message: 'bad\u001b[31m token\nnext',
        bytes: 0,
      },
    });
    now += 900;
    expect(r.check()).toEqual({
      ready: false,
      text:
        'not ready: 1 of 1 scheduled targets late\n' +
        'prod GetUpgradeStatus: last successful poll 60.9s ago (allowed 60s, schedule */30 * * * * *); ' +
        'last error unauthenticated (connect, HTTP 401): bad\\x1b[31m token next\n',
    });
  });
});

describe('JSON log lines', () => {
  it('one object per round with time, level, cluster, operation, outcome, duration, message; other lines keep their level', () => {
    let out = '';
    const rep = createJsonReporter({ write: (s: string) => (out += s), isTTY: true }, () => Date.UTC(2026, 0, 2));
    rep.status(emptyStats());
    rep.round({
      ...roundOf('GetUpgradeStatus'),
      coverage: undefined,
      failures: [{ target: '', code: 'unavailable', kind: 'transport', message: 'refused\u001b[2J' }],
    });
    rep.line('warning: something odd');
    rep.line('error: disk gone');
    rep.line('serving');
    rep.done();
    const lines = out
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toEqual({
      time: '2026-01-02T00:00:00.000Z',
      level: 'error',
      cluster: 'prod',
      operation: 'GetUpgradeStatus',
      outcome: 'failed',
      duration: 120,
      scheduled: '2026-01-01T00:00:00Z',
      message:
        '2026-01-01T00:00:00Z prod GetUpgradeStatus FAILED 1/1 calls=1 120ms — unavailable (transport): refused\\x1b[2J',
    });
    expect(lines.slice(1).map((l) => [l.level, l.message])).toEqual([
      ['warn', 'something odd'],
      ['error', 'disk gone'],
      ['info', 'serving'],
    ]);
    expect(out).not.toContain('\r');
    expect(jsonLineOf('a\u202eb', 0).message).toBe('a\\u202eb');
  });
});

describe('listen and logFormat keys', () => {
  const load = (flags: Record<string, string>, env: Record<string, string> = {}, text?: string) =>
    loadCollectorConfig({
      flags: { baseUrl: 'http://127.0.0.1:1', ...flags },
      env,
      ...(text === undefined ? {} : { file: { text, path: 'f.yaml' } }),
    });

  it('off and text by default; flag over env over file; a bare port means 127.0.0.1', () => {
    expect(load({})).toMatchObject({ listen: null, logFormat: 'text' });
    expect(load({ listen: '9464' }).listen).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(load({}, {}, 'listen: 9100\nlogFormat: json\n')).toMatchObject({
      listen: { host: '127.0.0.1', port: 9100 },
      logFormat: 'json',
    });
    expect(load({}, { FLIGHTREC_LISTEN: '[::1]:9200', FLIGHTREC_LOG_FORMAT: 'json' }, 'listen: 9100\n')).toMatchObject({
      listen: { host: '::1', port: 9200 },
      logFormat: 'json',
    });
    expect(
      load({ listen: 'localhost:0', logFormat: 'text' }, { FLIGHTREC_LISTEN: '9200', FLIGHTREC_LOG_FORMAT: 'json' }),
    ).toMatchObject({
      listen: { host: 'localhost', port: 0 },
      logFormat: 'text',
    });
  });

  it('bad values name the flag, variable or key', () => {
    expect(() => load({ listen: 'http://x:1' })).toThrow(
      new ConfigError(
        '--listen',
        'must be PORT or HOST:PORT such as 127.0.0.1:9464, [::1]:9464 or localhost:9464, got "http://x:1"',
      ),
    );
    expect(() => load({ listen: '70000' })).toThrow(/--listen: port 70000 is not from 0/);
    expect(() => load({}, { FLIGHTREC_LOG_FORMAT: 'xml' })).toThrow('FLIGHTREC_LOG_FORMAT: must be text or json');
    expect(() => load({}, {}, 'logFormat: yaml\n')).toThrow('logFormat: must be text or json');
  });

  it('loopback addresses', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', '::1', 'localhost', 'LOCALHOST']) expect(isLoopback(h)).toBe(true);
    for (const h of ['0.0.0.0', '::', '10.0.0.1', 'example.com', '128.0.0.1']) expect(isLoopback(h)).toBe(false);
  });
});
