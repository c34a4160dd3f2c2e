import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ClientConfigError,
  ConnectClient,
  defaultMaxParseBytes,
  loadSecret,
  Secret,
  type ConnectClientOptions,
} from '../../src/api/client/index.ts';

const VALUE = 'pw-Sup3r-S3cret-7d1f';
const dir = mkdtempSync(join(tmpdir(), 'flightrec-secret-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs fn, expects it to throw, and checks the message never contains the secret. */
function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(Error);
    const e = err as Error;
    for (const view of [e.message, String(e), inspect(e), JSON.stringify(e)]) expect(view).not.toContain(VALUE);
    return e;
  }
  throw new Error('expected a throw');
}

describe('Secret', () => {
  const s = new Secret(VALUE);

  it('reveals its value only through reveal()', () => {
    expect(s.reveal()).toBe(VALUE);
    expect(String(s)).toBe('[redacted]');
    expect(`${s}`).toBe('[redacted]');
    expect('x' + s).toBe('x[redacted]');
    expect(JSON.stringify({ password: s })).toBe('{"password":"[redacted]"}');
    expect(inspect({ auth: { password: s } }, { depth: 10, showHidden: true })).not.toContain(VALUE);
    expect(Object.keys(s)).toEqual([]);
    expect(s.isEmpty).toBe(false);
  });
});

describe('loadSecret', () => {
  it('reads an environment variable', () => {
    const { secret, warnings } = loadSecret({ env: 'FR_PW' }, { FR_PW: VALUE });
    expect(secret.reveal()).toBe(VALUE);
    expect(warnings).toEqual([]);
  });

  it('names an unset or empty variable, never the value', () => {
    expect(thrown(() => loadSecret({ env: 'FR_PW' }, {})).message).toBe('environment variable FR_PW is not set');
    expect(thrown(() => loadSecret({ env: 'FR_PW' }, { FR_PW: '' })).message).toBe(
      'environment variable FR_PW is empty',
    );
    expect(thrown(() => loadSecret({ env: 'FR_PW' }, { OTHER: VALUE }))).toBeInstanceOf(ClientConfigError);
  });

  it('reads a file, trimming the trailing newline', () => {
    const file = join(dir, 'pw-ok');
    writeFileSync(file, `${VALUE}\r\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
    const { secret, warnings } = loadSecret({ file }, {});
    expect(secret.reveal()).toBe(VALUE);
    expect(warnings).toEqual([]);
  });

  it('keeps inner and leading whitespace', () => {
    const file = join(dir, 'pw-spaces');
    writeFileSync(file, ` a b \n`, { mode: 0o600 });
    expect(loadSecret({ file }, {}).secret.reveal()).toBe(' a b ');
  });

  it.skipIf(process.platform === 'win32')('warns about a file readable by group or others', () => {
    const file = join(dir, 'pw-open');
    writeFileSync(file, VALUE);
    chmodSync(file, 0o644);
    const { secret, warnings } = loadSecret({ file }, {});
    expect(secret.reveal()).toBe(VALUE);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(file);
    expect(warnings[0]).toContain('0644');
    expect(warnings[0]).not.toContain(VALUE);
  });

  it('names a missing, empty or directory file', () => {
    const missing = join(dir, 'nope');
    expect(thrown(() => loadSecret({ file: missing }, {})).message).toBe(
      `cannot read secret file ${missing}: no such file`,
    );
    const empty = join(dir, 'pw-empty');
    writeFileSync(empty, '\n', { mode: 0o600 });
    expect(thrown(() => loadSecret({ file: empty }, {})).message).toBe(`secret file ${empty} is empty`);
    const sub = join(dir, 'sub');
    mkdirSync(sub);
    expect(thrown(() => loadSecret({ file: sub }, {})).message).toContain(sub);
  });

  it('needs exactly one source', () => {
    expect(thrown(() => loadSecret({}, {}))).toBeInstanceOf(ClientConfigError);
    expect(thrown(() => loadSecret({ env: 'A', file: '/x' }, { A: VALUE }))).toBeInstanceOf(ClientConfigError);
  });
});

describe('client options', () => {
  const make = (o: Partial<ConnectClientOptions>) => () => new ConnectClient({ baseUrl: 'http://127.0.0.1:1', ...o });

  it('refuses credentials in the base URL without echoing them', () => {
    const e = thrown(make({ baseUrl: `http://admin:${VALUE}@127.0.0.1:1` }));
    expect(e).toBeInstanceOf(ClientConfigError);
    expect(e.message).toContain('credentials');
  });

  it('refuses other schemes, queries, bad prefixes and tls over http', () => {
    expect(thrown(make({ baseUrl: 'ftp://127.0.0.1' })).message).toContain('http or https');
    expect(thrown(make({ baseUrl: 'not a url' })).message).toContain('baseUrl');
    expect(thrown(make({ baseUrl: 'http://127.0.0.1:1/?a=1' })).message).toContain('query');
    expect(thrown(make({ servicePrefix: 'a/b' })).message).toContain('servicePrefix');
    expect(thrown(make({ tls: { insecureSkipVerify: true } })).message).toContain('not https');
  });

  it('checks limits and timeouts', () => {
    expect(thrown(make({ timeoutMs: 0 }))).toBeInstanceOf(RangeError);
    expect(thrown(make({ timeoutMs: Number.NaN }))).toBeInstanceOf(RangeError);
    expect(thrown(make({ maxAnswerBytes: 1.5 }))).toBeInstanceOf(RangeError);
  });

  it('checks credentials without echoing them', () => {
    expect(thrown(make({ auth: { kind: 'basic', username: 'a:b', password: new Secret(VALUE) } })).message).toContain(
      'username',
    );
    expect(
      thrown(make({ auth: { kind: 'basic', username: 'a', password: new Secret(`${VALUE}\n`) } })).message,
    ).toContain('password');
    expect(thrown(make({ auth: { kind: 'bearer', token: new Secret(`${VALUE} x`) } })).message).toContain('token');
    expect(thrown(make({ auth: { kind: 'bearer', token: VALUE as never } })).message).toContain('Secret');
  });

  it('names an unreadable TLS file', () => {
    const e = thrown(make({ baseUrl: 'https://127.0.0.1:1', tls: { caFile: join(dir, 'no-ca.pem') } }));
    expect(e.message).toContain('tls.caFile');
    expect(e.message).toContain('no-ca.pem');
    expect(thrown(make({ baseUrl: 'https://127.0.0.1:1', tls: { certFile: '/x' } })).message).toContain('together');
  });

  it('shows its settings without secrets', async () => {
    const client = new ConnectClient({
      baseUrl: 'https://127.0.0.1:1/',
      auth: { kind: 'basic', username: 'admin', password: new Secret(VALUE) },
      tls: { insecureSkipVerify: true },
    });
    expect(client.toJSON()).toEqual({
      baseUrl: 'https://127.0.0.1:1',
      servicePrefix: 'platform.core.admin.v2',
      auth: 'basic (user admin)',
      tls: { verify: false },
      timeoutMs: 10000,
      maxAnswerBytes: 134217728,
      maxParseBytes: defaultMaxParseBytes(),
      userAgent: 'flightrec',
      closed: false,
    });
    expect(inspect(client, { showHidden: true, depth: 10 })).not.toContain(VALUE);
    await client.close();
  });
});
