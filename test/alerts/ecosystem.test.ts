/**
 * The Prometheus ecosystem checks flightrec with its own tools (Debian's prometheus and
 * prometheus-alertmanager packages): the files under deploy/ (the ones docs/operations.md shows)
 * pass `promtool check config`, `promtool check rules` and `amtool check-config`; a collector
 * recording the incident scenario in real time (simulated, 200× faster) fires its live alerts into
 * a real Alertmanager, read back through its API and amtool, and resolves them; its /metrics
 * passes `promtool check metrics`; a real Prometheus scraping `collect --listen` returns the
 * series through its query API. Without the tools these tests are skipped, saying why.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { tempDir } from '../fixtures/timeline/run-cli.ts';
import { memoryIo } from '../helpers/memory-io.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const TOOLS = ['promtool', 'prometheus', 'prometheus-alertmanager', 'amtool'] as const;
const missing = TOOLS.filter((t) => spawnSync(t, ['--version'], { stdio: 'ignore' }).error !== undefined);
if (missing.length > 0)
  console.warn(
    `ecosystem tests skipped: ${missing.join(', ')} not found (Debian: apt-get install -y prometheus prometheus-alertmanager)`,
  );
const has = (...tools: (typeof TOOLS)[number][]): boolean => tools.every((t) => !missing.includes(t));

const tmp = tempDir();
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const c of children) {
    if (c.exitCode !== null) continue;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGTERM');
    await Promise.race([exited, sleep(3_000)]);
    if (c.exitCode === null) c.kill('SIGKILL');
  }
  tmp.remove();
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function run(tool: string, args: readonly string[], input?: string): { code: number | null; out: string } {
  const r = spawnSync(tool, args, { input, encoding: 'utf8', cwd: ROOT, timeout: 20_000 });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

/** Starts a tool in the background; its output is kept for messages. */
function start(tool: string, args: readonly string[]): { out: () => string } {
  const child = spawn(tool, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  return { out: () => out.slice(-3000) };
}

async function getJson<T>(url: string): Promise<T | undefined> {
  try {
    const r = await fetch(url);
    return r.ok ? ((await r.json()) as T) : undefined;
  } catch {
    return undefined;
  }
}

/** The fenced blocks of docs/operations.md that start with `# deploy/...`, by that path. */
function documentedFiles(): Map<string, string> {
  const doc = readFileSync(resolve(ROOT, 'docs/operations.md'), 'utf8');
  const out = new Map<string, string>();
  for (const m of doc.matchAll(/```yaml\n# (deploy\/\S+)\n([\s\S]*?)```/g)) out.set(m[1]!, m[2]!);
  return out;
}

describe('the files under deploy/', () => {
  it('are the ones docs/operations.md shows', () => {
    const shown = documentedFiles();
    expect([...shown.keys()].sort()).toEqual([
      'deploy/alertmanager/alertmanager.yml',
      'deploy/prometheus/prometheus.yml',
      'deploy/prometheus/rules.yml',
    ]);
    for (const [path, text] of shown) expect(text, path).toBe(readFileSync(resolve(ROOT, path), 'utf8'));
  });

  it.skipIf(!has('promtool', 'amtool'))('pass promtool check config / check rules and amtool check-config', () => {
    const config = run('promtool', ['check', 'config', 'deploy/prometheus/prometheus.yml']);
    expect(config.code, config.out).toBe(0);
    expect(config.out).toContain('SUCCESS: 1 rule files found');
    const rules = run('promtool', ['check', 'rules', 'deploy/prometheus/rules.yml']);
    expect(rules.code, rules.out).toBe(0);
    const am = run('amtool', ['check-config', 'deploy/alertmanager/alertmanager.yml']);
    expect(am.code, am.out).toBe(0);
  });
});

interface AmAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt: string;
  generatorURL: string;
  status: { state: string };
}

