/**
 * The receivers over loopback HTTP: what Alertmanager receives (labels, annotations, times,
 * resends, resolution, escalation, events found ended), what a webhook receives and how its
 * signature is checked, retries with back-off, the bounded queue, and secrets kept out of every
 * line (an echoed one included).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AlertmanagerReceiver } from '../../src/alerts/alertmanager-receiver.ts';
import type { LiveTransition } from '../../src/alerts/event-tracker.ts';
import { prepareReceivers, route, type RoutedReceiver } from '../../src/alerts/receivers.ts';
import { formatTimestamp } from '../../src/api/codec/timestamp.ts';
import type { AlertReceiverConfig, AlertsConfig } from '../../src/collector/config.ts';
import { ConfigError } from '../../src/collector/config-error.ts';
import { eventToJson } from '../../src/report/render/timeline-json.ts';
import type { Severity, TimelineEvent } from '../../src/report/timeline/types.ts';
import { answer, closedLoopbackPort, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.ts';

const TOKEN = 'am-Token-7f3b9c2e-do-not-print';
const HOOK_SECRET = 'hook-Secret-51d2a8e0';
const MIN = 60_000_000_000n;
/** the wall clock of the tests: 2026-01-01T01:00:00Z */
const NOW_MS = 1_767_229_200_000;

const servers: LoopbackServer[] = [];
const receivers: RoutedReceiver[] = [];
afterEach(async () => {
  for (const r of receivers.splice(0)) await r.receiver.close();
  for (const s of servers.splice(0)) await s.close();
});

function ev(over: Partial<TimelineEvent> = {}): TimelineEvent {
  return {
    kind: 'shadow.lag-high',
    severity: 'warn' as Severity,
    entity: 'shadow-topic/dr-primary/orders',
    related: ['link/dr-primary'],
    type: 'interval',
    start: 1_767_225_600_000_000_000n,
    end: null,
    startedBefore: false,
    description: 'shadow topic orders of dr-primary: lag 117412 records',
    evidence: { before: { totalLag: '3' }, during: { totalLag: '117412' }, after: {}, pollIds: [4n, 9n] },
    ...over,
  };
}

function tr(
  change: LiveTransition['change'],
  event: TimelineEvent,
  detectedAt = event.end ?? event.start,
): LiveTransition {
  return { change, cluster: 'prod', event, detectedAt };
}

function config(
  receiver: Partial<AlertReceiverConfig> & Pick<AlertReceiverConfig, 'kind' | 'url'>,
  over: Partial<AlertsConfig> = {},
): AlertsConfig {
  return {
    receivers: [
      {
        name: `${receiver.kind}:test`,
        auth: { kind: 'none' },
        timeoutMs: 2_000,
        filter: { minSeverity: 'info', include: ['*'], exclude: [] },
        ...receiver,
      },
    ],
    resendIntervalMs: 60_000,
    queueSize: 100,
    retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 40 },
    ...over,
  };
}

function make(cfg: AlertsConfig, env: Record<string, string> = {}, now: () => number = () => NOW_MS) {
  const lines: string[] = [];
  const made = prepareReceivers(cfg, {
    env,
    warn: (l) => lines.push(`warning: ${l}`),
    line: (l) => lines.push(l),
    now,
  });
  receivers.push(...made);
  return { routed: made, receiver: made[0]!.receiver, lines };
}

async function server(
  handler: Parameters<typeof startLoopbackServer>[0] = (_r, res) => answer(res, 200, ''),
): Promise<LoopbackServer> {
  const s = await startLoopbackServer(handler);
  servers.push(s);
  return s;
}

interface Posted {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt: string;
  generatorURL: string;
}
const posted = (s: LoopbackServer): Posted[][] => s.requests.map((r) => JSON.parse(r.body.toString()) as Posted[]);

