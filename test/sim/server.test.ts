import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS, operationPath } from '../../src/api/schema/operations.ts';
import { parseAnswer } from '../../src/api/wire/answers.ts';
import { parseScenario, startSimServer, type SimServer } from '../../src/sim/index.ts';
import { call, checkWire } from './helpers.ts';

describe('the simulated server speaks Connect like a real one', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSimServer({ seed: 4, connections: 80, clock: 'manual', servicePrefix: 'acme.core.admin.v2' });
  });
  afterAll(() => sim.close());

  it('listens on loopback and serves all six operations under the service prefix', async () => {
    expect(sim.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const { links, topics } = sim.describe();
    const bodies = {
      ListKafkaConnections: {},
      GetShadowLink: { name: links[0] },
      ListShadowTopics: { shadowLinkName: links[0] },
      GetShadowTopic: { name: topics[0]?.topic, shadowLinkName: topics[0]?.link },
      GetUpgradeStatus: {},
      GetIcebergStatus: { topicsFilter: ['orders'] },
    } as const;
    for (const [op, body] of Object.entries(bodies) as [keyof typeof bodies, unknown][]) {
      const r = await call(sim, op, body);
      expect(r.status, `${op}: ${r.text.slice(0, 200)}`).toBe(200);
      expect(r.contentType).toBe('application/json');
      checkWire(OPERATIONS[op].response, r.json, op);
      expect(() => parseAnswer(op, r.text)).not.toThrow();
      expect(sim.lastAnswers.at(-1)?.body.toString()).toBe(r.text);
    }
    expect(sim.served()).toBeGreaterThanOrEqual(6);
  });

  it('rejects what a Connect server rejects, with the proper code and status', async () => {
    const cases: [Parameters<typeof call>[3] & { body?: unknown }, number, string, RegExp][] = [
      [{ method: 'GET' }, 405, 'unimplemented', /POST/],
      [{ headers: { 'connect-protocol-version': '' } }, 400, 'invalid_argument', /Connect-Protocol-Version/],
      [{ headers: { 'connect-protocol-version': '2' } }, 400, 'invalid_argument', /must be "1"/],
      [{ headers: { 'content-type': 'text/plain' } }, 415, 'unimplemented', /content-type/],
      [{ headers: { 'content-type': 'application/proto' } }, 415, 'unimplemented', /content-type/],
      [{ raw: '{"pageSize": 5,' }, 400, 'invalid_argument', /unmarshal/],
      [{ raw: '' }, 400, 'invalid_argument', /zero-length/],
      [{ raw: '[]' }, 400, 'invalid_argument', /object/],
      [{ raw: '{"pageSize":"many"}' }, 400, 'invalid_argument', /pageSize/],
      [{ raw: '{"colour":"red"}' }, 400, 'invalid_argument', /unknown field "colour"/],
      [{ headers: { 'connect-timeout-ms': 'soon' } }, 400, 'invalid_argument', /Connect-Timeout-Ms/],
    ];
    for (const [init, status, code, message] of cases) {
      const r = await call(sim, 'ListKafkaConnections', {}, init);
      expect({ status: r.status, code: r.json?.code }, JSON.stringify(init)).toEqual({ status, code });
      expect(r.json?.message).toMatch(message);
    }
    const missing = await fetch(`${sim.baseUrl}/acme.core.admin.v2.ClusterService/ListTopics`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'connect-protocol-version': '1' },
      body: '{}',
    });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: 'unimplemented' });
    const wrongPrefix = await fetch(sim.baseUrl + operationPath('GetUpgradeStatus'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'connect-protocol-version': '1' },
      body: '{}',
    });
    expect(wrongPrefix.status).toBe(404);
  });

  it('answers not_found and invalid_argument per operation', async () => {
    const cases: [keyof typeof OPERATIONS, unknown, number, string][] = [
      ['GetShadowLink', { name: 'nope' }, 404, 'not_found'],
      ['GetShadowLink', {}, 400, 'invalid_argument'],
      ['ListShadowTopics', { shadowLinkName: 'nope' }, 404, 'not_found'],
      ['ListShadowTopics', {}, 400, 'invalid_argument'],
      ['GetShadowTopic', { name: 'orders', shadowLinkName: 'nope' }, 404, 'not_found'],
      ['GetShadowTopic', { name: 'nope', shadowLinkName: 'dr-primary' }, 404, 'not_found'],
      ['GetShadowTopic', { shadowLinkName: 'dr-primary' }, 400, 'invalid_argument'],
      ['GetShadowTopic', { name: 'orders' }, 400, 'invalid_argument'],
      ['GetUpgradeStatus', { extra: 1 }, 400, 'invalid_argument'],
    ];
    for (const [op, body, status, code] of cases) {
      const r = await call(sim, op, body);
      expect({ status: r.status, code: r.json?.code }, `${op} ${JSON.stringify(body)}`).toEqual({ status, code });
    }
  });

  it('records every answer for byte-for-byte comparison', async () => {
    const seen: [string | undefined, number, string][] = [];
    const off = sim.onAnswer((op, _req, status, body) => seen.push([op, status, body.toString()]));
    const r = await call(sim, 'GetUpgradeStatus');
    off();
    await call(sim, 'GetUpgradeStatus');
    expect(seen).toEqual([['GetUpgradeStatus', 200, r.text]]);
  });
});

