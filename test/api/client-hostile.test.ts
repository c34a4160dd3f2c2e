/**
 * The client's defences against hostile answers, as pure functions: the decode-memory estimate,
 * Retry-After (seconds and HTTP dates), secrets scrubbed in every encoding (and behind JSON
 * escapes), deep redaction without recursion, and error details nested too deep kept only in
 * the raw body.
 */
import { describe, expect, it } from 'vitest';
import { interpretAnswer, parseRetryAfter } from '../../src/api/client/answer.ts';
import { estimateParseBytes, WORST_BYTES_PER_BYTE } from '../../src/api/client/parse-budget.ts';
import { Redactor, secretNeedles } from '../../src/api/client/redact.ts';

const MIB = 1024 * 1024;

describe('the decode-memory estimate', () => {
  it('skips the scan when even the worst case fits the budget', () => {
    expect(estimateParseBytes(Buffer.alloc(1000, 0x7b), 1000 * WORST_BYTES_PER_BYTE)).toBeLessThanOrEqual(
      1000 * WORST_BYTES_PER_BYTE,
    );
  });

  it('is above what V8 takes for the worst shapes (empty objects, empty arrays, numbers)', () => {
    const budget = 1; // force the scan
    const objects = Buffer.from(`[${'{},'.repeat(99_999)}{}]`);
    const arrays = Buffer.from(`[${'[],'.repeat(99_999)}[]]`);
    const numbers = Buffer.from(`[${'0,'.repeat(99_999)}0]`);
    // measured heap per element on Node 20: 64 for {}, 40 for [], 8 for 0
    expect(estimateParseBytes(objects, budget)).toBeGreaterThan(100_000 * 64);
    expect(estimateParseBytes(arrays, budget)).toBeGreaterThan(100_000 * 40);
    expect(estimateParseBytes(numbers, budget)).toBeGreaterThan(100_000 * 8);
  });

  it('refuses, as a failed call with the first bytes, an answer whose decoding would pass the budget', () => {
    const body = Buffer.from(`{"members":[],"x":[${'{},'.repeat(200_000)}{}]}`);
    const r = interpretAnswer(
      { status: 200, contentType: 'application/json', contentEncoding: '', body },
      { operation: 'GetUpgradeStatus', elapsedMs: 1, redactor: new Redactor([]), maxParseBytes: 4 * MIB },
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toMatchObject({ code: 'resource_exhausted', kind: 'protocol', size: body.length });
    expect(r.error.message).toMatch(
      /^answer of \d+ bytes would need about [0-9.]+ MiB to decode, more than the budget of 4\.0 MiB \(maxParseBytes\)/,
    );
    expect(r.error.body!.length).toBe(512);
  });
});

describe('Retry-After', () => {
  const now = (): number => Date.parse('2026-01-01T00:00:00Z');
  it('reads seconds and HTTP dates; ignores anything else', () => {
    expect(parseRetryAfter('3600', now)).toBe(3_600_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('99999999999999', now)).toBe(86_400_000);
    for (const bad of ['', '-1', '1.5', 'soon', '1e9', 'Thu, 01 Jan 2026'])
      expect(parseRetryAfter(bad, now)).toBeUndefined();
  });

  it('is kept on the error of a 429 or 503 answer', () => {
    const r = interpretAnswer(
      {
        status: 429,
        contentType: 'application/json',
        contentEncoding: '',
        retryAfter: '7',
        body: Buffer.from('{"code":"resource_exhausted","message":"busy"}'),
      },
      { operation: 'ListKafkaConnections', elapsedMs: 1, redactor: new Redactor([]) },
    );
    expect(!r.ok && r.error.retryAfterMs).toBe(7000);
  });
});

describe('secrets in every encoding', () => {
  const PASSWORD = 'hunter2/p@ss w:rd"é';
  const redactor = new Redactor(secretNeedles(PASSWORD, 'admin'));
  const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
  const forms = [
    PASSWORD,
    JSON.stringify(PASSWORD).slice(1, -1),
    encodeURIComponent(PASSWORD),
    b64(PASSWORD),
    b64(PASSWORD).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_'),
    b64(`admin:${PASSWORD}`),
    `admin:${PASSWORD}`,
  ];

  it('are removed from text, counting each occurrence', () => {
    const before = redactor.replaced;
    // a form found through a shorter one (padded base64, `user:` before the secret) may leave its
    // non-secret part (`=` padding, the user name) around the mark
    for (const f of forms) {
      const out = redactor.text(`x ${f} y`);
      expect(out).toContain('[redacted]');
      for (const g of forms) expect(out).not.toContain(g);
    }
    expect(redactor.replaced - before).toBe(forms.length);
  });

  it('are removed from bytes, also where JSON escapes spell the secret', () => {
    const escaped = [...PASSWORD].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    const body = Buffer.from(
      `{"a":"${escaped}","b":"ok \\n","c":"${b64(PASSWORD)}","d":"pre ${encodeURIComponent(PASSWORD)} post"}`,
    );
    const out = redactor.bytes(body);
    const parsed = JSON.parse(out.toString('utf8')) as Record<string, string>;
    expect(parsed).toEqual({
      a: '[redacted]',
      b: 'ok \n',
      c: expect.stringMatching(/^\[redacted\]=*$/),
      d: 'pre [redacted] post',
    });
  });

  it('are removed from a JSON value nested deeper than any stack allows, without recursion', () => {
    let deep: unknown = [`token ${PASSWORD}`];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    let v = redactor.deep(deep) as unknown;
    for (let i = 0; i < 100_000; i++) v = (v as unknown[])[0];
    expect(v).toEqual(['token [redacted]']);
  });

  it('shorter than 4 characters are not scrubbed (it would mangle every message)', () => {
    expect(secretNeedles('abc')).toEqual([]);
  });
});

describe('error details nested too deep for the readers', () => {
  it('are kept in the raw body only, with a note; the call keeps its code and body', () => {
    const body = Buffer.from(`{"code":"internal","message":"boom","details":[${'['.repeat(5000)}${']'.repeat(5000)}]}`);
    const r = interpretAnswer(
      { status: 500, contentType: 'application/json', contentEncoding: '', body },
      { operation: 'GetUpgradeStatus', elapsedMs: 1, redactor: new Redactor(secretNeedles('s3cret-pass', 'admin')) },
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toMatchObject({ code: 'internal', kind: 'connect', httpStatus: 500, details: [] });
    expect(r.error.message).toBe('boom (details nested deeper than 512 levels: kept in the raw body only)');
    expect(r.error.body!.equals(body)).toBe(true);
  });
});
