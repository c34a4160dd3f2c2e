import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_SCHEDULES } from '../../src/collector/index.ts';
import { parseConfigFile } from '../../src/collector/config-file.ts';
import { loadCollectorConfig, type ConfigInput } from '../../src/collector/config-load.ts';

const FULL = `
jitter: 1s
shutdownTimeout: 5s
keepRawAnswers: true
retry: { maxAttempts: 3, baseDelay: 200ms, exhaustedDelay: 2s, maxDelay: 10s }
schedules:
  iceberg: "*/15 * * * * *"
clusters:
  - name: prod
    baseUrl: https://admin.prod.example:9644/
    servicePrefix: acme.core.admin.v2
    timeout: 5s
    auth: { username: flightrec, passwordEnv: PROD_PW }
    tls: { caFile: /etc/ca.pem }
    shadowLinks:
      - name: dr
        topics: [orders, payments]
      - audit
    connections: { pageSize: 500, filter: 'state = KAFKA_CONNECTION_STATE_OPEN', fanout: true, maxCalls: 20 }
    iceberg: { topics: [orders] }
    schedules:
      connections: "*/10 * * * * *"
      GetUpgradeStatus: off
  - name: staging
    baseUrl: http://127.0.0.1:9644
`;

function load(input: Partial<ConfigInput> & { text?: string }): ReturnType<typeof loadCollectorConfig> {
  return loadCollectorConfig({
    env: input.env ?? {},
    flags: input.flags ?? {},
    ...(input.text === undefined ? {} : { file: { text: input.text, path: 'flightrec.yaml' } }),
    ...(input.ignoreFileClusters === undefined ? {} : { ignoreFileClusters: input.ignoreFileClusters }),
  });
}

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('no error');
}

