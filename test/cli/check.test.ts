/**
 * `flightrec check`: probes the six operations over loopback HTTP against the simulated cluster
 * and reports what answers, under which prefix, and the authentication and licence state,
 * without recording anything.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { startSimServer, type SimServer, type SimServerOptions } from '../../src/sim/index.ts';
import { closedLoopbackPort } from '../helpers/loopback-server.ts';
import { memoryIo } from '../helpers/memory-io.ts';

const dir = mkdtempSync(join(tmpdir(), 'flightrec-check-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let sim: SimServer | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function simulated(opts: Partial<SimServerOptions> = {}): Promise<SimServer> {
  sim = await startSimServer({ seed: 4, clock: 'manual', connections: 5, ...opts });
  return sim;
}

async function check(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIo({ cwd: dir, env });
  const code = await main(['--db', join(dir, 'never.db'), 'check', ...args], io);
  return { code, out: io.out(), err: io.err() };
}

interface Report {
  clusters: {
    prefix: string;
    authentication: string;
    licence: string;
    ok: boolean;
    probes: { operation: string; status: string; detail: string }[];
  }[];
}

describe('flightrec check', () => {
  it('reports every operation answering under the default prefix, and records nothing', async () => {
    const s = await simulated();
    const [link] = s.describe().links;
    const r = await check(['--base-url', s.baseUrl, '--link', link!]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('service prefix  platform.core.admin.v2: served');
    expect(r.out).toContain('authentication  none configured: accepted');
    expect(r.out).toContain('licence         valid');
    for (const op of [
      'GetUpgradeStatus',
      'ListKafkaConnections',
      'GetIcebergStatus',
      'GetShadowLink',
      'ListShadowTopics',
      'GetShadowTopic',
    ]) {
      expect(r.out).toMatch(new RegExp(`ok +${op}`));
    }
    expect(existsSync(join(dir, 'never.db'))).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
    // read-only: only the six operations were asked, one call each
    expect(s.lastAnswers.map((a) => a.op)).toEqual([
      'GetUpgradeStatus',
      'ListKafkaConnections',
      'GetIcebergStatus',
      'GetShadowLink',
      'ListShadowTopics',
      'GetShadowTopic',
    ]);
  });

  it('without a link, asks GetShadowLink about a name that does not exist and skips the topic calls', async () => {
    const s = await simulated();
    const r = await check(['--base-url', s.baseUrl, '-o', 'json']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out) as Report;
    const probes = doc.clusters[0]!.probes;
    expect(probes.find((p) => p.operation === 'GetShadowLink')).toMatchObject({
      status: 'answers',
      detail: expect.stringContaining('served'),
    });
    expect(probes.filter((p) => p.status === 'skipped').map((p) => p.operation)).toEqual([
      'ListShadowTopics',
      'GetShadowTopic',
    ]);
  });

  it('says what 404s mean when the cluster serves another prefix, and that the right one works', async () => {
    const s = await simulated({ servicePrefix: 'acme.core.admin.v2' });
    const wrong = await check(['--base-url', s.baseUrl]);
    expect(wrong.code).toBe(1);
    expect(wrong.out).toContain('NOT SERVED');
    expect(wrong.out).toContain('does not serve platform.core.admin.v2');
    expect(wrong.out).toContain('--service-prefix');
    expect(wrong.out).toMatch(
      /404 +GetUpgradeStatus +the server does not serve \/platform\.core\.admin\.v2\.FeaturesService\/GetUpgradeStatus/,
    );
    const right = await check(['--base-url', s.baseUrl, '--service-prefix', 'acme.core.admin.v2']);
    expect(right.code).toBe(0);
    expect(right.out).toContain('acme.core.admin.v2: served');
  });

  it('reports refused authentication, missing rights and a missing licence; never prints a secret', async () => {
    const s = await simulated({
      auth: { kind: 'basic', username: 'ops', password: 'pw-Very-S3cret', superuser: false },
      licence: false,
    });
    const none = await check(['--base-url', s.baseUrl]);
    expect(none.code).toBe(1);
    expect(none.out).toContain('none configured: REFUSED (401 unauthenticated)');
    const user = await check(['--base-url', s.baseUrl, '--username', 'ops'], { FLIGHTREC_PASSWORD: 'pw-Very-S3cret' });
    expect(user.out).toContain('basic as ops: accepted, but NOT ALLOWED (403)');
    expect(`${none.out}${user.out}${user.err}`).not.toContain('pw-Very-S3cret');
    await sim!.close();
    const s2 = await simulated({ licence: false });
    const unlicensed = await check(['--base-url', s2.baseUrl]);
    expect(unlicensed.code).toBe(1);
    expect(unlicensed.out).toContain('licence         MISSING');
    expect(unlicensed.out).toMatch(/REFUSED +ListKafkaConnections/);
  });

  it('says when the server cannot be reached; a bad option exits 2', async () => {
    const port = await closedLoopbackPort();
    const r = await check(['--base-url', `http://127.0.0.1:${port}`, '--timeout', '2s']);
    expect(r.code).toBe(1);
    expect(r.out).toContain('unknown: the server was not reached');
    expect(r.out).toMatch(/DOWN +GetUpgradeStatus/);
    const bad = await check(['--base-url', 'ftp://127.0.0.1']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('flightrec:');
  });
});
