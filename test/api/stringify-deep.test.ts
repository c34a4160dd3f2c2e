/**
 * stringifyJson never lets a failure of JSON.stringify escape as something else than a typed
 * answer: bigints are written exactly, nesting beyond MAX_JSON_DEPTH is a JsonDepthError (not a
 * RangeError from a blown stack), and any other failure (a value that throws) propagates as is.
 */
import { describe, expect, it } from 'vitest';
import { JsonDepthError, MAX_JSON_DEPTH, stringifyJson, type JsonValue } from '../../src/api/codec/lossless-json.ts';

function nested(levels: number, inner: JsonValue = []): JsonValue {
  let v: JsonValue = inner;
  for (let i = 1; i < levels; i++) v = [v];
  return v;
}

describe('stringifyJson on hostile values', () => {
  it('writes bigints exactly, at any depth up to the limit', () => {
    expect(stringifyJson({ a: [2n ** 70n, 1, 'x'] })).toBe('{"a":[1180591620717411303424,1,"x"]}');
    const text = stringifyJson(nested(MAX_JSON_DEPTH, [1n]));
    expect(text.startsWith('['.repeat(MAX_JSON_DEPTH))).toBe(true);
  });

  it('refuses nesting deeper than MAX_JSON_DEPTH with a JsonDepthError, even where JSON.stringify overflows the stack', () => {
    expect(() => stringifyJson(nested(MAX_JSON_DEPTH + 1, [1n]))).toThrow(JsonDepthError);
    expect(() => stringifyJson(nested(200_000))).toThrow(JsonDepthError);
  });

  it('lets the failure of a value that throws through (the store turns it into a failed poll)', () => {
    const bad = Object.defineProperty({}, 'x', {
      enumerable: true,
      get: () => {
        throw new Error('injected');
      },
    });
    expect(() => stringifyJson(bad as JsonValue)).toThrow('injected');
  });
});
