/** The `alerts:` section of the configuration and the alert flags: defaults, merging, and refusals naming the key. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadCollectorConfig } from '../../src/collector/config-load.ts';
import type { AlertFlags } from '../../src/collector/config-alerts.ts';
import { ConfigError } from '../../src/collector/config-error.ts';

const CLUSTER = 'clusters:\n  - name: prod\n    baseUrl: http://127.0.0.1:9644\n';

function load(text: string, alertFlags: AlertFlags = {}) {
  return loadCollectorConfig({ env: {}, flags: {}, file: { text: CLUSTER + text, path: 'f.yaml' }, alertFlags });
}

function refusal(text: string, alertFlags: AlertFlags = {}): string {
  try {
    load(text, alertFlags);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  return 'accepted';
}

describe('alerts configuration', () => {
  it('is off without receivers', () => {
    expect(load('').alerts).toBeUndefined();
    expect(load('alerts:\n  minSeverity: error\n').alerts).toBeUndefined();
  });

  it('reads every key, defaults the rest, and a receiver overrides the filter', () => {
    const a = load(
      [
        'alerts:',
        '  minSeverity: error',
        '  exclude: [connections.new-software-version]',
        '  resendInterval: 30s',
        '  queueSize: 50',
        '  timeout: 3s',
        '  retry: { maxAttempts: 2, baseDelay: 500ms, maxDelay: 5s }',
        '  alertmanagers:',
        '    - url: https://am.example:9093/prefix',
        '      auth: { kind: basic, username: flightrec, passwordFile: /etc/flightrec/am-pw }',
        '      tls: { caFile: /etc/ca.pem, certFile: /etc/c.pem, keyFile: /etc/k.pem }',
        '  webhooks:',
        '    - url: https://hooks.example/T1/B2/s3cr3t',
        '      name: chat',
        '      secretEnv: HOOK_SECRET',
        '      minSeverity: warn',
        '      include: ["shadow.*"]',
        '',
      ].join('\n'),
    ).alerts!;
    expect(a.resendIntervalMs).toBe(30_000);
    expect(a.queueSize).toBe(50);
    expect(a.retry).toEqual({ maxAttempts: 2, baseDelayMs: 500, maxDelayMs: 5_000 });
    expect(a.receivers).toEqual([
      {
        kind: 'alertmanager',
        url: 'https://am.example:9093/prefix',
        name: 'alertmanager:am.example:9093',
        auth: { kind: 'basic', username: 'flightrec', passwordFile: '/etc/flightrec/am-pw' },
        tls: { caFile: '/etc/ca.pem', certFile: '/etc/c.pem', keyFile: '/etc/k.pem', insecureSkipVerify: false },
        timeoutMs: 3_000,
        filter: { minSeverity: 'error', include: ['*'], exclude: ['connections.new-software-version'] },
      },
      {
        kind: 'webhook',
        url: 'https://hooks.example/T1/B2/s3cr3t',
        name: 'chat',
        auth: { kind: 'none' },
        secret: { env: 'HOOK_SECRET' },
        timeoutMs: 3_000,
        filter: { minSeverity: 'warn', include: ['shadow.*'], exclude: ['connections.new-software-version'] },
      },
    ]);
  });

  it('adds the receivers of the flags (a URL the file lists keeps its settings), signed with the flag secret', () => {
    const a = load('alerts:\n  alertmanagers:\n    - { url: "http://127.0.0.1:9093", name: main }\n', {
      alertmanager: ['http://127.0.0.1:9093', 'http://127.0.0.1:9094'],
      webhook: ['http://127.0.0.1:8080/hook'],
      webhookSecretFile: '/run/secrets/hook',
    }).alerts!;
    expect(a.receivers.map((r) => [r.kind, r.name, r.secret])).toEqual([
      ['alertmanager', 'main', undefined],
      ['alertmanager', 'alertmanager:127.0.0.1:9094', undefined],
      ['webhook', 'webhook:127.0.0.1:8080', { file: '/run/secrets/hook' }],
    ]);
    expect(a.receivers[0]!.filter.minSeverity).toBe('warn');
    // two receivers on one host get numbered names
    const two = load('', { webhook: ['http://127.0.0.1:8080/a', 'http://127.0.0.1:8080/b'] }).alerts!;
    expect(two.receivers.map((r) => r.name)).toEqual(['webhook:127.0.0.1:8080', 'webhook:127.0.0.1:8080#2']);
  });

  it('reads the alerts: of the file docs/operations.md documents key by key', () => {
    const doc = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
    const start = doc.indexOf('```yaml', doc.indexOf('## `flightrec.yaml`, every key')) + '```yaml'.length;
    const text = doc.slice(start, doc.indexOf('```', start));
    const env = { PROD_ADMIN_PASSWORD: 'x' };
    const a = loadCollectorConfig({ env, flags: {}, file: { text, path: 'operations.md' } }).alerts!;
    expect(a.receivers.map((r) => [r.kind, r.name, r.filter.minSeverity])).toEqual([
      ['alertmanager', 'am-main', 'error'],
      ['webhook', 'webhook:hooks.example', 'warn'],
    ]);
    expect(a.receivers[1]!.filter.exclude).toEqual(['connections.new-software-version']);
  });

  it('refuses what cannot be used, naming the key, never echoing the URL', () => {
    expect(refusal('', { alertmanager: ['http://user:pw@127.0.0.1:9093/s3cr3t'] })).toBe(
      '--alertmanager: must not contain credentials; use auth (basic or bearer, from an environment variable or a file)',
    );
    expect(refusal('', { webhook: ['ftp://127.0.0.1/s3cr3t'] })).toBe('--webhook: must be an http:// or https:// URL');
    expect(refusal('', { webhookSecretEnv: 'X' })).toBe('--webhook-secret-env: needs --webhook');
    expect(refusal('alerts:\n  webhooks:\n    - { url: "http://h/x", secret: abc }\n')).toBe(
      'alerts.webhooks[0].secret: secrets are not written in the config; use secretEnv or secretFile',
    );
    expect(refusal('alerts:\n  alertmanagers:\n    - { url: "http://h", auth: { token: abc } }\n')).toBe(
      'alerts.alertmanagers[0].auth.token: secrets are not written in the config; use tokenEnv or tokenFile',
    );
    expect(refusal('alerts:\n  alertmanagers:\n    - { url: "http://h", tls: { caFile: /ca.pem } }\n')).toBe(
      'alerts.alertmanagers[0].tls: TLS settings are given but the alertmanager URL is not https',
    );
    expect(refusal('alerts:\n  alertmanagers:\n    - { url: "http://h", auth: { kind: basic, username: u } }\n')).toBe(
      'alerts.alertmanagers[0].auth.passwordEnv: or passwordFile: required for basic authentication',
    );
    expect(refusal('alerts:\n  minSeverity: fatal\n')).toBe('alerts.minSeverity: must be info, warn or error');
    expect(refusal('alerts:\n  include: ["Shadow.*"]\n')).toBe(
      'alerts.include[0]: must be a kind pattern such as shadow.* or connections.storm',
    );
    expect(refusal('alerts:\n  resendInterval: 2h\n')).toMatch(/^alerts\.resendInterval: 2h is too long/);
    expect(refusal('alerts:\n  webhook: []\n')).toMatch(/^alerts\.webhook: unknown key/);
    for (const m of [refusal('', { alertmanager: ['http://user:pw@127.0.0.1:9093/s3cr3t'] })]) {
      expect(m).not.toContain('s3cr3t');
      expect(m).not.toContain('pw@');
    }
  });
});