describe('collector config', () => {
  it('reads the lease TTL of standby collectors (leaseTtl), and leaves the default to the collector', () => {
    const base = 'clusters:\n  - { name: prod, baseUrl: http://127.0.0.1:1 }\n';
    expect(load({ text: `leaseTtl: 1500ms\n${base}` }).leaseTtlMs).toBe(1500);
    expect(load({ text: base }).leaseTtlMs).toBeUndefined();
    expect(errorOf(() => load({ text: `leaseTtl: 0s\n${base}` })).message).toMatch(/leaseTtl: must be longer than 0/);
  });

  it('reads every key of a full file', () => {
    const cfg = load({ text: FULL, env: { PROD_PW: 's3cret' } });
    expect(cfg.jitterMs).toBe(1000);
    expect(cfg.shutdownTimeoutMs).toBe(5000);
    expect(cfg.keepRawAnswers).toBe(true);
    expect(cfg.retry).toEqual({ maxAttempts: 3, baseDelayMs: 200, exhaustedDelayMs: 2000, maxDelayMs: 10_000 });
    expect(cfg.clusters.map((c) => c.name)).toEqual(['prod', 'staging']);
    const prod = cfg.clusters[0]!;
    expect(prod).toMatchObject({
      baseUrl: 'https://admin.prod.example:9644',
      servicePrefix: 'acme.core.admin.v2',
      timeoutMs: 5000,
      auth: { kind: 'basic', username: 'flightrec', passwordEnv: 'PROD_PW' },
      tls: { caFile: '/etc/ca.pem', insecureSkipVerify: false },
      shadowLinks: [
        { name: 'dr', topics: ['orders', 'payments'] },
        { name: 'audit', topics: [] },
      ],
      connections: {
        pageSize: 500,
        filter: 'state = KAFKA_CONNECTION_STATE_OPEN',
        orderBy: '',
        fanout: true,
        maxCalls: 20,
      },
      icebergTopics: ['orders'],
    });
    expect(prod.schedules).toEqual({
      ...DEFAULT_SCHEDULES,
      ListKafkaConnections: '*/10 * * * * *',
      GetIcebergStatus: '*/15 * * * * *',
      GetUpgradeStatus: null,
    });
    expect(cfg.clusters[1]!.schedules).toEqual({ ...DEFAULT_SCHEDULES, GetIcebergStatus: '*/15 * * * * *' });
    expect(JSON.stringify(cfg)).not.toContain('s3cret');
  });

  it('leaves the thresholds section to the analysis commands that share the file', () => {
    const config = load({
      text: 'thresholds:\n  shadow: { lagRecords: 5000 }\nclusters: [{ baseUrl: "http://127.0.0.1:9644" }]\n',
    });
    expect(config.clusters[0]!.baseUrl).toBe('http://127.0.0.1:9644');
  });

  it('keeps the defaults of the retry keys a file leaves out', () => {
    const cfg = load({ text: 'retry: { maxAttempts: 2 }\nclusters: [{ baseUrl: "http://x:1" }]' });
    expect(cfg.retry).toEqual({ maxAttempts: 2, baseDelayMs: 500, exhaustedDelayMs: 5000, maxDelayMs: 30_000 });
    expect(cfg.keepRawAnswers).toBe(false);
    expect(
      load({ text: 'clusters: [{ baseUrl: "http://x:1" }]', env: { FLIGHTREC_KEEP_RAW_ANSWERS: 'true' } })
        .keepRawAnswers,
    ).toBe(true);
  });

  it('applies defaults: 30 s connections and shadow, 60 s Iceberg and upgrade', () => {
    const cfg = load({ flags: { baseUrl: 'http://127.0.0.1:1' } });
    const c = cfg.clusters[0]!;
    expect(c.name).toBe('default');
    expect(c.schedules.ListKafkaConnections).toBe('*/30 * * * * *');
    expect(c.schedules.GetShadowLink).toBe('*/30 * * * * *');
    expect(c.schedules.GetIcebergStatus).toBe('0 * * * * *');
    expect(c.schedules.GetUpgradeStatus).toBe('0 * * * * *');
    expect(c.auth).toEqual({ kind: 'none' });
    expect(cfg.jitterMs).toBeGreaterThan(0);
  });

  it('gives flags precedence over the environment, and the environment over the file', () => {
    const text = 'clusters: [{ name: a, baseUrl: "http://file:1", timeout: 1s }]';
    expect(load({ text }).clusters[0]!.baseUrl).toBe('http://file:1');
    const env = { FLIGHTREC_BASE_URL: 'http://env:2', FLIGHTREC_TIMEOUT: '2s' };
    expect(load({ text, env }).clusters[0]).toMatchObject({ baseUrl: 'http://env:2', timeoutMs: 2000 });
    const both = load({ text, env, flags: { baseUrl: 'http://flag:3' } }).clusters[0]!;
    expect(both).toMatchObject({ name: 'a', baseUrl: 'http://flag:3', timeoutMs: 2000 });
  });

  it('lets a higher layer replace the secret source of a lower one', () => {
    const text = 'clusters: [{ baseUrl: "http://x:1", auth: { username: u, passwordEnv: FILE_PW } }]';
    const env = { FLIGHTREC_PASSWORD_FILE: '/run/secrets/pw', FILE_PW: 'x' };
    expect(load({ text, env }).clusters[0]!.auth).toEqual({
      kind: 'basic',
      username: 'u',
      passwordFile: '/run/secrets/pw',
    });
  });

  it('reads the password from FLIGHTREC_PASSWORD when basic auth names no source', () => {
    const env = { FLIGHTREC_BASE_URL: 'http://x:1', FLIGHTREC_USERNAME: 'admin', FLIGHTREC_PASSWORD: 'pw' };
    expect(load({ env }).clusters[0]!.auth).toEqual({
      kind: 'basic',
      username: 'admin',
      passwordEnv: 'FLIGHTREC_PASSWORD',
    });
    const err = errorOf(() => load({ env: { ...env, FLIGHTREC_PASSWORD: undefined } }));
    // in the user's terms: what to set, not an internal key path such as --base-url.auth.passwordEnv
    expect(err.message).toBe(
      'no password for cluster default: set FLIGHTREC_PASSWORD, or passwordEnv/passwordFile in the config (--password-env/--password-file on the command line)',
    );
    expect(err.message).not.toContain('--base-url.auth');
  });

  it('infers bearer auth from a token source', () => {
    const cfg = load({ flags: { baseUrl: 'http://x:1', tokenFile: '/t' } });
    expect(cfg.clusters[0]!.auth).toEqual({ kind: 'bearer', tokenFile: '/t' });
  });

  it('accepts --link LINK:TOPIC,TOPIC and FLIGHTREC_SHADOW_LINKS', () => {
    const a = load({ flags: { baseUrl: 'http://x:1', link: ['dr:orders,payments', 'audit'] } });
    expect(a.clusters[0]!.shadowLinks).toEqual([
      { name: 'dr', topics: ['orders', 'payments'] },
      { name: 'audit', topics: [] },
    ]);
    const b = load({ env: { FLIGHTREC_BASE_URL: 'http://x:1', FLIGHTREC_SHADOW_LINKS: 'dr:orders audit' } });
    expect(b.clusters[0]!.shadowLinks.map((l) => l.name)).toEqual(['dr', 'audit']);
  });

  it('selects one of several clusters with --cluster, and refuses overrides without it', () => {
    const cfg = load({ text: FULL, env: { PROD_PW: 'x' }, flags: { cluster: 'staging', timeout: '3s' } });
    expect(cfg.clusters.map((c) => [c.name, c.timeoutMs])).toEqual([['staging', 3000]]);
    expect(errorOf(() => load({ text: FULL, env: { PROD_PW: 'x' }, flags: { timeout: '3s' } })).key).toBe('--cluster');
    expect(errorOf(() => load({ text: FULL, flags: { cluster: 'nope' } })).message).toMatch(
      /no cluster named "nope".*known: prod, staging/,
    );
  });

  it('names the key of every invalid value', () => {
    const cases: [string, string | RegExp][] = [
      [
        'clusters: [{ baseUrl: "http://x:1", auth: { username: u, passwordEnv: "not a var" } }]',
        'clusters[0].auth.passwordEnv: must name an environment variable (letters, digits and _)',
      ],
      ['clusters: [{ baseUrl: "ftp://x" }]', 'clusters[0].baseUrl: must be an http:// or https:// URL'],
      ['clusters: [{ baseUrl: "http://u:p@x" }]', /^clusters\[0\]\.baseUrl: must not contain credentials/],
      [
        'clusters: [{ baseUrl: "http://x", timeout: 10 }]',
        'clusters[0].timeout: must be a duration such as 10s or 500ms',
      ],
      [
        'clusters: [{ baseUrl: "http://x", schedules: { connections: "*/30 * * *" } }]',
        /^clusters\[0\]\.schedules\.connections: must have six fields/,
      ],
      [
        'clusters: [{ baseUrl: "http://x", schedules: { connections: "99 * * * * *" } }]',
        /^clusters\[0\]\.schedules\.connections: invalid cron expression/,
      ],
      ['clusters: [{ baseUrl: "http://x", colour: red }]', /^clusters\[0\]\.colour: unknown key/],
      [
        'clusters: [{ baseUrl: "http://x", auth: { password: hunter2 } }]',
        /^clusters\[0\]\.auth\.password: secrets are not written in the config/,
      ],
      [
        'clusters: [{ baseUrl: "http://x", tls: { caFile: a } }]',
        /^clusters\[0\]\.tls: TLS settings are given but baseUrl http:\/\/x is not https/,
      ],
      [
        'clusters: [{ baseUrl: "https://x", tls: { certFile: a } }]',
        'clusters[0].tls.keyFile: certFile and keyFile must be given together',
      ],
      [
        'clusters: [{ name: a, baseUrl: "http://x" }, { name: a, baseUrl: "http://y" }]',
        'clusters[1].name: "a" is already used by clusters[0]',
      ],
      [
        'clusters: [{ baseUrl: "http://x" }, { name: b, baseUrl: "http://y" }]',
        'clusters[0].name: required when several clusters are configured',
      ],
      ['clusters: [{ name: a }]', 'clusters[0].baseUrl: required'],
      [
        'clusters: [{ baseUrl: "http://x", connections: { pageSize: -1 } }]',
        /^clusters\[0\]\.connections\.pageSize: must be a whole number/,
      ],
      ['retry: { maxAttempts: 0 }', /^retry\.maxAttempts: must be a whole number from 1/],
      [
        'clusters: [{ baseUrl: "http://x", auth: { kind: bearer, username: u } }]',
        /^clusters\[0\]\.auth\.kind: bearer authentication takes/,
      ],
      [
        'clusters: [{ baseUrl: "http://x", auth: { username: u, passwordEnv: A, passwordFile: b } }]',
        'clusters[0].auth.passwordFile: give either passwordEnv or passwordFile, not both',
      ],
      ['clusters: {}', 'clusters: must be a list'],
      ['clusters: [ { baseUrl: x\n', /^flightrec\.yaml: line \d+, column \d+: /],
    ];
    for (const [text, expected] of cases) {
      const err = errorOf(() => load({ text, env: { A: 'x' } }));
      if (typeof expected === 'string') expect(err.message, text).toBe(expected);
      else expect(err.message, text).toMatch(expected);
    }
  });

  it('names the flag or environment variable of an invalid override', () => {
    expect(errorOf(() => load({ flags: { baseUrl: 'nope' } })).message).toBe(
      '--base-url: must be an http:// or https:// URL',
    );
    expect(errorOf(() => load({ env: { FLIGHTREC_BASE_URL: 'http://x', FLIGHTREC_TIMEOUT: 'soon' } })).key).toBe(
      'FLIGHTREC_TIMEOUT',
    );
    expect(errorOf(() => load({ flags: { baseUrl: 'http://x', schedule: ['connections'] } })).key).toBe('--schedule');
    expect(errorOf(() => load({ flags: { baseUrl: 'http://x', passwordEnv: '1BAD' } })).key).toBe('--password-env');
  });

  it('accepts --schedule OP=CRON and switches a schedule off', () => {
    const cfg = load({
      flags: { baseUrl: 'http://x', schedule: ['connections=*/5 * * * * *', 'GetIcebergStatus=off'] },
    });
    expect(cfg.clusters[0]!.schedules.ListKafkaConnections).toBe('*/5 * * * * *');
    expect(cfg.clusters[0]!.schedules.GetIcebergStatus).toBeNull();
  });

  it('says what to do when there is no cluster at all', () => {
    expect(errorOf(() => load({})).message).toMatch(/no cluster to record: give --base-url/);
  });

  it('uses only the globals of the file when told to ignore its clusters', () => {
    const cfg = load({
      text: FULL,
      ignoreFileClusters: true,
      flags: { baseUrl: 'http://127.0.0.1:5', cluster: 'sim' },
    });
    expect(cfg.clusters.map((c) => c.name)).toEqual(['sim']);
    expect(cfg.jitterMs).toBe(1000);
  });

  it('accepts retention, listen and logFormat from the file, the environment and the flags', () => {
    const base = 'clusters: [{ baseUrl: "http://x:1" }]\n';
    const none = load({ text: base });
    expect(none.retention).toEqual({ rawMs: null, rollupsMs: null, maxSizeBytes: null });
    expect(none.listen).toBeNull();
    expect(none.logFormat).toBe('text');
    const text = `${base}retention: { raw: 14d, rollups: 400d, maxSize: 20GiB }\nlisten: "127.0.0.1:9464"\nlogFormat: json\n`;
    const file = load({ text });
    expect(file.retention).toEqual({
      rawMs: 14 * 86_400_000,
      rollupsMs: 400 * 86_400_000,
      maxSizeBytes: 20 * 1024 ** 3,
    });
    expect(file.listen).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(file.logFormat).toBe('json');
    const env = {
      FLIGHTREC_RETENTION_RAW: '7d',
      FLIGHTREC_RETENTION_MAX_SIZE: '1GiB',
      FLIGHTREC_LISTEN: '9100',
      FLIGHTREC_LOG_FORMAT: 'text',
    };
    const fromEnv = load({ text, env });
    expect(fromEnv.retention).toEqual({ rawMs: 7 * 86_400_000, rollupsMs: 400 * 86_400_000, maxSizeBytes: 1024 ** 3 });
    expect(fromEnv.listen).toEqual({ host: '127.0.0.1', port: 9100 });
    expect(fromEnv.logFormat).toBe('text');
    const flags = {
      retentionRaw: '1d',
      retentionRollups: '30d',
      retentionMaxSize: '500MB',
      listen: '[::1]:9200',
      logFormat: 'json',
    };
    const fromFlags = load({ text, env, flags });
    expect(fromFlags.retention).toEqual({ rawMs: 86_400_000, rollupsMs: 30 * 86_400_000, maxSizeBytes: 500_000_000 });
    expect(fromFlags.listen).toEqual({ host: '::1', port: 9200 });
    expect(fromFlags.logFormat).toBe('json');
  });

  it('reads a listen address as PORT or HOST:PORT and names what is wrong with it', () => {
    const listen = (v: string) => load({ flags: { baseUrl: 'http://x:1', listen: v } }).listen;
    expect(listen('9464')).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(listen('localhost:1')).toEqual({ host: 'localhost', port: 1 });
    expect(listen('0.0.0.0:65535')).toEqual({ host: '0.0.0.0', port: 65_535 });
    expect(load({ text: 'listen: 9464\nclusters: [{ baseUrl: "http://x:1" }]' }).listen).toEqual({
      host: '127.0.0.1',
      port: 9464,
    });
    const refused: [string, RegExp][] = [
      ['127.0.0.1:65536', /^--listen: port 65536 is not from 0 \(any free port\) to 65535$/],
      [
        'example.com:80',
        /^--listen: host "example.com" is not an IPv4 address, a \[bracketed\] IPv6 address or localhost$/,
      ],
      ['[nope]:80', /^--listen: host "\[nope\]" is not/],
      [
        '::1:80',
        /^--listen: must be PORT or HOST:PORT such as 127\.0\.0\.1:9464, \[::1\]:9464 or localhost:9464, got "::1:80"$/,
      ],
      ['127.0.0.1', /^--listen: must be PORT or HOST:PORT/],
    ];
    for (const [v, message] of refused) expect(errorOf(() => listen(v)).message, v).toMatch(message);
  });

  it('names every new key, flag and variable of an invalid value', () => {
    const base = 'clusters: [{ baseUrl: "http://x:1" }]\n';
    const cases: [Partial<ConfigInput> & { text?: string }, string | RegExp][] = [
      [
        { text: `${base}retention: { raw: 14d, rollups: 7d }` },
        'retention.rollups: 7d is shorter than retention.raw (14d): rollups must be kept at least as long as raw history',
      ],
      [
        { text: `${base}retention: { raw: 14d }`, env: { FLIGHTREC_RETENTION_ROLLUPS: '2d' } },
        'FLIGHTREC_RETENTION_ROLLUPS: 2d is shorter than retention.raw (14d): rollups must be kept at least as long as raw history',
      ],
      [
        { text: `${base}retention: { rollups: 30d }`, flags: { retentionRaw: '31d' } },
        'retention.rollups: 30d is shorter than --retention-raw (31d): rollups must be kept at least as long as raw history',
      ],
      [
        { text: `${base}retention: { keep: 1d }` },
        'retention.keep: unknown key (expected one of: raw, rollups, maxSize)',
      ],
      [
        { text: `${base}retention: { raw: soon }` },
        'retention.raw: invalid duration "soon": use a number with a unit (ns, us, ms, s, m, h, d, w), e.g. 30s, 10m, 1h30m, 7d',
      ],
      [
        { text: `${base}retention: { maxSize: lots }` },
        'retention.maxSize: must be a size such as 128MiB, 1GiB or 500MB (units B, KB, MB, GB, KiB, MiB, GiB)',
      ],
      [{ text: `${base}logFormat: xml` }, 'logFormat: must be text or json, got "xml"'],
      [{ text: base, env: { FLIGHTREC_LOG_FORMAT: 'XML' } }, 'FLIGHTREC_LOG_FORMAT: must be text or json, got "XML"'],
      [{ text: base, flags: { logFormat: 'yaml' } }, '--log-format: must be text or json, got "yaml"'],
      [
        { text: base, flags: { retentionMaxSize: '0' } },
        `--retention-max-size: must be a size of at least 1 bytes, at most ${Number.MAX_SAFE_INTEGER}`,
      ],
      [
        { text: base, env: { FLIGHTREC_LISTEN: 'x' } },
        'FLIGHTREC_LISTEN: must be PORT or HOST:PORT such as 127.0.0.1:9464, [::1]:9464 or localhost:9464, got "x"',
      ],
      [
        { text: 'clusters: [{ baseUrl: "http://x", listen: 9464 }]' },
        /^clusters\[0\]\.listen: unknown key \(expected one of: name, baseUrl/,
      ],
      [
        { text: 'clusters: [{ baseUrl: "http://x", shadowLinks: ["a/b"] }]' },
        'clusters[0].shadowLinks[0]: "a/b" cannot be a shadow link name (no "/", no control character, not "." or "..")',
      ],
      [
        { text: 'clusters: [{ baseUrl: "http://x", shadowLinks: [{ name: a, topics: [x], colour: red }] }]' },
        /^clusters\[0\]\.shadowLinks\[0\]\.colour: unknown key \(expected one of: name, topics\)$/,
      ],
      [
        { text: 'clusters: [{ baseUrl: "http://x", schedules: { GetShadowLinks: off } }]' },
        /^clusters\[0\]\.schedules\.GetShadowLinks: unknown key \(expected one of: connections, shadow/,
      ],
      [
        { text: base, flags: { schedule: ['connections=* * *'] } },
        '--schedule: connections: must have six fields (second minute hour day month weekday) or five (minute hour day month weekday), got 3',
      ],
    ];
    for (const [input, expected] of cases) {
      const err = errorOf(() => load(input));
      if (typeof expected === 'string') expect(err.message, JSON.stringify(input)).toBe(expected);
      else expect(err.message, JSON.stringify(input)).toMatch(expected);
    }
  });

  it('accepts the file docs/operations.md documents key by key', () => {
    const doc = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
    const start = doc.indexOf('```yaml', doc.indexOf('## `flightrec.yaml`, every key')) + '```yaml'.length;
    const file = parseConfigFile(doc.slice(start, doc.indexOf('```', start)), 'operations.md');
    expect(file.global.retention).toEqual({ raw: 14 * 86_400_000, rollups: 400 * 86_400_000, maxSize: 20 * 1024 ** 3 });
    expect(file.global.listen).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(file.global.logFormat).toBe('text');
    expect(file.clusters.length).toBeGreaterThan(0);
  });
});
