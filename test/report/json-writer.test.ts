import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { JsonNumber, type JsonValue } from '../../src/api/codec/lossless-json.ts';
import { formatJson, writeJson } from '../../src/report/render/json.ts';

/** Strings with what the writer must escape: controls, C1, bidi and line separators, quotes, astral and lone surrogates. */
const nasty = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom(
    '\u2028',
    '\u2029',
    '\u202e',
    '\u2066',
    '\u200e',
    '\u061c',
    '\u007f',
    '\u0085',
    '"\\',
    '\ud800',
    '😀',
  ),
);
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