describe.skipIf(!has('prometheus', 'prometheus-alertmanager', 'amtool', 'promtool'))(
  'a collector with a real Alertmanager and a real Prometheus',
  () => {
    it('fires live alerts into Alertmanager and resolves them; Prometheus scrapes /metrics and promtool accepts it', async () => {
      // Alertmanager: its own storage, loopback only, no cluster gossip, flightrec's route example
      const amPort = await freePort();
      const amUrl = `http://127.0.0.1:${amPort}`;
      mkdirSync(tmp.path('am'));
      const am = start('prometheus-alertmanager', [
        '--config.file=deploy/alertmanager/alertmanager.yml',
        `--storage.path=${tmp.path('am')}`,
        `--web.listen-address=127.0.0.1:${amPort}`,
        '--cluster.listen-address=',
        '--log.level=warn',
      ]);
      // the collector: the incident scenario 200 times faster than real time, alerts resent every second
      const config = tmp.path('flightrec.yaml');
      writeFileSync(config, 'alerts:\n  minSeverity: warn\n  resendInterval: 1s\n');
      const stop = new AbortController();
      const io = memoryIo({ signal: stop.signal });
      const collecting = main(
        [
          '--db',
          tmp.path('rec.db'),
          '--config',
          config,
          'collect',
          '--simulate',
          'incident',
          '--speed',
          '200',
          '--listen',
          '0',
          '--alertmanager',
          amUrl,
        ],
        io,
      );
      try {
        let listen: string | undefined;
        for (let i = 0; i < 400 && listen === undefined; i++) {
          await sleep(50);
          listen = /serving \/metrics, \/healthz and \/readyz at (\S+)/.exec(io.err())?.[1];
        }
        expect(listen, io.err()).toBeDefined();

        // Prometheus scraping the collector every second
        const promPort = await freePort();
        const promConfig = tmp.path('prometheus.yml');
        writeFileSync(
          promConfig,
          `global: { scrape_interval: 1s }\nscrape_configs:\n  - job_name: flightrec\n    static_configs:\n      - targets: ['${new URL(listen!).host}']\n`,
        );
        mkdirSync(tmp.path('prom'));
        const prom = start('prometheus', [
          `--config.file=${promConfig}`,
          `--storage.tsdb.path=${tmp.path('prom')}`,
          `--web.listen-address=127.0.0.1:${promPort}`,
          '--log.level=warn',
        ]);

        // while the incident plays: what Alertmanager holds, and what Prometheus answers
        const seen = new Map<string, AmAlert>();
        let series: unknown[] = [];
        const started = performance.now();
        while (performance.now() - started < 20_000) {
          await sleep(300);
          const alerts = (await getJson<AmAlert[]>(`${amUrl}/api/v2/alerts`)) ?? [];
          for (const a of alerts) seen.set(`${a.labels.alertname} ${a.labels.entity} ${a.labels.severity}`, a);
          if (series.length === 0) {
            const q = await getJson<{ data: { result: unknown[] } }>(
              `http://127.0.0.1:${promPort}/api/v1/query?query=${encodeURIComponent('flightrec_polls_total{job="flightrec",cluster="sim"}')}`,
            );
            series = q?.data.result ?? [];
          }
          // the simulated clock past 13 minutes: the broker, the storm and the catalog are back
          if (series.length > 0 && /^2026-01-01T00:1[3-9]:/m.test(io.err())) break;
        }
        expect(series.length, prom.out()).toBeGreaterThan(0);

        // promtool's own lint of the page, alert series included
        const page = await (await fetch(`${listen}/metrics`)).text();
        expect(page).toMatch(/flightrec_alerts_sent_total\{receiver="alertmanager:127\.0\.0\.1:\d+"\} [1-9]/);
        const lint = run('promtool', ['check', 'metrics'], page);
        expect(lint.code, lint.out).toBe(0);

        // fired: the broker outage, with the labels routes match on
        const broker = seen.get('connections.broker-empty broker/2 critical');
        expect(broker, [...seen.keys()].join('\n') + am.out()).toBeDefined();
        expect(broker!.labels).toEqual({
          alertname: 'connections.broker-empty',
          severity: 'critical',
          cluster: 'sim',
          entity: 'broker/2',
          entity_kind: 'broker',
          broker: '2',
          source: 'flightrec',
        });
        expect(broker!.startsAt).toBe('2026-01-01T00:02:00.000Z');
        expect(broker!.generatorURL).toMatch(/^flightrec:timeline\?cluster=sim&for=broker%2F2&since=/);
        expect(broker!.annotations.command).toMatch(/^flightrec timeline --cluster sim --for broker\/2 --since /);
        expect(seen.has('iceberg.catalog-unreachable iceberg-catalog/cluster critical')).toBe(true);

        // resolved: no longer active once their events ended (the resolution goes through the
        // receiver's queue: on a loaded machine it may reach Alertmanager a moment after the
        // recording passed the end, so wait for it, up to 15 s)
        const ended = [
          'connections.broker-empty broker/2 critical',
          'iceberg.catalog-unreachable iceberg-catalog/cluster critical',
        ];
        let active: string[] = [];
        for (const until = performance.now() + 15_000; ; await sleep(300)) {
          active = ((await getJson<AmAlert[]>(`${amUrl}/api/v2/alerts?active=true`)) ?? []).map(
            (a) => `${a.labels.alertname} ${a.labels.entity} ${a.labels.severity}`,
          );
          if (!ended.some((gone) => active.includes(gone)) || performance.now() > until) break;
        }
        for (const gone of ended) expect(active).not.toContain(gone);
        // amtool reads the same from Alertmanager (read back to back: the recording goes on meanwhile)
        const names = (alerts: AmAlert[]): string[] =>
          alerts.map((a) => `${a.labels.alertname} ${a.labels.entity} ${a.labels.severity}`).sort();
        let listed: string[] = [];
        let viaApi: string[] = [];
        for (let i = 0; i < 5 && (i === 0 || listed.join() !== viaApi.join()); i++) {
          const query = run('amtool', [
            `--alertmanager.url=${amUrl}`,
            'alert',
            'query',
            '-o',
            'json',
            'source=flightrec',
          ]);
          expect(query.code, query.out).toBe(0);
          listed = names(JSON.parse(query.out) as AmAlert[]);
          viaApi = names((await getJson<AmAlert[]>(`${amUrl}/api/v2/alerts?active=true`)) ?? []);
        }
        expect(listed.length).toBeGreaterThan(0);
        expect(listed).toEqual(viaApi);
      } finally {
        stop.abort();
        expect(await collecting, io.err().slice(-2000)).toBe(0);
      }
    }, 60_000);
  },
);