describe('authentication, timeouts and a down broker', () => {
  it('basic and bearer: unauthenticated when missing or wrong, permission_denied without superuser', async () => {
    const basic = await startSimServer({
      seed: 1,
      connections: 5,
      clock: 'manual',
      auth: { kind: 'basic', username: 'admin', password: 's3cret' },
    });
    const bearer = await startSimServer({
      seed: 1,
      connections: 5,
      clock: 'manual',
      auth: { kind: 'bearer', token: 'tok', superuser: false },
    });
    try {
      const b64 = (s: string) => Buffer.from(s).toString('base64');
      expect((await call(basic, 'GetUpgradeStatus')).json?.code).toBe('unauthenticated');
      expect(
        (await call(basic, 'GetUpgradeStatus', {}, { headers: { authorization: `Basic ${b64('admin:nope')}` } }))
          .status,
      ).toBe(401);
      expect((await call(basic, 'GetUpgradeStatus', {}, { headers: { authorization: 'Bearer s3cret' } })).status).toBe(
        401,
      );
      expect(
        (await call(basic, 'GetUpgradeStatus', {}, { headers: { authorization: `Basic ${b64('admin:s3cret')}` } }))
          .status,
      ).toBe(200);
      expect(
        (await call(bearer, 'GetUpgradeStatus', {}, { headers: { authorization: 'Bearer wrong' } })).json?.code,
      ).toBe('unauthenticated');
      const denied = await call(bearer, 'GetUpgradeStatus', {}, { headers: { authorization: 'Bearer tok' } });
      expect({ status: denied.status, code: denied.json?.code }).toEqual({ status: 403, code: 'permission_denied' });
    } finally {
      await basic.close();
      await bearer.close();
    }
  });

  it('honours Connect-Timeout-Ms with deadline_exceeded', async () => {
    const scenario = parseScenario(
      'name: slow\nevents:\n  - { at: 0s, kind: api_fault, fault: slow, delay: 2s, operations: [GetUpgradeStatus] }\n',
      'slow',
    );
    const sim = await startSimServer({ seed: 1, connections: 5, clock: 'manual', scenario });
    try {
      const r = await call(sim, 'GetUpgradeStatus', {}, { headers: { 'connect-timeout-ms': '50' } });
      expect({ status: r.status, code: r.json?.code }).toEqual({ status: 504, code: 'deadline_exceeded' });
      expect((await call(sim, 'GetIcebergStatus', {}, { headers: { 'connect-timeout-ms': '5000' } })).status).toBe(200);
    } finally {
      await sim.close();
    }
  });

  it('stops answering while the broker being asked is down', async () => {
    const scenario = parseScenario(
      'name: down\nevents:\n  - { at: 60s, kind: broker_down, broker: 0, duration: 60s }\n',
      'down',
    );
    const sim = await startSimServer({ seed: 1, connections: 5, clock: 'manual', scenario });
    try {
      expect((await call(sim, 'GetUpgradeStatus')).status).toBe(200);
      sim.advance(61);
      await expect(call(sim, 'GetUpgradeStatus')).rejects.toThrow();
      sim.advance(60);
      expect((await call(sim, 'GetUpgradeStatus')).status).toBe(200);
    } finally {
      await sim.close();
    }
  });
});