describe('Alertmanager', () => {
  it('posts a firing alert to /api/v2/alerts with its labels, annotations and times, with the bearer token', async () => {
    const am = await server();
    const { receiver } = make(
      config({ kind: 'alertmanager', url: `${am.url}/am/`, auth: { kind: 'bearer', tokenEnv: 'AM_TOKEN' } }),
      {
        AM_TOKEN: TOKEN,
      },
    );
    receiver.take(tr('opened', ev()));
    await receiver.flush();
    expect(am.requests.map((r) => [r.method, r.path, r.headers.authorization])).toEqual([
      ['POST', '/am/api/v2/alerts', `Bearer ${TOKEN}`],
    ]);
    const [alert] = posted(am)[0]!;
    expect(alert!.labels).toEqual({
      alertname: 'shadow.lag-high',
      severity: 'warning',
      cluster: 'prod',
      entity: 'shadow-topic/dr-primary/orders',
      entity_kind: 'shadow-topic',
      link: 'dr-primary',
      topic: 'orders',
      source: 'flightrec',
    });
    expect(alert!.annotations.summary).toBe('shadow topic orders of dr-primary: lag 117412 records');
    expect(alert!.annotations.evidence).toBe('totalLag: 3 → 117412; polls 4, 9');
    expect(alert!.annotations.command).toBe(
      'flightrec timeline --cluster prod --for shadow-topic/dr-primary/orders --since 2026-01-01T00:00:00.000000000Z',
    );
    expect(alert!.startsAt).toBe('2026-01-01T00:00:00.000000000Z');
    // four resend intervals ahead, so that it never expires between two sends
    expect(alert!.endsAt).toBe(formatTimestamp(BigInt(NOW_MS + 4 * 60_000) * 1_000_000n));
    expect(alert!.generatorURL).toBe(
      'flightrec:timeline?cluster=prod&for=shadow-topic%2Fdr-primary%2Forders&since=2026-01-01T00%3A00%3A00.000000000Z',
    );
  });

  it('sends firing alerts again at each resend, resolves at the end and keeps sending the resolution a while', async () => {
    const am = await server();
    let now = NOW_MS;
    const { receiver } = make(config({ kind: 'alertmanager', url: am.url }), {}, () => now);
    const am1 = receiver as unknown as AlertmanagerReceiver;
    receiver.take(tr('opened', ev()));
    await receiver.flush();
    now += 60_000;
    am1.resend();
    await receiver.flush();
    expect(posted(am).map((p) => p[0]!.endsAt)).toEqual([
      formatTimestamp(BigInt(NOW_MS + 240_000) * 1_000_000n),
      formatTimestamp(BigInt(NOW_MS + 300_000) * 1_000_000n),
    ]);
    const end = ev().start + 5n * MIN;
    receiver.take(tr('ended', ev({ end })));
    await receiver.flush();
    expect(posted(am)[2]![0]!.endsAt).toBe(formatTimestamp(end));
    now += 60_000;
    am1.resend();
    await receiver.flush();
    expect(posted(am)[3]![0]!.endsAt).toBe(formatTimestamp(end));
    // past 15 minutes a resolved alert is sent no more
    now += 16 * 60_000;
    am1.resend();
    await receiver.flush();
    expect(am.requests).toHaveLength(4);
  });

  it('an escalation resolves the alert of the old severity and fires one of the new', async () => {
    const am = await server();
    const { receiver } = make(config({ kind: 'alertmanager', url: am.url }));
    receiver.take(tr('opened', ev()));
    receiver.take(tr('escalated', ev({ severity: 'error' }), ev().start + MIN));
    await receiver.flush();
    const last = new Map(
      posted(am)
        .flat()
        .map((a) => [a.labels.severity, a]),
    );
    expect(last.get('warning')!.endsAt).toBe(formatTimestamp(ev().start + MIN));
    expect(last.get('critical')!.startsAt).toBe(formatTimestamp(ev().start));
    expect(last.get('critical')!.endsAt > formatTimestamp(BigInt(NOW_MS) * 1_000_000n)).toBe(true);
  });

  it('an event found already ended is sent firing, then resolved a resend interval after it was delivered', async () => {
    const am = await server();
    let now = NOW_MS;
    const { receiver } = make(config({ kind: 'alertmanager', url: am.url }), {}, () => now);
    const point = ev({
      kind: 'upgrade.member-version',
      entity: 'broker/2',
      type: 'point',
      end: ev().start,
      severity: 'info',
    });
    receiver.take(tr('opened', point));
    await receiver.flush();
    expect(posted(am)[0]![0]!.labels).toMatchObject({
      alertname: 'upgrade.member-version',
      broker: '2',
      severity: 'info',
    });
    expect(posted(am)[0]![0]!.endsAt > formatTimestamp(BigInt(now) * 1_000_000n)).toBe(true);
    now += 30_000;
    (receiver as unknown as AlertmanagerReceiver).resend();
    await receiver.flush();
    expect(posted(am)[1]![0]!.endsAt > formatTimestamp(BigInt(now) * 1_000_000n)).toBe(true);
    now += 31_000;
    (receiver as unknown as AlertmanagerReceiver).resend();
    await receiver.flush();
    expect(posted(am).at(-1)![0]!.endsAt).toBe(formatTimestamp(point.start));
  });

  it('times later than the clock (a simulation running ahead) are sent as now', async () => {
    const am = await server();
    const { receiver } = make(config({ kind: 'alertmanager', url: am.url }));
    const ahead = BigInt(NOW_MS) * 1_000_000n + 3_600_000_000_000n;
    receiver.take(tr('opened', ev({ start: ahead })));
    receiver.take(tr('ended', ev({ start: ahead, end: ahead + MIN })));
    await receiver.flush();
    const last = posted(am).flat().at(-1)!;
    expect([last.startsAt, last.endsAt]).toEqual([
      formatTimestamp(BigInt(NOW_MS) * 1_000_000n),
      formatTimestamp(BigInt(NOW_MS) * 1_000_000n),
    ]);
  });
});

