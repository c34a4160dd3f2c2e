import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CallError,
  CONNECT_CODES,
  ConnectClient,
  httpStatusForCode,
  Secret,
  type CallResult,
  type ConnectClientOptions,
} from '../../src/api/client/index.ts';
import { KafkaConnection } from '../../src/api/schema/connection.ts';
import { defaultMessage } from '../../src/api/wire/defaults.ts';
import { encodeMessage } from '../../src/api/wire/encode.ts';
import { answer, startLoopbackServer, type LoopbackHandler, type LoopbackServer } from '../helpers/loopback-server.ts';

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

const connectError = (code: string, message: string, details: unknown[] = []) =>
  JSON.stringify({ code, message, details });

describe('Connect error bodies', () => {
  it.each(CONNECT_CODES.map((c) => [c, httpStatusForCode(c)] as const))('%s with HTTP %i', async (code, status) => {
    const err = await failedCall((_r, res) => answer(res, status, connectError(code, `it is ${code}`)));
    expect(err).toMatchObject({ kind: 'connect', code, httpStatus: status, message: `it is ${code}`, details: [] });
    expect(err.operation).toBe('ListKafkaConnections');
    expect(err.bodyPrefix).toBeUndefined();
    expect(err.retryable).toBe(['unavailable', 'deadline_exceeded', 'resource_exhausted'].includes(code));
  });

  it.each([408, 422, 499])('canceled with HTTP %i stays canceled (the body code wins)', async (status) => {
    const err = await failedCall((_r, res) => answer(res, status, connectError('canceled', 'client went away')));
    expect(err).toMatchObject({ kind: 'connect', code: 'canceled', httpStatus: status });
  });

  it.each([
    ['not_found', 500],
    ['unavailable', 400],
    ['failed_precondition', 403],
    ['resource_exhausted', 503],
  ] as const)('%s with HTTP %i: the body code wins', async (code, status) => {
    const err = await failedCall((_r, res) => answer(res, status, connectError(code, 'x')));
    expect(err.code).toBe(code);
    expect(err.httpStatus).toBe(status);
  });

  it('keeps the details array exactly as sent, and the raw body', async () => {
    const details = [
      {
        type: 'google.rpc.ErrorInfo',
        value: 'CgdMSUNFTlNFEgdwbGF0Zm9ybQ==',
        debug: { reason: 'LICENSE', metadata: { feature: 'connections' } },
      },
      { type: 'google.rpc.Help', value: '', debug: { links: [{ url: 'https://example.invalid/licence' }] } },
    ];
    const body = connectError('failed_precondition', 'an enterprise licence is required', details);
    const err = await failedCall((_r, res) => answer(res, 400, body));
    expect(err.details).toEqual(details);
    expect(err.message).toBe('an enterprise licence is required');
    expect(err.body?.toString('utf8')).toBe(body);
    expect(JSON.parse(JSON.stringify(err)).details).toEqual(details);
  });

  it('an unrecognised code becomes unknown, keeping the text', async () => {
    const err = await failedCall((_r, res) => answer(res, 500, connectError('quota_blown', 'too much')));
    expect(err).toMatchObject({ kind: 'connect', code: 'unknown', httpStatus: 500 });
    expect(err.message).toContain('quota_blown');
    expect(err.message).toContain('too much');
  });

  it('an empty message is described', async () => {
    const err = await failedCall((_r, res) => answer(res, 503, '{"code":"unavailable"}'));
    expect(err).toMatchObject({ kind: 'connect', code: 'unavailable', details: [] });
    expect(err.message).toContain('unavailable');
  });
});

describe('non-Connect answers', () => {
  it('an HTML page with 502 from a proxy', async () => {
    const html = '<html>\r\n<head><title>502 Bad Gateway</title></head>\n<body>nginx</body></html>\n';
    const err = await failedCall((_r, res) => answer(res, 502, html, { 'content-type': 'text/html' }));
    expect(err).toMatchObject({ kind: 'protocol', code: 'unavailable', httpStatus: 502 });
    expect(err.message).toContain('text/html');
    expect(err.bodyPrefix).toBe(
      '<html>\\r\\n<head><title>502 Bad Gateway</title></head>\\n<body>nginx</body></html>\\n',
    );
    expect(err.body?.toString('utf8')).toBe(html);
  });

  it('an empty body with 503', async () => {
    const err = await failedCall((_r, res) => answer(res, 503, ''));
    expect(err).toMatchObject({ kind: 'protocol', code: 'unavailable', httpStatus: 503, bodyPrefix: '' });
    expect(err.message).toBe('HTTP 503 with an empty body');
  });

  it.each([
    [400, 'internal'],
    [401, 'unauthenticated'],
    [403, 'permission_denied'],
    [404, 'unimplemented'],
    [429, 'unavailable'],
    [504, 'unavailable'],
    [418, 'unknown'],
    [500, 'unknown'],
  ] as const)('HTTP %i without a Connect body infers %s', async (status, code) => {
    const err = await failedCall((_r, res) => answer(res, status, 'nope', { 'content-type': 'text/plain' }));
    expect(err).toMatchObject({ kind: 'protocol', code, httpStatus: status, bodyPrefix: 'nope' });
  });

  it('truncated JSON on an error status is a protocol error', async () => {
    const err = await failedCall((_r, res) => answer(res, 500, '{"code":"internal","mess'));
    expect(err).toMatchObject({
      kind: 'protocol',
      code: 'unknown',
      httpStatus: 500,
      bodyPrefix: '{"code":"internal","mess',
    });
  });

  it('a body prefix is cut at 512 bytes and control characters are escaped', async () => {
    const body = `\u001b[31mred\u0007${'x'.repeat(2000)}`;
    const err = await failedCall((_r, res) => answer(res, 502, body, { 'content-type': 'text/plain' }));
    expect(err.bodyPrefix).toBe(`\\x1b[31mred\\x07${'x'.repeat(512 - 9)}`);
    expect(err.body?.length).toBe(body.length);
  });

  it('an unrequested content-encoding is refused', async () => {
    const err = await failedCall((_r, res) => answer(res, 200, 'garbage', { 'content-encoding': 'gzip' }));
    expect(err).toMatchObject({ kind: 'protocol', code: 'internal', httpStatus: 200 });
    expect(err.message).toContain('gzip');
  });
});

