import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { JsonNumber, type JsonValue } from '../../src/api/codec/lossless-json.ts';
import type { PollRow } from '../../src/api/schema/resources.ts';
import type { QueryResult } from '../../src/report/query.ts';
import { formatJson, queryToJson, queryToJsonText, writeJson } from '../../src/report/render/json.ts';
import { ConnectionWorld } from '../helpers/connection-answers.ts';
import { TERMINAL_UNSAFE_STRINGS } from '../helpers/unsafe-strings.ts';

/** Strings with what the writer must escape: controls, C1, bidi and line separators, quotes, astral and lone surrogates. */
const nasty = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom(...TERMINAL_UNSAFE_STRINGS));
const leaf = fc.oneof(
  nasty,
  fc.double(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(-0),
  fc.constant(Number.NaN),
);
const tree = fc.letrec<{ v: JsonValue }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(nasty, tie('v'), { maxKeys: 4 }),
  ),
})).v;

describe('the JSON writer', () => {
  it('writes a plain tree (the engine JSON.stringify path) byte for byte as the reference writer does', () => {
    fc.assert(
      fc.property(tree, fc.constantFrom(0, 2, 4), (v, indent) => {
        expect(formatJson(v, indent)).toBe(writeJson(v, indent));
      }),
      { numRuns: 500 },
    );
  });

  it('takes the reference writer for bigints, JsonNumber literals and undefined fields', () => {
    const doc = { a: 12345678901234567890n, b: [new JsonNumber('1e400'), 'x\u2028'], c: undefined, d: {} };
    expect(formatJson(doc as unknown as JsonValue, 2)).toBe(
      '{\n  "a": 12345678901234567890,\n  "b": [\n    1e400,\n    "x\\u2028"\n  ],\n  "d": {}\n}',
    );
    expect(formatJson({ s: 'a\u202eb', e: [], u: undefined } as unknown as JsonValue, 0)).toBe(
      '{"s":"a\\u202eb","e":[]}',
    );
  });
});

describe('the JSON text of a query, written a piece of rows at a time', () => {
  const world = new ConnectionWorld({ connections: 600, seed: 3, unknownFields: true, hugeCounters: true });
  const rows = world.next().answer.connections;
  const poll: PollRow = {
    id: 7n,
    cluster: 'c',
    operation: 'ListKafkaConnections',
    target: '',
    scheduledTime: 1_767_225_600_000_000_000n,
    startTime: 1_767_225_600_000_000_000n,
    endTime: 1_767_225_600_012_000_000n,
    duration: 12_000_000n,
    outcome: 'ok',
    httpStatus: 200,
    message: '',
    bytes: 100n,
    rowsReturned: 600n,
    totalSize: 600n,
    fanoutCalls: 0,
    coverage: 'complete',
  };
  const at = (n: number, extra: Partial<QueryResult> = {}): QueryResult => ({
    resource: 'connections',
    mode: 'at',
    at: 1_767_225_630_000_000_000n,
    poll,
    filter: 'node_id = 1',
    orderBy: '',
    rows: rows.slice(0, n),
    total: n + 3,
    failures: 0,
    ...extra,
  });

  it('is formatJson(queryToJson(result)) byte for byte, in one piece, several, or none', () => {
    for (const n of [0, 1, 255, 256, 257, 513, 600]) {
      const r = at(n);
      expect(queryToJsonText(r)).toBe(formatJson(queryToJson(r)));
    }
  });

  it('takes the reference writer for a piece holding a bigint or a JsonNumber, the same bytes', () => {
    const odd = rows
      .slice(0, 300)
      .map((c, i) =>
        i === 280 ? { ...c, $unknown: { zBig: 18446744073709551615n, zNum: new JsonNumber('1.50') } } : c,
      );
    const r = at(300, { rows: odd });
    const text = queryToJsonText(r);
    expect(text).toContain('"zBig": 18446744073709551615');
    expect(text).toBe(formatJson(queryToJson(r)));
  });

  it('writes the samples of a range query the same way', () => {
    const samples = rows.slice(0, 300).map((row) => ({ poll, row }));
    const r: QueryResult = {
      resource: 'connections',
      mode: 'range',
      since: 1n,
      until: 2n,
      filter: '',
      orderBy: '',
      rows: samples.map((s) => s.row),
      samples,
      total: 300,
    };
    expect(queryToJsonText(r)).toBe(formatJson(queryToJson(r)));
  });
});
