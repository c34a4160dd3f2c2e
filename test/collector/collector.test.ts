import { describe, expect, it } from 'vitest';
import {
  Collector,
  createReporter,
  defaultCluster,
  defaultCollectorConfig,
  emptyStats,
  formatRound,
  type CollectorConfig,
} from '../../src/collector/index.ts';
import { fail, fakeClient, memoryWriter, ok } from './helpers/fakes.ts';

const UPGRADE = {
  activeVersion: 1n,
  autoFinalizationEnabled: false,
  members: [],
  state: 'FINALIZATION_STATE_FINALIZED',
  versionAfterFinalization: 1n,
};

function config(patch: Partial<CollectorConfig> = {}): CollectorConfig {
  const cluster = { ...defaultCluster('c1', 'http://127.0.0.1:1'), shadowLinks: [{ name: 'dr', topics: ['t'] }] };
  return { ...defaultCollectorConfig([cluster]), jitterMs: 0, ...patch };
}

function sink(isTTY = false) {
  let text = '';
  return { write: (s: string) => void (text += s), isTTY, columns: 80, text: () => text };
}

describe('the collector', () => {
  it('polls every enabled operation once, upgrade first', async () => {
    const writer = memoryWriter();
    const client = fakeClient((op) =>
      op === 'GetUpgradeStatus'
        ? ok(UPGRADE)
        : op === 'ListKafkaConnections'
          ? ok({ connections: [], totalSize: 0n })
          : ok({}),
    );
    const c = new Collector({ config: config(), writer, env: {}, now: () => 1_000, clientFactory: () => client });
    const results = await c.runAll();
    expect(results.map((r) => r.operation)).toEqual([
      'GetUpgradeStatus',
      'ListKafkaConnections',
      'GetShadowLink',
      'ListShadowTopics',
      'GetShadowTopic',
      'GetIcebergStatus',
    ]);
    expect(writer.records).toHaveLength(6);
    expect(c.stats).toMatchObject({ rounds: 6, polls: 6, errors: 0, failedRounds: 0 });
    const report = await c.shutdown();
    expect(report).toEqual({ aborted: false, unwritten: 0 });
    expect(writer.closed).toBe(true);
    expect(client.closed).toBe(true);
  });

  it('leaves out switched-off schedules and shadow operations without links', async () => {
    const cfg = config();
    const cluster = {
      ...cfg.clusters[0]!,
      shadowLinks: [],
      schedules: { ...cfg.clusters[0]!.schedules, GetIcebergStatus: null },
    };
    const lines = sink();
    const c = new Collector({
      config: { ...cfg, clusters: [cluster] },
      writer: memoryWriter(),
      env: {},
      now: () => 0,
      clientFactory: () => fakeClient(() => ok(UPGRADE)),
      reporter: createReporter(lines),
    });
    expect(c.jobs().map((j) => j.op)).toEqual(['GetUpgradeStatus', 'ListKafkaConnections']);
    c.start();
    await c.shutdown();
    expect(lines.text()).toContain(
      'c1: recording http://127.0.0.1:1 into the database: GetUpgradeStatus every minute; ListKafkaConnections every 30s\n',
    );
    expect(lines.text()).toContain(
      'c1: skipped GetShadowLink, ListShadowTopics, GetShadowTopic: no shadow link is configured',
    );
  });

  it('keeps records in memory while the store refuses writes, reports the cause, and writes them later', async () => {
    const writer = memoryWriter();
    const out = sink();
    const c = new Collector({
      config: config(),
      writer,
      env: {},
      now: () => 0,
      clientFactory: () => fakeClient(() => ok(UPGRADE)),
      reporter: createReporter(out),
    });
    writer.failing = true;
    await c.runRound('c1', 'GetUpgradeStatus');
    await c.runRound('c1', 'GetUpgradeStatus');
    expect(c.stats.unwritten).toBe(2);
    expect(out.text()).toMatch(
      /error: cannot write a poll \(c1 GetUpgradeStatus\) to the database: database or disk is full/,
    );
    expect(out.text().match(/cannot write/g)).toHaveLength(1);
    writer.failing = false;
    await c.runRound('c1', 'GetUpgradeStatus');
    expect(writer.records).toHaveLength(3);
    expect(c.stats.unwritten).toBe(0);
    expect(out.text()).toContain('the database accepts writes again');
  });

  it('aborts calls still running at the shutdown deadline and records them', async () => {
    const writer = memoryWriter();
    const client = fakeClient(
      (op, _req, _n, signal) =>
        new Promise((resolve) => {
          signal?.addEventListener('abort', () =>
            resolve(fail(op, 'canceled', undefined, 'call canceled by the caller')),
          );
        }),
    );
    const out = sink();
    const c = new Collector({
      config: config({ shutdownTimeoutMs: 50 }),
      writer,
      env: {},
      now: () => 0,
      clientFactory: () => client,
      reporter: createReporter(out),
    });
    const round = c.runRound('c1', 'GetUpgradeStatus');
    await new Promise((r) => setTimeout(r, 5));
    const report = await c.shutdown();
    expect(report.aborted).toBe(true);
    const r = await round;
    expect(r.stopped).toBe(true);
    expect(writer.records).toHaveLength(1);
    expect(writer.records[0]!.outcome).toMatchObject({ ok: false, code: 'canceled' });
    expect(writer.closed).toBe(true);
    expect(out.text()).toMatch(/polls still running after 50 ms are aborted/);
  });

  it('lets a poll in flight finish within the deadline', async () => {
    const writer = memoryWriter();
    const client = fakeClient(() => new Promise((r) => setTimeout(() => r(ok(UPGRADE)), 30)));
    const c = new Collector({
      config: config({ shutdownTimeoutMs: 5_000 }),
      writer,
      env: {},
      now: () => 0,
      clientFactory: () => client,
    });
    const round = c.runRound('c1', 'GetUpgradeStatus');
    await new Promise((r) => setTimeout(r, 5));
    expect(await c.shutdown()).toEqual({ aborted: false, unwritten: 0 });
    expect((await round).failures).toEqual([]);
    expect(writer.records[0]!.outcome.ok).toBe(true);
  });

  it('refuses a secret variable that is not set, naming it', () => {
    const cfg = config();
    const cluster = { ...cfg.clusters[0]!, auth: { kind: 'basic' as const, username: 'u', passwordEnv: 'NOPE_PW' } };
    expect(
      () => new Collector({ config: { ...cfg, clusters: [cluster] }, writer: memoryWriter(), env: {}, now: () => 0 }),
    ).toThrow('cluster c1.auth: environment variable NOPE_PW is not set');
  });
});

