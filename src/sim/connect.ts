/** Connect protocol v1 (unary, JSON) checks as a Connect server makes them, and error answers. */
import type { IncomingMessage } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { HTTP_STATUS_BY_CODE, type ConnectCode } from '../api/client/connect-codes.ts';
import { OPERATIONS, OPERATION_NAMES, operationPath, type OperationName } from '../api/schema/operations.ts';
import { SimError } from './errors.ts';

/** Authentication the simulated server requires, if any. */
export type SimAuth =
  | { readonly kind: 'basic'; readonly username: string; readonly password: string; readonly superuser?: boolean }
  | { readonly kind: 'bearer'; readonly token: string; readonly superuser?: boolean };

/** An HTTP answer before it is written. */
export interface RawAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly body: Buffer;
  readonly headers?: Readonly<Record<string, string>>;
}

/** The answer of a Connect error. */
export function errorAnswer(code: ConnectCode, message: string, status = HTTP_STATUS_BY_CODE[code]): RawAnswer {
  return { status, contentType: 'application/json', body: Buffer.from(JSON.stringify({ code, message })) };
}

/** The answer of a SimError. */
export function simErrorAnswer(err: SimError): RawAnswer {
  return errorAnswer(err.code, err.message);
}

/** Maps URL paths to operations under a service prefix. */
export function routeTable(prefix: string): Map<string, OperationName> {
  return new Map(OPERATION_NAMES.map((op) => [operationPath(op, prefix), op]));
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The Connect-Timeout-Ms of a request (undefined when absent), or an error answer. */
export function timeoutOf(req: IncomingMessage): number | undefined | RawAnswer {
  const v = header(req, 'connect-timeout-ms');
  if (v === undefined) return undefined;
  if (!/^[0-9]{1,10}$/.test(v))
    return errorAnswer(
      'invalid_argument',
      `protocol error: invalid Connect-Timeout-Ms ${JSON.stringify(v)}: must be at most 10 digits`,
    );
  return Number(v);
}

/** Method, content type and protocol version checks; undefined when the request is acceptable. */
export function protocolCheck(req: IncomingMessage, op: OperationName): RawAnswer | undefined {
  if (req.method !== 'POST') {
    const a = errorAnswer(
      'unimplemented',
      `method ${req.method ?? ''} not allowed: ${OPERATIONS[op].service}/${op} accepts POST only`,
      405,
    );
    return { ...a, headers: { allow: 'POST' } };
  }
  const ct = (header(req, 'content-type') ?? '').toLowerCase();
  const media = ct.split(';')[0]?.trim() ?? '';
  if (media !== 'application/json') {
    const a = errorAnswer('unimplemented', `unsupported content-type ${JSON.stringify(ct)}: use application/json`, 415);
    return { ...a, headers: { 'accept-post': 'application/json' } };
  }
  const version = header(req, 'connect-protocol-version');
  if (version === undefined)
    return errorAnswer('invalid_argument', 'missing required header: set Connect-Protocol-Version to "1"');
  if (version !== '1')
    return errorAnswer('invalid_argument', `Connect-Protocol-Version must be "1": got ${JSON.stringify(version)}`);
  return undefined;
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Checks the Authorization header; undefined when the caller may proceed. */
export function authCheck(req: IncomingMessage, auth: SimAuth | undefined): RawAnswer | undefined {
  if (auth === undefined) return undefined;
  const h = header(req, 'authorization') ?? '';
  if (h === '') return errorAnswer('unauthenticated', 'missing credentials: send HTTP Basic or Bearer authorization');
  const [scheme = '', rest = ''] = h.split(/ (.*)/s);
  let ok = false;
  if (auth.kind === 'basic' && scheme.toLowerCase() === 'basic') {
    const decoded = Buffer.from(rest.trim(), 'base64').toString('utf8');
    ok = same(decoded, `${auth.username}:${auth.password}`);
  } else if (auth.kind === 'bearer' && scheme.toLowerCase() === 'bearer') {
    ok = same(rest.trim(), auth.token);
  }
  if (!ok) return errorAnswer('unauthenticated', 'invalid credentials');
  if (auth.superuser === false)
    return errorAnswer('permission_denied', 'superuser rights are required for this operation');
  return undefined;
}

/** Parses the request body: a JSON object, or an invalid_argument answer. */
export function parseBody(
  body: Buffer,
  op: OperationName,
): { json: Record<string, unknown> } | { rejected: RawAnswer } {
  const what = `unmarshal into ${OPERATIONS[op].request.name}`;
  if (body.length === 0)
    return { rejected: errorAnswer('invalid_argument', `${what}: zero-length payload is not a valid JSON object`) };
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch (err) {
    return { rejected: errorAnswer('invalid_argument', `${what}: ${(err as Error).message}`) };
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    return { rejected: errorAnswer('invalid_argument', `${what}: expected a JSON object`) };
  }
  return { json: json as Record<string, unknown> };
}

/** The HTML page a proxy answers with when its upstream fails. */
export const HTML_502 = `<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`;
