/**
 * `collect --listen`: /metrics scraped during a real recording (the simulated cluster over
 * loopback, a real SQLite file) and parsed with a Prometheus text-format parser; /readyz turning
 * 503 while the simulated cluster answers `unavailable` and 200 again once it recovers; JSON logs.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import parsePrometheusTextFormat, { type PromFamily } from 'parse-prometheus-text-format';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Collector } from '../../src/collector/collector.ts';
import { defaultCluster, defaultCollectorConfig, type CollectorConfig } from '../../src/collector/config.ts';
import { DURATION_BUCKETS } from '../../src/collector/metrics/collector-metrics.ts';
import { Observability } from '../../src/collector/metrics/observability.ts';
import { openRecordingStore } from '../../src/db/index.ts';
import { simClock, startSimServer, type SimServer } from '../../src/sim/index.ts';
import { memoryIo } from '../helpers/memory-io.ts';
import { runCli } from './helpers/run-cli.ts';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'flightrec-metrics-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` every 50 ms until it returns a value (at most `ms`). */
async function until<T>(probe: () => Promise<T | undefined> | T | undefined, ms = 8_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out waiting');
    await pause(50);
  }
}

function family(families: PromFamily[], name: string): PromFamily {
  const f = families.find((x) => x.name === name);
  if (f === undefined) throw new Error(`no ${name} in /metrics`);
  return f;
}

const EVERY_SECOND = ['connections', 'shadow', 'iceberg', 'upgrade'].flatMap((g) => ['--schedule', `${g}=* * * * * *`]);

