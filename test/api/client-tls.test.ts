import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectClient, Secret, type ConnectClientOptions } from '../../src/api/client/index.ts';
import { answer, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.ts';

const TOKEN = 'tok-Very-Secret-Bearer-19a2';

function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(!hasOpenssl())('ConnectClient over TLS (self-signed certificate for 127.0.0.1)', () => {
  let dir: string;
  let server: LoopbackServer;
  let caFile: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'flightrec-tls-'));
    caFile = join(dir, 'cert.pem');
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
    server = await startLoopbackServer((_r, res) => answer(res, 200, '{"activeVersion":"5"}'), {
      tls: { key: readFileSync(keyFile), cert: readFileSync(caFile) },
    });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async (tls: ConnectClientOptions['tls']) => {
    const client = new ConnectClient({ baseUrl: server.url, tls, auth: { kind: 'bearer', token: new Secret(TOKEN) } });
    try {
      return await client.call('GetUpgradeStatus', {});
    } finally {
      await client.close();
    }
  };

  it('verifies the server certificate by default', async () => {
    const result = await call(undefined);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toMatchObject({ kind: 'transport', code: 'unavailable' });
    expect(result.error.message).toMatch(/^TLS with 127\.0\.0\.1:\d+ failed/);
    expect(result.error.transportCode).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
    expect(JSON.stringify(result.error)).not.toContain(TOKEN);
  });

  it('trusts a CA file', async () => {
    const result = await call({ caFile });
    expect(result.ok && result.value.activeVersion).toBe(5n);
    expect(server.requests.at(-1)?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('skips verification only when asked', async () => {
    const result = await call({ insecureSkipVerify: true });
    expect(result.ok && result.value.activeVersion).toBe(5n);
  });
});
