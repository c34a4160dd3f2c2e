import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAnswer } from '../../src/api/wire/answers.ts';
import { loadScenario, startSimServer, type SimServer } from '../../src/sim/index.ts';
import { call } from './helpers.ts';

describe('API faults of the api-faults scenario, each at its scheduled time', () => {
  let sim: SimServer;
  const goTo = (seconds: number): void => {
    sim.advanceTo(sim.world.config.start + BigInt(seconds) * 1_000_000_000n);
  };
  beforeAll(async () => {
    sim = await startSimServer({ seed: 6, connections: 60, clock: 'manual', scenario: 'api-faults' });
  });
  afterAll(() => sim.close());

  it('lists the faults with their windows', () => {
    const s = loadScenario('api-faults');
    expect(
      s.events.map((e) => [e.fault, Number(e.at / 1_000_000_000n), Number((e.until ?? 0n) / 1_000_000_000n)]),
    ).toEqual([
      ['unavailable', 60, 90],
      ['slow', 120, 150],
      ['malformed', 180, 200],
      ['truncated', 210, 230],
      ['html', 240, 260],
      ['empty', 270, 290],
      ['oversize', 300, 320],
      ['too_many_requests', 330, 350],
      ['duplicate_uids', 360, 380],
      ['wrong_type', 390, 410],
      ['licence_missing', 420, 480],
    ]);
  });

  it('serves normally outside the windows', async () => {
    goTo(30);
    expect((await call(sim, 'GetUpgradeStatus')).status).toBe(200);
  });

  it('unavailable: 503 with a Connect error', async () => {
    goTo(61);
    const r = await call(sim, 'GetIcebergStatus');
    expect({ status: r.status, code: r.json?.code }).toEqual({ status: 503, code: 'unavailable' });
    goTo(91);
    expect((await call(sim, 'GetIcebergStatus')).status).toBe(200);
  });

  it('slow: answers later than the client timeout (deadline_exceeded when the client says so)', async () => {
    goTo(121);
    const r = await call(sim, 'GetUpgradeStatus', {}, { headers: { 'connect-timeout-ms': '100' } });
    expect({ status: r.status, code: r.json?.code }).toEqual({ status: 504, code: 'deadline_exceeded' });
  });

  it('malformed and truncated bodies with HTTP 200', async () => {
    goTo(181);
    const bad = await call(sim, 'GetUpgradeStatus');
    expect(bad.status).toBe(200);
    expect(bad.json).toBeUndefined();
    expect(() => parseAnswer('GetUpgradeStatus', bad.text)).toThrow();
    goTo(211);
    const cut = await call(sim, 'GetUpgradeStatus');
    expect(cut.status).toBe(200);
    expect(cut.json).toBeUndefined();
    expect(cut.text.startsWith('{"activeVersion":')).toBe(true);
  });

  it('an HTML 502 page and an empty body', async () => {
    goTo(241);
    const html = await call(sim, 'GetUpgradeStatus');
    expect(html.status).toBe(502);
    expect(html.contentType).toBe('text/html');
    expect(html.text).toMatch(/<title>502 Bad Gateway<\/title>/);
    goTo(271);
    const empty = await call(sim, 'GetUpgradeStatus');
    expect({ status: empty.status, text: empty.text }).toEqual({ status: 200, text: '' });
  });

  it('an oversize answer for the listed operation only', async () => {
    goTo(301);
    const big = await call(sim, 'ListShadowTopics', { shadowLinkName: 'dr-primary' });
    expect(big.text.length).toBeGreaterThanOrEqual(8 * 1024 * 1024);
    expect(big.json?.shadowTopics?.length).toBeGreaterThan(0);
    expect((await call(sim, 'GetUpgradeStatus')).text.length).toBeLessThan(10_000);
  });

  it('a 429 storm', async () => {
    goTo(331);
    const r = await call(sim, 'GetShadowLink', { name: 'dr-primary' });
    expect({ status: r.status, code: r.json?.code }).toEqual({ status: 429, code: 'resource_exhausted' });
  });

  it('duplicate uids in ListKafkaConnections', async () => {
    goTo(361);
    const r = await call(sim, 'ListKafkaConnections', {});
    const uids = (r.json?.connections as { uid: string }[]).map((c) => c.uid);
    expect(new Set(uids).size).toBeLessThan(uids.length);
  });

  it('a wrong-typed field', async () => {
    goTo(391);
    const r = await call(sim, 'GetUpgradeStatus');
    expect(r.json?.activeVersion).toBe(true);
    expect(() => parseAnswer('GetUpgradeStatus', r.text)).toThrow(/activeVersion/);
  });

  it('licence missing for ListKafkaConnections', async () => {
    goTo(421);
    const r = await call(sim, 'ListKafkaConnections', {});
    expect({ status: r.status, code: r.json?.code }).toEqual({ status: 400, code: 'failed_precondition' });
    expect((await call(sim, 'GetUpgradeStatus')).status).toBe(200);
  });
});
