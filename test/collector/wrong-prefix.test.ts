/**
 * A wrong service prefix is the first thing a user with a real cluster meets: when every call of
 * a round answers 404 or unimplemented, the collector says once, per cluster, that the server
 * does not serve that prefix and how to set it (issue 13).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { wrongPrefixNotice, type RoundResult } from '../../src/collector/index.ts';
import { launcherFor } from '../../src/cli/launcher.ts';
import { main } from '../../src/cli/main.ts';
import { startSimServer } from '../../src/sim/index.ts';
import { answer, startLoopbackServer } from '../helpers/loopback-server.ts';
import { memoryIo } from '../helpers/memory-io.ts';

const dir = mkdtempSync(join(tmpdir(), 'flightrec-prefix-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

async function collectOnce(baseUrl: string, ...extra: string[]): Promise<{ code: number; err: string }> {
  const io = memoryIo({ cwd: dir });
  const code = await main(['--db', join(dir, `h${++n}.db`), 'collect', '--base-url', baseUrl, '--once', ...extra], io);
  return { code, err: io.err() };
}

const notices = (err: string): string[] => err.split('\n').filter((l) => l.includes('does not serve'));

describe('the collector names a wrong service prefix', () => {
  it('says so once when the cluster serves another prefix (Connect unimplemented, 404)', async () => {
    const sim = await startSimServer({ seed: 1, clock: 'manual', connections: 5, servicePrefix: 'acme.core.admin.v2' });
    try {
      const r = await collectOnce(sim.baseUrl, '--link', 'dr-primary:orders');
      expect(r.code).toBe(3);
      const lines = notices(r.err);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain('under the service prefix platform.core.admin.v2');
      expect(lines[0]).toContain('servicePrefix');
      expect(lines[0]).toContain('--service-prefix');
      // the suggested command starts as this flightrec was started (here: outside a checkout, by its path)
      const launcher = launcherFor({ cwd: dir, env: {} });
      expect(launcher).toMatch(/^node .*bin\/flightrec\.js'?$/);
      expect(lines[0]).toContain(`${launcher} check --base-url URL`);
      // with the right prefix, nothing of the kind
      const ok = await collectOnce(
        sim.baseUrl,
        '--service-prefix',
        'acme.core.admin.v2',
        '--link',
        'dr-primary:orders',
      );
      expect(notices(ok.err)).toEqual([]);
      expect(ok.code).toBe(0);
    } finally {
      await sim.close();
    }
  });

  it('also for a plain 404 page (no Connect body), as a router in front of the cluster answers', async () => {
    const server = await startLoopbackServer((_req, res) =>
      answer(res, 404, '404 page not found', { 'content-type': 'text/plain' }),
    );
    try {
      const r = await collectOnce(server.url);
      expect(r.code).toBe(3);
      expect(notices(r.err)).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it("stays quiet for an operation's own not_found (an unknown shadow link) and for mixed rounds", () => {
    const round = (failures: RoundResult['failures'], calls = failures.length): RoundResult => ({
      cluster: 'prod',
      operation: 'GetShadowLink',
      round: 'r',
      scheduledAt: 0n,
      targets: failures.length,
      calls,
      failedCalls: failures.length,
      failures,
      stopped: false,
      startedAt: 0n,
      endedAt: 0n,
    });
    const notFound = {
      target: 'x',
      code: 'not_found',
      kind: 'connect',
      httpStatus: 404,
      message: 'shadow link x not found',
    };
    const missingPath = { target: 'x', code: 'unimplemented', kind: 'protocol', httpStatus: 404, message: 'HTTP 404' };
    expect(wrongPrefixNotice(round([notFound]), 'p')).toBeUndefined();
    expect(wrongPrefixNotice(round([missingPath]), 'p')).toContain('does not serve GetShadowLink');
    expect(wrongPrefixNotice(round([missingPath, notFound]), 'p')).toBeUndefined();
    expect(wrongPrefixNotice(round([missingPath], 2), 'p')).toBeUndefined(); // one call of two answered
  });
});
