/**
 * Bounded nesting on every JSON path (issue 19, point 1): about 5,000 levels of `[` in an unknown
 * field must never reach `Maximum call stack size exceeded`; beyond MAX_JSON_DEPTH every reader
 * refuses with a typed JsonDepthError, and the client turns it into a failed call (a failed poll).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { memoryIo } from '../helpers/memory-io.ts';
import { ConnectClient } from '../../src/api/client/index.ts';
import {
  JsonDepthError,
  JsonNumber,
  MAX_JSON_DEPTH,
  parseJsonLossless,
  stringifyJson,
  type JsonValue,
} from '../../src/api/codec/index.ts';
import { OPERATION_NAMES, OPERATIONS, type OperationName } from '../../src/api/schema/operations.ts';
import { decodeAnswer, encodeAnswer, parseAnswer } from '../../src/api/wire/answers.ts';
import { defaultMessage } from '../../src/api/wire/defaults.ts';
import { answer, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.ts';

const DEEP = `${'['.repeat(5000)}${']'.repeat(5000)}`;
const DEEP_OBJECTS = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;

/** A minimal valid answer of the operation, with one more (unknown) field holding `value`. */
function bodyWith(op: OperationName, value: string): string {
  const text = encodeAnswer(op, defaultMessage(OPERATIONS[op].response) as never);
  return `${text.slice(0, -1)}${text.length > 2 ? ',' : ''}"zUnknown":${value}}`;
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}

describe('every parse path refuses nesting beyond the bound with a typed error', () => {
  it.each(OPERATION_NAMES)('%s: the direct decoder, the text path and the tree path', (op) => {
    for (const deep of [DEEP, DEEP_OBJECTS]) {
      const body = bodyWith(op, deep);
      for (const input of [Buffer.from(body), body]) {
        const err = thrown(() => parseAnswer(op, input));
        expect(err).toBeInstanceOf(JsonDepthError);
        expect((err as Error).message).toMatch(`nesting deeper than ${MAX_JSON_DEPTH} levels`);
      }
    }
  });

  it('accepts an unknown field nested up to the bound and keeps it exactly', () => {
    const nested = `${'['.repeat(MAX_JSON_DEPTH - 1)}1e400${']'.repeat(MAX_JSON_DEPTH - 1)}`;
    const decoded = parseAnswer('GetUpgradeStatus', Buffer.from(bodyWith('GetUpgradeStatus', nested)));
    expect(encodeAnswer('GetUpgradeStatus', decoded)).toContain(`"zUnknown":${nested}`);
  });

  it('stringify of unknown fields and error details is bounded too (no stack overflow)', () => {
    const details = JSON.parse(`[${DEEP}]`) as JsonValue; // what a plain JSON.parse (an error body) may give
    expect(thrown(() => stringifyJson(details))).toBeInstanceOf(JsonDepthError);
    const answerTree = { ...(decodeAnswer('GetUpgradeStatus', {}) as object), $unknown: { x: details } };
    expect(thrown(() => encodeAnswer('GetUpgradeStatus', answerTree as never))).toBeInstanceOf(JsonDepthError);
  });
});

describe('numbers in unknown fields keep the literal sent (issue 19, point 6)', () => {
  it.each([
    '1e400',
    '-1e400',
    '1.50',
    '-0',
    '1E5',
    '0.1000000000000000055511151231257827',
    '123456789012345678901234567890',
  ])('%s survives decode and encode on every path', (literal) => {
    const body = bodyWith('GetIcebergStatus', `{"n":${literal},"list":[${literal}]}`);
    for (const input of [Buffer.from(body), body]) {
      const decoded = parseAnswer('GetIcebergStatus', input);
      expect(encodeAnswer('GetIcebergStatus', decoded)).toContain(`"zUnknown":{"n":${literal},"list":[${literal}]}`);
    }
    const tree = parseJsonLossless(body) as Record<string, JsonValue>;
    expect(stringifyJson(tree)).toBe(body);
  });

  it('an integral literal in exponent or fraction form still decodes into an integer field', () => {
    const decoded = parseAnswer('GetUpgradeStatus', Buffer.from('{"activeVersion":1.0e1,"members":[{"nodeId":2E0}]}'));
    expect(decoded.activeVersion).toBe(10n);
    expect(decoded.members[0]!.nodeId).toBe(2);
    expect(parseJsonLossless('{"x":1.0}')).toEqual({ x: new JsonNumber('1.0') });
  });
});

describe('the client records a too-deep answer as a failed call, with the reason', () => {
  let server: LoopbackServer;
  beforeAll(async () => {
    server = await startLoopbackServer((req, res) => {
      const op = req.path.split('/').at(-1) as OperationName;
      answer(res, 200, bodyWith(op, DEEP));
    });
  });
  afterAll(async () => server.close());

  it.each(OPERATION_NAMES)('%s', async (op) => {
    const client = new ConnectClient({ baseUrl: server.url });
    try {
      const result = await client.call(op, defaultMessage(OPERATIONS[op].request) as never);
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.error.kind).toBe('invalid_answer');
      expect(result.error.message).toMatch(`nesting deeper than ${MAX_JSON_DEPTH} levels`);
      expect(result.error.message).not.toMatch(/call stack/);
      expect(result.error.body?.length).toBeGreaterThan(10_000);
    } finally {
      await client.close();
    }
  });
});

describe('import of a too-deep answer stores a failed poll with the reason', () => {
  it.each([
    ['a successful answer with a deep unknown field', bodyWith('GetUpgradeStatus', DEEP)],
    ['a saved error whose details nest deeply', `{"code":"internal","message":"x","details":[${DEEP}]}`],
  ])('%s', async (_what, body) => {
    const dir = mkdtempSync(join(tmpdir(), 'flightrec-deep-'));
    try {
      writeFileSync(join(dir, 'deep.json'), body);
      const io = memoryIo({ cwd: dir });
      const code = await main(
        ['--db', join(dir, 'h.db'), 'import', '--op', 'GetUpgradeStatus', '--at', '2025-09-01T10:00:00Z', 'deep.json'],
        io,
      );
      expect(code).toBe(1);
      expect(io.err()).toContain(`nesting deeper than ${MAX_JSON_DEPTH} levels`);
      expect(io.err()).toContain('stored as failed poll');
      expect(io.err()).not.toMatch(/call stack|RangeError/);
      const db = new Database(join(dir, 'h.db'), { readonly: true });
      const row = db
        .prepare(
          'SELECT ok, kind, message, (SELECT length(body) FROM poll_raw WHERE poll_id = poll.id) AS raw FROM poll',
        )
        .get() as Record<string, unknown>;
      db.close();
      expect(row).toMatchObject({ ok: 0, kind: 'invalid_answer' });
      expect(String(row.message)).toContain('nesting deeper than');
      expect(row.raw).toBeGreaterThan(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
