import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  bodyPrefixOf,
  CallError,
  codeForHttpStatus,
  CONNECT_CODES,
  escapeControlChars,
  httpStatusForCode,
  isConnectCode,
  isRetryableCode,
  Redactor,
  RETRYABLE_CODES,
} from '../../src/api/client/index.ts';

describe('Connect codes', () => {
  it('lists the 16 codes once each', () => {
    expect(CONNECT_CODES).toHaveLength(16);
    expect(new Set(CONNECT_CODES).size).toBe(16);
    for (const c of CONNECT_CODES) expect(isConnectCode(c)).toBe(true);
    for (const c of ['CANCELED', 'cancelled', 'ok', '', 3, null, undefined]) expect(isConnectCode(c)).toBe(false);
  });

  it('maps codes to HTTP statuses as the server does', () => {
    const table = Object.fromEntries(CONNECT_CODES.map((c) => [c, httpStatusForCode(c)]));
    expect(table).toEqual({
      canceled: 499,
      unknown: 500,
      invalid_argument: 400,
      deadline_exceeded: 504,
      not_found: 404,
      already_exists: 409,
      permission_denied: 403,
      resource_exhausted: 429,
      failed_precondition: 400,
      aborted: 409,
      out_of_range: 400,
      unimplemented: 501,
      internal: 500,
      unavailable: 503,
      data_loss: 500,
      unauthenticated: 401,
    });
  });

  it('infers a code from a bare HTTP status with the Connect table', () => {
    expect(codeForHttpStatus(400)).toBe('internal');
    expect(codeForHttpStatus(401)).toBe('unauthenticated');
    expect(codeForHttpStatus(403)).toBe('permission_denied');
    expect(codeForHttpStatus(404)).toBe('unimplemented');
    for (const s of [429, 502, 503, 504]) expect(codeForHttpStatus(s)).toBe('unavailable');
    for (const s of [200, 302, 408, 409, 418, 499, 500, 501]) expect(codeForHttpStatus(s)).toBe('unknown');
  });

  it('retries only transient codes', () => {
    expect([...RETRYABLE_CODES].sort()).toEqual(['deadline_exceeded', 'resource_exhausted', 'unavailable']);
    expect(isRetryableCode('failed_precondition')).toBe(false);
    expect(isRetryableCode('unavailable')).toBe(true);
  });
});

describe('CallError', () => {
  const err = new CallError({
    operation: 'GetShadowLink',
    code: 'not_found',
    kind: 'connect',
    message: 'shadow link dr not found',
    httpStatus: 404,
    elapsedMs: 12.5,
    details: [{ type: 't', value: '' }],
    body: Buffer.from('{"code":"not_found"}'),
  });

  it('is an Error with the server message and the fields', () => {
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('CallError');
    expect(err.message).toBe('shadow link dr not found');
    expect(err.retryable).toBe(false);
    expect(err.describe()).toBe('GetShadowLink: not_found (HTTP 404, connect): shadow link dr not found');
    expect(String(err)).toBe('CallError: GetShadowLink: not_found (HTTP 404, connect): shadow link dr not found');
  });

  it('serialises its fields but not the raw body', () => {
    expect(JSON.parse(JSON.stringify(err))).toEqual({
      name: 'CallError',
      operation: 'GetShadowLink',
      code: 'not_found',
      kind: 'connect',
      httpStatus: 404,
      message: 'shadow link dr not found',
      details: [{ type: 't', value: '' }],
      elapsedMs: 12.5,
    });
    expect(err.body?.toString()).toBe('{"code":"not_found"}');
    expect(Object.keys(err)).not.toContain('body');
    expect(inspect(err)).not.toContain('"code":"not_found"');
  });

  it('a transport error has no status', () => {
    const t = new CallError({
      operation: 'GetUpgradeStatus',
      code: 'unavailable',
      kind: 'transport',
      message: 'refused',
      elapsedMs: 1,
    });
    expect(t.describe()).toBe('GetUpgradeStatus: unavailable (transport): refused');
    expect(t.details).toEqual([]);
    expect(t.retryable).toBe(true);
  });
});

describe('body prefixes', () => {
  it('escapes C0, DEL and C1 controls', () => {
    expect(escapeControlChars('a\nb\r\tc\u0000\u001b\u007f\u0085é')).toBe('a\\nb\\r\\tc\\x00\\x1b\\x7f\\u0085é');
  });

  it('keeps at most 512 bytes', () => {
    expect(bodyPrefixOf(Buffer.from('z'.repeat(600)))).toBe('z'.repeat(512));
    expect(bodyPrefixOf(Buffer.alloc(0))).toBe('');
    // a multi-byte character cut at the limit decodes to a replacement character
    expect(bodyPrefixOf(Buffer.from(`${'z'.repeat(511)}é`))).toBe(`${'z'.repeat(511)}\ufffd`);
  });
});

describe('Redactor', () => {
  const r = new Redactor(['hunter22', 'aHVudGVy']);

  it('scrubs text, JSON values (keys too) and bytes', () => {
    expect(r.text('pw=hunter22; again hunter22')).toBe('pw=[redacted]; again [redacted]');
    expect(r.deep({ a: ['x hunter22'], hunter22: 1, n: 5 })).toEqual({ a: ['x [redacted]'], '[redacted]': 1, n: 5 });
    expect(r.bytes(Buffer.from('Basic aHVudGVy!hunter22')).toString()).toBe('Basic [redacted]![redacted]');
  });

  it('returns clean input unchanged', () => {
    const clean = { a: 1 };
    const buf = Buffer.from('nothing here');
    expect(r.deep(clean)).toBe(clean);
    expect(r.bytes(buf)).toBe(buf);
    expect(new Redactor([]).text('hunter22')).toBe('hunter22');
  });
});