describe('invalid answers (HTTP 200)', () => {
  it('truncated JSON', async () => {
    const err = await failedCall((_r, res) => answer(res, 200, '{"connections":[{"nodeId":1},'));
    expect(err).toMatchObject({
      kind: 'invalid_answer',
      code: 'internal',
      httpStatus: 200,
      bodyPrefix: '{"connections":[{"nodeId":1},',
    });
    expect(err.message).toMatch(/not valid JSON/);
    expect(err.path).toBeUndefined();
  });

  it('an empty body', async () => {
    const err = await failedCall((_r, res) => answer(res, 200, ''));
    expect(err).toMatchObject({ kind: 'invalid_answer', code: 'internal', bodyPrefix: '' });
    expect(err.message).toContain('empty');
  });

  it('a value of the wrong type names its path', async () => {
    const good = encodeMessage(KafkaConnection, defaultMessage(KafkaConnection));
    const body = JSON.stringify({ connections: [good, { ...good, nodeId: 'three' }], totalSize: '2' });
    const err = await failedCall((_r, res) => answer(res, 200, body));
    expect(err).toMatchObject({ kind: 'invalid_answer', code: 'internal', path: 'connections[1].nodeId' });
    expect(err.message).toContain('connections[1].nodeId: expected');
    expect(err.bodyPrefix).toBe(body.slice(0, 512));
    expect(err.body?.toString('utf8')).toBe(body);
  });

  it('a wrong type in another operation', async () => {
    const err = await failedCall(
      (_r, res) => answer(res, 200, '{"members":[{"nodeId":1,"alive":"yes"}]}'),
      {},
      (c) => c.call('GetUpgradeStatus', {}),
    );
    expect(err).toMatchObject({ kind: 'invalid_answer', operation: 'GetUpgradeStatus', path: 'members[0].alive' });
  });
});

describe('secrets', () => {
  it('a server echoing the credentials gets them scrubbed from every field', async () => {
    const echo: LoopbackHandler = (req, res) => {
      // echo exactly what was received: the header, and the password or token inside it
      const auth = String(req.headers.authorization);
      const [scheme, value = ''] = auth.split(' ');
      const plain = scheme === 'Basic' ? Buffer.from(value, 'base64').toString('utf8').split(':')[1] : value;
      answer(
        res,
        401,
        connectError('unauthenticated', `bad credentials ${auth} (${plain})`, [{ debug: { [auth]: auth, pw: plain } }]),
      );
    };
    const basic = await failedCall(echo);
    const bearer = await failedCall(echo, { auth: { kind: 'bearer', token: new Secret(TOKEN) } });
    expect(basic.message).toContain('[redacted]');
    expect(bearer.message).toBe('bad credentials Bearer [redacted] ([redacted])');
    expect(basic.details).toEqual([{ debug: { 'Basic [redacted]': 'Basic [redacted]', pw: '[redacted]' } }]);
    const html = await failedCall((req, res) =>
      answer(res, 502, `<pre>${req.headers.authorization} ${PASSWORD}</pre>`, { 'content-type': 'text/html' }),
    );
    expect(html.bodyPrefix).toBe('<pre>Basic [redacted] [redacted]</pre>');
  });

  it('no secret appears in any error any test produced', () => {
    expect(produced.length).toBeGreaterThan(45);
    for (const err of produced) {
      const views = [
        err.message,
        err.stack ?? '',
        String(err),
        err.describe(),
        JSON.stringify(err),
        inspect(err, { depth: 20, showHidden: true }),
        err.bodyPrefix ?? '',
        err.body?.toString('utf8') ?? '',
        JSON.stringify(err.details),
      ];
      for (const view of views) for (const secret of SECRETS) expect(view).not.toContain(secret);
    }
  });
});