describe('collect --listen during a real recording', () => {
  let sim: SimServer | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  it('serves /metrics in the Prometheus text format, /healthz, 404 and 405; JSON log lines; closes on shutdown', async () => {
    sim = await startSimServer({ seed: 5, clock: 'manual', connections: 120 });
    const [link] = sim.describe().links;
    const topic = sim.describe().topics.find((t) => t.link === link)!.topic;
    const ctl = new AbortController();
    const io = memoryIo({ cwd: dir, signal: ctl.signal });
    const startedS = Date.now() / 1000;
    const argv = [
      '--db',
      join(dir, 'rec.db'),
      'collect',
      '--base-url',
      sim.baseUrl,
      '--link',
      `${link}:${topic}`,
      '--jitter',
      '0',
    ];
    const run = runCli([...argv, ...EVERY_SECOND, '--listen', '127.0.0.1:0', '--log-format', 'json'], io);
    const url = await until(
      () => /serving \/metrics, \/healthz and \/readyz at (http:\/\/127\.0\.0\.1:\d+)/.exec(io.err())?.[1],
    );

    const ops = [
      'GetUpgradeStatus',
      'ListKafkaConnections',
      'GetShadowLink',
      'ListShadowTopics',
      'GetShadowTopic',
      'GetIcebergStatus',
    ];
    const families = await until(async () => {
      const res = await fetch(`${url}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      const parsed = parsePrometheusTextFormat(await res.text());
      const polls = parsed.find((f) => f.name === 'flightrec_polls_total')?.metrics ?? [];
      const done = ops.every((op) => polls.some((m) => m.labels?.operation === op && m.labels.outcome === 'ok'));
      const conns = parsed.find((f) => f.name === 'flightrec_cluster_open_connections')?.metrics ?? [];
      return done && conns.length > 0 ? parsed : undefined;
    });

    expect(family(families, 'flightrec_polls_total').type).toBe('COUNTER');
    const duration = family(families, 'flightrec_poll_duration_seconds');
    expect(duration.type).toBe('HISTOGRAM');
    // parse-prometheus-text-format 1.1.1 folds the series of a labelled histogram into one bucket
    // map (and drops their labels, count and sum): the family and its bucket bounds are checked
    // here, the per-label series through the registry in collector-metrics.test.ts
    const buckets = duration.metrics[0]!.buckets ?? {};
    expect(Object.keys(buckets).sort()).toEqual([...DURATION_BUCKETS.map(String), '+Inf'].sort());
    expect(Number(buckets['+Inf'])).toBeGreaterThanOrEqual(1);
    const last = family(families, 'flightrec_last_successful_poll_timestamp_seconds').metrics;
    for (const op of ops) {
      const v = Number(last.find((m) => m.labels?.operation === op && m.labels.cluster === 'default')?.value);
      expect(v).toBeGreaterThanOrEqual(startedS - 1);
      expect(v).toBeLessThanOrEqual(Date.now() / 1000 + 1);
    }
    expect(Number(family(families, 'flightrec_database_size_bytes').metrics[0]!.value)).toBeGreaterThan(0);
    const coverage = family(families, 'flightrec_connections_coverage_ratio').metrics[0]!;
    expect(coverage.labels).toEqual({ cluster: 'default' });
    expect(Number(coverage.value)).toBe(1);
    const covered = Number(family(families, 'flightrec_connections_rows_covered').metrics[0]!.value);
    const open = family(families, 'flightrec_cluster_open_connections').metrics;
    const openSum = open.reduce((s, m) => s + Number(m.value), 0);
    expect(openSum).toBeGreaterThan(0);
    expect(openSum).toBeLessThanOrEqual(covered);
    for (const m of open) expect(Object.keys(m.labels ?? {}).sort()).toEqual(['cluster', 'listener', 'node']);
    const lag = family(families, 'flightrec_cluster_shadow_lag').metrics;
    expect(lag.some((m) => m.labels?.link === link && m.labels?.topic === topic)).toBe(true);
    expect(family(families, 'flightrec_cluster_upgrade_state').metrics).toEqual([
      expect.objectContaining({ value: '1', labels: expect.objectContaining({ cluster: 'default' }) }),
    ]);
    for (const name of [
      'flightrec_held_polls',
      'flightrec_polls_dropped_total',
      'flightrec_retention_runs_total',
      'flightrec_retention_pruned_bytes_total',
    ]) {
      expect(family(families, name).metrics[0]!.value).toBe('0');
    }
    expect(family(families, 'flightrec_process_cpu_user_seconds_total').type).toBe('COUNTER');
    expect(families.every((f) => f.name.startsWith('flightrec_'))).toBe(true);

    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await fetch(`${url}/nope`)).status).toBe(404);
    expect((await fetch(`${url}/metrics`, { method: 'POST', body: 'x'.repeat(10_000) })).status).toBe(405);
    const head = await fetch(`${url}/metrics`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');

    const t0 = Date.now();
    ctl.abort();
    expect(await run).toBe(0);
    expect(Date.now() - t0).toBeLessThan(1_000);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();

    const lines = io.err().trimEnd().split('\n');
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const rounds = parsed.filter((l) => l.operation !== undefined);
    expect(rounds.filter((r) => r.outcome === 'ok' && r.level === 'info').length).toBeGreaterThanOrEqual(6);
    for (const r of rounds) {
      expect(Object.keys(r)).toEqual(
        expect.arrayContaining(['time', 'level', 'cluster', 'operation', 'outcome', 'duration', 'message']),
      );
      // a round cut by the shutdown is `not_polled` (warn)
      expect(['ok', 'not_polled']).toContain(r.outcome);
      expect(r.cluster).toBe('default');
      expect(typeof r.duration).toBe('number');
      expect(new Date(String(r.time)).toISOString()).toBe(r.time);
    }
    for (const l of parsed) expect(['info', 'warn', 'error']).toContain(l.level);
    expect(io.err()).not.toMatch(/\r/);
  });
});

describe('collect --listen on an address in use', () => {
  it('exit 1 naming the address, before the database is created', async () => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const port = (taken.address() as AddressInfo).port;
    try {
      const db = join(dir, 'never.db');
      const io = memoryIo({ cwd: dir });
      expect(
        await runCli(
          ['--db', db, 'collect', '--base-url', 'http://127.0.0.1:1', '--once', '--listen', `127.0.0.1:${port}`],
          io,
        ),
      ).toBe(1);
      expect(io.err()).toContain(`flightrec: --listen 127.0.0.1:${port}: cannot serve there (EADDRINUSE)`);
      expect(existsSync(db)).toBe(false);
    } finally {
      await new Promise((r) => taken.close(r));
    }
  });
});

describe('/readyz follows the simulated cluster', () => {
  it('200 while every schedule succeeds, 503 with what is late and why while the cluster answers unavailable, 200 after', async () => {
    const sim = await startSimServer({ seed: 6, connections: 40, clock: 'manual', scenario: 'api-faults' });
    const clock = simClock(sim);
    const goTo = (s: number): void => clock.advanceTo(Number(sim.world.config.start / 1_000_000n) + s * 1000);
    const every5s = {
      ListKafkaConnections: '*/5 * * * * *',
      GetUpgradeStatus: '*/5 * * * * *',
      GetIcebergStatus: '*/5 * * * * *',
    };
    const cluster = defaultCluster('sim', sim.baseUrl);
    const config: CollectorConfig = {
      ...defaultCollectorConfig([{ ...cluster, schedules: { ...cluster.schedules, ...every5s } }]),
      jitterMs: 0,
      retry: { maxAttempts: 1, baseDelayMs: 1, exhaustedDelayMs: 1, maxDelayMs: 1 },
    };
    const obs = new Observability({ config, now: clock.nowMs });
    const store = openRecordingStore(join(dir, 'ready.db'));
    const collector = new Collector({
      config,
      writer: store,
      env: {},
      now: clock.nowMs,
      nowNs: clock.nowNs,
      sleep: clock.sleep,
      onRecord: obs.record,
      onRound: obs.round,
    });
    obs.attach(collector.stats);
    const server = await obs.serve({ host: '127.0.0.1', port: 0 }, () => {});
    const ready = async (): Promise<{ status: number; text: string }> => {
      const res = await fetch(`${server.url}/readyz`);
      return { status: res.status, text: await res.text() };
    };
    try {
      const before = await ready();
      expect(before.status).toBe(503);
      // at the start nothing is due yet: waiting, not late
      expect(before.text.split('\n')[0]).toBe(
        'not ready yet: 3 of 3 scheduled targets waiting for their first poll, none late',
      );
      expect(before.text).toContain(
        'sim GetUpgradeStatus: waiting for its first successful poll (running 0s; late after 10s, schedule */5 * * * * *)',
      );
      expect(before.text).not.toMatch(/targets late|no successful poll yet/);

      goTo(30);
      await collector.runAll();
      expect(await ready()).toEqual({ status: 200, text: 'ok: 3 scheduled targets recording\n' });
      goTo(38);
      expect((await ready()).status).toBe(200); // 8 s after the last poll: within twice the interval

      goTo(65); // the scenario's `unavailable` window is 60-90 s
      await collector.runAll();
      const late = await ready();
      expect(late.status).toBe(503);
      expect(late.text.split('\n')[0]).toBe('not ready: 3 of 3 scheduled targets late');
      expect(late.text).toMatch(
        /sim GetIcebergStatus: last successful poll 35(\.\d)?s ago \(allowed 10s, schedule \*\/5 \* \* \* \* \*\); last error unavailable \(connect, HTTP 503\): /,
      );

      goTo(92);
      await collector.runAll();
      expect((await ready()).status).toBe(200);
    } finally {
      await collector.shutdown();
      await server.close();
      await sim.close();
    }
  });
});