describe('collector output', () => {
  it('prints a summary line per round and a status line only on a terminal', async () => {
    const tty = sink(true);
    const c = new Collector({
      config: config(),
      writer: memoryWriter(),
      env: {},
      now: () => Date.parse('2026-01-01T00:00:30Z'),
      clientFactory: () => fakeClient((op) => fail(op, 'unavailable', 503, 'upstream down')),
      reporter: createReporter(tty, () => 2048),
      sleep: async () => true,
    });
    await c.runRound('c1', 'GetUpgradeStatus');
    const text = tty.text();
    expect(text).toMatch(
      /2026-01-01T00:00:30Z c1 GetUpgradeStatus FAILED 1\/1 calls=4 \d+ms — unavailable \(HTTP 503\): upstream down\n/,
    );
    expect(text).toMatch(/\rpolls 4 · errors 4 · rounds 1 · failed rounds 1 · db 2\.0 KiB/);
    // eslint-disable-next-line no-control-regex -- checks that no escape sequence is printed
    expect(text).not.toMatch(/\x1b/);
    const plain = sink(false);
    createReporter(plain).status({ ...emptyStats(), rounds: 1, polls: 1 });
    expect(plain.text()).toBe('');
  });

  it('shows connection coverage when the fan-out fell short', () => {
    const line = formatRound({
      cluster: 'c',
      operation: 'ListKafkaConnections',
      round: 'r',
      scheduledAt: 0n,
      targets: 1,
      calls: 3,
      failedCalls: 0,
      failures: [],
      coverage: { rowsCovered: 900, totalSize: 1000n, calls: 3, complete: false },
      stopped: false,
      startedAt: 0n,
      endedAt: 5_000_000n,
    });
    expect(line).toBe(
      '1970-01-01T00:00:00Z c ListKafkaConnections ok calls=3 rows=900/1000 (coverage 90.0%; no slice was cut: connections came and went between the calls) 5ms',
    );
  });

  it('names the last answer the server cut when the fan-out fell short', () => {
    const cut = { slice: 'node_id = 0 AND shard_id = 1', pageSize: 1478, rowsReturned: 700, totalSize: 1300n };
    const line = formatRound({
      cluster: 'c',
      operation: 'ListKafkaConnections',
      round: 'r',
      scheduledAt: 0n,
      targets: 1,
      calls: 6,
      failedCalls: 0,
      failures: [],
      coverage: { rowsCovered: 2400, totalSize: 3000n, calls: 6, complete: false, cut },
      stopped: false,
      startedAt: 0n,
      endedAt: 5_000_000n,
    });
    expect(line).toBe(
      '1970-01-01T00:00:00Z c ListKafkaConnections ok calls=6 rows=2400/3000 (coverage 80.0%; last cut: node_id = 0 AND shard_id = 1 gave 700 of 1300 rows (pageSize 1478)) 5ms',
    );
  });
});

describe('round lines of rounds that did not poll', () => {
  const base = {
    cluster: 'c',
    operation: 'GetShadowTopic',
    round: 'r',
    scheduledAt: 0n,
    targets: 2,
    calls: 0,
    failedCalls: 0,
    failures: [],
    startedAt: 0n,
    endedAt: 0n,
  } as const;

  it('a round stopped before its call could start is "not polled", never "ok calls=0"', () => {
    const line = formatRound({ ...base, stopped: true });
    expect(line).toBe(
      "1970-01-01T00:00:00Z c GetShadowTopic not polled: the collector stopped before this round's call could start (it waited behind a call in progress)",
    );
    expect(line).not.toMatch(/\bok\b/);
  });

  it('a round cut short after some calls says so', () => {
    expect(formatRound({ ...base, calls: 1, stopped: true })).toBe(
      '1970-01-01T00:00:00Z c GetShadowTopic STOPPED calls=1 0ms (stopped after 1 call: the rest of this round was not polled)',
    );
  });

  it('a standby round says another collector records the cluster', () => {
    expect(formatRound({ ...base, stopped: false, standby: true })).toBe(
      '1970-01-01T00:00:00Z c GetShadowTopic standby: another collector records this cluster',
    );
  });
});
