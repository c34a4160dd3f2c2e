/**
 * sslmode against a real TLS handshake on loopback: a server whose certificate (signed by a test
 * CA) names another host. verify-ca accepts it, verify-full refuses it, require accepts any. The
 * options go the way the bridge worker gets them: plain data, cloned, revived.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, connect, type ConnectionOptions, type Server } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDbTarget, pgPoolConfigData, revivePoolConfig } from '../../src/db/engines/pg/target.ts';

const hasOpenssl = spawnSync('openssl', ['version']).status === 0;
const dir = mkdtempSync(join(tmpdir(), 'flightrec-pgtls-'));
let server: Server | undefined;
let port = 0;

function openssl(...args: string[]): void {
  const r = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl ${args.join(' ')}: ${r.stderr}`);
}

beforeAll(async () => {
  if (!hasOpenssl) return;
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=flightrec test CA',
  );
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'srv.key', '-out', 'srv.csr', '-subj', '/CN=db.internal');
  openssl('x509', '-req', '-in', 'srv.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'srv.pem');
  const s = createServer({ key: readFileSync(join(dir, 'srv.key')), cert: readFileSync(join(dir, 'srv.pem')) }, (c) =>
    c.end(),
  );
  server = s;
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  port = (s.address() as AddressInfo).port;
}, 60_000);

afterAll(async () => {
  await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
  rmSync(dir, { recursive: true, force: true });
});

/** Whether a TLS handshake with the options of `query` succeeds: 'ok' or the error code. */
function handshake(query: string): Promise<string> {
  const target = parseDbTarget(`postgres://u@127.0.0.1:${port}/d?${query}`, { env: {} });
  if (target.kind !== 'postgres') throw new Error('not a postgres target');
  // as the bridge worker gets it: plain data through a structured clone, revived in the thread
  const ssl = revivePoolConfig(structuredClone(pgPoolConfigData(target))).ssl;
  if (typeof ssl !== 'object') return Promise.resolve('no TLS');
  const opts: ConnectionOptions = { ...ssl, host: '127.0.0.1', port };
  return new Promise((resolve) => {
    const socket = connect(opts, () => {
      socket.destroy();
      resolve('ok');
    });
    socket.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

describe.skipIf(!hasOpenssl)('sslmode on a real TLS handshake (openssl makes the certificates)', () => {
  it('verify-ca accepts a certificate of the CA naming another host', async () => {
    expect(await handshake(`sslmode=verify-ca&sslrootcert=${join(dir, 'ca.pem')}`)).toBe('ok');
  });

  it('verify-full refuses it for the host name', async () => {
    expect(await handshake(`sslmode=verify-full&sslrootcert=${join(dir, 'ca.pem')}`)).toBe(
      'ERR_TLS_CERT_ALTNAME_INVALID',
    );
  });

  it('verify-full and verify-ca without the CA file refuse an unknown CA', async () => {
    expect(await handshake('sslmode=verify-ca')).toMatch(/CERT|SIGNATURE|ISSUER/);
    expect(await handshake('sslmode=verify-full')).toMatch(/CERT|SIGNATURE|ISSUER/);
  });

  it('require encrypts without checking', async () => {
    expect(await handshake('sslmode=require')).toBe('ok');
  });
});
