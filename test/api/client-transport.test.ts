import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CallError,
  ConnectClient,
  Secret,
  type CallResult,
  type ConnectClientOptions,
} from '../../src/api/client/index.ts';
import {
  answer,
  closedLoopbackPort,
  startLoopbackServer,
  type LoopbackHandler,
  type LoopbackServer,
} from '../helpers/loopback-server.ts';

const USER = 'admin';
const PASSWORD = 'pw-Sup3r-S3cret-7d1f';
const TOKEN = 'tok-Very-Secret-Bearer-19a2';
const BASIC = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
const SECRETS = [PASSWORD, TOKEN, BASIC];

/** Every CallError any test produced; the last test greps them all for the secrets. */
const produced: CallError[] = [];
let handler: LoopbackHandler = (_req, res) => answer(res, 200, '{}');
let server: LoopbackServer;

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => handler(req, res));
});
afterAll(async () => {
  await server.close();
});

async function failedCall(
  h: LoopbackHandler | undefined,
  options: Partial<ConnectClientOptions> = {},
  call: (c: ConnectClient) => Promise<CallResult<unknown>> = (c) =>
    c.call('ListKafkaConnections', { filter: '', orderBy: '', pageSize: 0 }),
): Promise<CallError> {
  if (h) handler = h;
  const bearer = options.auth?.kind === 'bearer';
  const client = new ConnectClient({
    baseUrl: server.url,
    auth: { kind: 'basic', username: USER, password: new Secret(PASSWORD) },
    ...options,
    ...(bearer ? { auth: { kind: 'bearer', token: new Secret(TOKEN) } } : {}),
  });
  try {
    const result = await call(client);
    if (result.ok) throw new Error('expected the call to fail');
    expect(result.error).toBeInstanceOf(CallError);
    produced.push(result.error);
    return result.error;
  } finally {
    await client.close();
  }
}

describe('size limit', () => {
  const big = JSON.stringify({ connections: [], totalSize: '0', padding: 'y'.repeat(5000) });

  it('an answer above maxAnswerBytes (declared length) fails', async () => {
    const err = await failedCall((_r, res) => answer(res, 200, big), { maxAnswerBytes: 1024 });
    expect(err).toMatchObject({ kind: 'protocol', code: 'resource_exhausted', httpStatus: 200 });
    expect(err.message).toContain('1024 bytes');
  });

  it('an answer above maxAnswerBytes (chunked, no length) stops reading', async () => {
    const err = await failedCall(
      (_r, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        for (let i = 0; i < 10; i++) res.write('y'.repeat(1000));
        res.end();
      },
      { maxAnswerBytes: 4096 },
    );
    expect(err).toMatchObject({ kind: 'protocol', code: 'resource_exhausted' });
    expect(err.bodyPrefix).toBe('y'.repeat(512));
  });

  it('an answer of exactly maxAnswerBytes passes', async () => {
    handler = (_r, res) => answer(res, 200, '{"totalSize":"7"}');
    const client = new ConnectClient({ baseUrl: server.url, maxAnswerBytes: 17 });
    const result = await client.call('ListKafkaConnections', { filter: '', orderBy: '', pageSize: 0 });
    expect(result.ok && result.value.totalSize).toBe(7n);
    await client.close();
  });
});

describe('transport failures', () => {
  it('a refused connection is unavailable', async () => {
    const port = await closedLoopbackPort();
    const err = await failedCall(undefined, { baseUrl: `http://127.0.0.1:${port}` });
    expect(err).toMatchObject({ kind: 'transport', code: 'unavailable', transportCode: 'ECONNREFUSED' });
    expect(err.httpStatus).toBeUndefined();
    expect(err.message).toContain(`127.0.0.1:${port}`);
    expect(err.retryable).toBe(true);
  });

  it('a server that never answers hits the deadline', async () => {
    const err = await failedCall(() => undefined, {
      timeoutMs: 150,
      auth: { kind: 'bearer', token: new Secret(TOKEN) },
    });
    expect(err).toMatchObject({ kind: 'transport', code: 'deadline_exceeded' });
    expect(err.message).toContain('150 ms');
    expect(err.elapsedMs).toBeGreaterThanOrEqual(140);
    expect(err.elapsedMs).toBeLessThan(5000);
    expect(server.requests.at(-1)?.headers['connect-timeout-ms']).toBe('150');
  });

  it('a body that stalls half-way hits the deadline, keeping the status', async () => {
    const err = await failedCall(
      (_r, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
        res.write('{"connections":[');
      },
      {},
      (c) => c.call('ListKafkaConnections', { filter: '', orderBy: '', pageSize: 0 }, { timeoutMs: 150 }),
    );
    expect(err).toMatchObject({ kind: 'transport', code: 'deadline_exceeded', httpStatus: 200 });
  });

  it("the caller's signal cancels the call", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const err = await failedCall(
      () => undefined,
      {},
      (c) => c.call('GetUpgradeStatus', {}, { signal: controller.signal }),
    );
    expect(err).toMatchObject({ kind: 'transport', code: 'canceled', operation: 'GetUpgradeStatus' });
    expect(err.retryable).toBe(false);
  });

  it('an already aborted signal cancels without sending', async () => {
    const before = server.requests.length;
    const err = await failedCall(undefined, {}, (c) => c.call('GetUpgradeStatus', {}, { signal: AbortSignal.abort() }));
    expect(err.code).toBe('canceled');
    expect(server.requests.length).toBe(before);
  });

  it('a connection reset mid-answer is unavailable', async () => {
    const err = await failedCall((_r, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('{"conn');
      setTimeout(() => res.socket?.destroy(), 10);
    });
    expect(err).toMatchObject({ kind: 'transport', code: 'unavailable', httpStatus: 200 });
  });
});

describe('misuse throws', () => {
  it('unknown operation, bad timeout, call after close', async () => {
    const client = new ConnectClient({ baseUrl: server.url });
    const call = client.call.bind(client) as unknown as (op: string, r: unknown, o?: unknown) => Promise<unknown>;
    await expect(call('DeleteEverything', {})).rejects.toThrow(TypeError);
    await expect(call('GetUpgradeStatus', {}, { timeoutMs: -1 })).rejects.toThrow(RangeError);
    await client.close();
    await expect(call('GetUpgradeStatus', {})).rejects.toThrow(/close/);
  });
});

describe('secrets', () => {
  it('no secret appears in any error any test produced', () => {
    expect(produced.length).toBeGreaterThanOrEqual(8);
    for (const err of produced) {
      const views = [
        err.message,
        err.stack ?? '',
        String(err),
        JSON.stringify(err),
        inspect(err, { depth: 20, showHidden: true }),
        err.bodyPrefix ?? '',
        err.body?.toString('utf8') ?? '',
      ];
      for (const view of views) for (const secret of SECRETS) expect(view).not.toContain(secret);
    }
  });
});