describe('webhook', () => {
  it('posts each change as the timeline JSON event, signed over the timestamp and the body', async () => {
    const hook = await server();
    const { receiver } = make(
      config({ kind: 'webhook', url: `${hook.url}/hooks/T0001/secret-path`, secret: { env: 'HOOK' } }),
      {
        HOOK: HOOK_SECRET,
      },
    );
    const event = ev({ end: ev().start + MIN });
    receiver.take(tr('ended', event));
    await receiver.flush();
    const [req] = hook.requests;
    const body = JSON.parse(req!.body.toString()) as Record<string, unknown>;
    expect(body).toEqual({
      version: 1,
      status: 'resolved',
      change: 'ended',
      cluster: 'prod',
      detectedAt: formatTimestamp(event.end!),
      event: JSON.parse(JSON.stringify(eventToJson(event))),
    });
    // verification as docs/operations.md tells it
    const timestamp = req!.headers['x-flightrec-timestamp'] as string;
    expect(Math.abs(Number(timestamp) - NOW_MS / 1000)).toBeLessThan(2);
    const expected = `sha256=${createHmac('sha256', HOOK_SECRET).update(`${timestamp}.${req!.body.toString()}`).digest('hex')}`;
    const got = req!.headers['x-flightrec-signature'] as string;
    expect(timingSafeEqual(Buffer.from(got), Buffer.from(expected))).toBe(true);
    expect(req!.headers['x-flightrec-delivery']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('without a secret no signature is sent', async () => {
    const hook = await server();
    const { receiver } = make(config({ kind: 'webhook', url: hook.url }));
    receiver.take(tr('opened', ev()));
    await receiver.flush();
    expect(hook.requests[0]!.headers['x-flightrec-signature']).toBeUndefined();
    expect(JSON.parse(hook.requests[0]!.body.toString())).toMatchObject({ status: 'firing', change: 'opened' });
  });
});

describe('delivery', () => {
  it('retries what may pass later with back-off, with the same delivery id, and counts it sent', async () => {
    let calls = 0;
    const hook = await server((_r, res) => answer(res, ++calls < 3 ? 503 : 200, ''));
    const { receiver, lines } = make(config({ kind: 'webhook', url: hook.url }));
    receiver.take(tr('opened', ev()));
    await receiver.flush();
    expect(hook.requests).toHaveLength(3);
    expect(new Set(hook.requests.map((r) => r.headers['x-flightrec-delivery'])).size).toBe(1);
    expect(receiver.counts).toEqual({ sent: 1, failed: 0, dropped: 0 });
    expect(lines).toEqual([]);
  });

  it('gives up after the last attempt or at once on a refusal, says so once, never with the URL or a secret', async () => {
    const hook = await server((r, res) =>
      answer(
        res,
        r.path.endsWith('bad') ? 400 : 502,
        `proxy error: Authorization: Bearer ${TOKEN} (${Buffer.from(TOKEN).toString('base64')})`,
      ),
    );
    const cfg: AlertsConfig = {
      ...config({ kind: 'webhook', url: `${hook.url}/p/s3cr3t-path` }),
    };
    const { receiver, lines } = make(
      {
        ...cfg,
        receivers: [{ ...cfg.receivers[0]!, auth: { kind: 'bearer', tokenEnv: 'T' } }],
      },
      { T: TOKEN },
    );
    receiver.take(tr('opened', ev()));
    receiver.take(tr('ended', ev({ end: ev().start + MIN })));
    await receiver.flush();
    expect(hook.requests).toHaveLength(6);
    expect(receiver.counts).toEqual({ sent: 0, failed: 2, dropped: 0 });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^alerts: webhook:test: delivery failed \(HTTP 502: proxy error: Authorization: Bearer \[redacted\] \(\[redacted\]\)\)/,
    );
    for (const l of lines) {
      expect(l).not.toContain(TOKEN);
      expect(l).not.toContain('s3cr3t');
    }
    const refused = await server((_r, res) => answer(res, 400, 'bad'));
    const second = make(config({ kind: 'webhook', url: refused.url }));
    second.receiver.take(tr('opened', ev()));
    await second.receiver.flush();
    expect(refused.requests).toHaveLength(1);
    expect(second.receiver.counts.failed).toBe(1);
  });

  it('an unreachable receiver fails by its transport code', async () => {
    const port = await closedLoopbackPort();
    const { receiver, lines } = make(config({ kind: 'alertmanager', url: `http://127.0.0.1:${port}` }));
    receiver.take(tr('opened', ev()));
    await receiver.flush();
    expect(receiver.counts.failed).toBe(1);
    expect(lines[0]).toContain('(ECONNREFUSED)');
  });

  it('a receiver that never answers times out; the queue stays bounded, the oldest dropped and counted', async () => {
    const hung = await server(() => undefined);
    const { receiver, lines } = make(
      config(
        { kind: 'webhook', url: hung.url, timeoutMs: 200 },
        { queueSize: 3, retry: { maxAttempts: 1, baseDelayMs: 10, maxDelayMs: 10 } },
      ),
    );
    for (let i = 0; i < 10; i++) receiver.take(tr('opened', ev({ start: BigInt(i) })));
    // one in flight, three waiting, six dropped
    expect(receiver.queued).toBe(4);
    expect(receiver.counts.dropped).toBe(6);
    const started = performance.now();
    await receiver.flush();
    expect(performance.now() - started).toBeLessThan(4 * 200 + 1_500);
    expect(receiver.counts).toEqual({ sent: 0, failed: 4, dropped: 6 });
    expect(lines[0]).toContain('no answer within 200 ms');
  });

  it('a huge answer is read no further than 64 KiB; an answer that trickles is cut at the timeout', async () => {
    const huge = await server((_r, res) => answer(res, 500, 'x'.repeat(20 * 1024 * 1024)));
    const one = make(
      config({ kind: 'webhook', url: huge.url }, { retry: { maxAttempts: 1, baseDelayMs: 10, maxDelayMs: 10 } }),
    );
    one.receiver.take(tr('opened', ev()));
    await one.receiver.flush();
    expect(one.receiver.counts.failed).toBe(1);
    expect(one.lines[0]!.length).toBeLessThan(400);
    const trickle = await server((_r, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const t = setInterval(() => res.write('.'), 50);
      res.on('close', () => clearInterval(t));
    });
    const two = make(
      config(
        { kind: 'webhook', url: trickle.url, timeoutMs: 300 },
        { retry: { maxAttempts: 1, baseDelayMs: 10, maxDelayMs: 10 } },
      ),
    );
    const started = performance.now();
    two.receiver.take(tr('opened', ev()));
    await two.receiver.flush();
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(two.receiver.counts.failed).toBe(1);
    expect(two.lines[0]).toContain('no answer within 300 ms');
  });

  it('closing drops what waits, counted', async () => {
    const hung = await server(() => undefined);
    const { receiver } = make(config({ kind: 'webhook', url: hung.url, timeoutMs: 60_000 }));
    receiver.take(tr('opened', ev()));
    receiver.take(tr('ended', ev({ end: 5n })));
    await receiver.close();
    receivers.splice(0);
    expect(receiver.counts).toEqual({ sent: 0, failed: 0, dropped: 2 });
  });
});

describe('routing and filters', () => {
  it('a receiver gets what passes its filter; an escalation over its minimum announces it; it ends only what it announced', async () => {
    const hook = await server();
    const { routed, receiver } = make(
      config({
        kind: 'webhook',
        url: hook.url,
        filter: { minSeverity: 'error', include: ['shadow.*', 'api.*'], exclude: ['api.truncated'] },
      }),
    );
    route(routed, tr('opened', ev()));
    route(routed, tr('opened', ev({ kind: 'connections.storm', severity: 'error' })));
    route(routed, tr('opened', ev({ kind: 'api.truncated', severity: 'error' })));
    route(routed, tr('escalated', ev({ severity: 'error' })));
    route(routed, tr('ended', ev({ severity: 'error', end: ev().start + MIN })));
    route(routed, tr('ended', ev({ kind: 'shadow.lag-growing', end: 9n })));
    await receiver.flush();
    expect(
      hook.requests
        .map((r) => JSON.parse(r.body.toString()) as { change: string; event: { kind: string; severity: string } })
        .map((b) => `${b.change} ${b.event.kind} ${b.event.severity}`),
    ).toEqual(['opened shadow.lag-high error', 'ended shadow.lag-high error']);
  });

  it('refuses what cannot be used, naming the key and never a secret or the URL', async () => {
    const base = config({ kind: 'webhook', url: 'http://127.0.0.1:9/hooks/s3cr3t' });
    const r0 = base.receivers[0]!;
    const bad = (over: Partial<AlertReceiverConfig>, env: Record<string, string> = {}): string => {
      try {
        make({ ...base, receivers: [{ ...r0, ...over }] }, env);
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as Error).message;
      }
      return 'accepted';
    };
    expect(bad({ filter: { minSeverity: 'warn', include: ['shadw.*'], exclude: [] } })).toBe(
      'alerts receiver webhook:test.include: "shadw.*" matches no event kind (kinds are api.*, collection.*, connections.*, iceberg.*, shadow.*, upgrade.*)',
    );
    expect(bad({ secret: { env: 'NOT_SET' } })).toMatch(/^alerts receiver webhook:test: secret: .*NOT_SET/);
    expect(bad({ auth: { kind: 'basic', username: 'am', passwordFile: '/nonexistent/pw' } })).toMatch(
      /^alerts receiver webhook:test: auth: .*\/nonexistent\/pw/,
    );
    expect(bad({ tls: { caFile: '/nonexistent/ca.pem', insecureSkipVerify: false } })).toMatch(
      /tls\.caFile: cannot read \/nonexistent\/ca\.pem: ENOENT/,
    );
    expect(bad({ filter: { minSeverity: 'warn', include: ['*lag*'], exclude: [] } })).toBe('accepted');
    for (const m of [bad({ secret: { env: 'S' } }, { S: '' })]) expect(m).not.toContain('s3cr3t');
  });
});

const hasOpenssl = spawnSync('openssl', ['version'], { stdio: 'ignore' }).status === 0;

describe.skipIf(!hasOpenssl)('TLS toward a receiver (self-signed certificate for 127.0.0.1)', () => {
  it('verifies the certificate against caFile, refuses it without, and warns when verification is off', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'flightrec-alerts-tls-'));
    try {
      const caFile = join(dir, 'cert.pem');
      const keyFile = join(dir, 'key.pem');
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:prime256v1',
          '-nodes',
          '-keyout',
          keyFile,
          '-out',
          caFile,
          '-days',
          '1',
          '-subj',
          '/CN=127.0.0.1',
          '-addext',
          'subjectAltName=IP:127.0.0.1',
        ],
        { stdio: 'ignore' },
      );
      const am = await startLoopbackServer((_r, res) => answer(res, 200, ''), {
        tls: { key: readFileSync(keyFile), cert: readFileSync(caFile) },
      });
      servers.push(am);
      const once = { retry: { maxAttempts: 1, baseDelayMs: 10, maxDelayMs: 10 } };
      const trusted = make(
        config({ kind: 'alertmanager', url: am.url, tls: { caFile, insecureSkipVerify: false } }, once),
      );
      trusted.receiver.take(tr('opened', ev()));
      await trusted.receiver.flush();
      expect(trusted.receiver.counts.sent).toBe(1);
      const untrusted = make(config({ kind: 'alertmanager', url: am.url }, once));
      untrusted.receiver.take(tr('opened', ev()));
      await untrusted.receiver.flush();
      expect(untrusted.receiver.counts.failed).toBe(1);
      expect(untrusted.lines[0]).toMatch(
        /delivery failed \((DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE)\)/,
      );
      const skipping = make(config({ kind: 'alertmanager', url: am.url, tls: { insecureSkipVerify: true } }, once));
      skipping.receiver.take(tr('opened', ev()));
      await skipping.receiver.flush();
      expect(skipping.receiver.counts.sent).toBe(1);
      expect(skipping.lines[0]).toMatch(
        /^warning: alerts receiver alertmanager:test: TLS certificate verification is DISABLED/,
      );
      expect(am.requests).toHaveLength(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
