import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  JsonDepthError,
  JsonNumber,
  JsonSyntaxError,
  MAX_JSON_DEPTH,
  parseJsonLossless,
  parseJsonLosslessSlow,
  stringifyJson,
  type JsonValue,
} from '../../src/api/codec/index.ts';
import { needsSlowPath } from '../../src/api/codec/lossless-json.ts';

/** A big integer to append to a document so the exact (slow) path is taken. */
const BIG = '12345678901234567890';

function syntaxError(fn: () => unknown): JsonSyntaxError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(JsonSyntaxError);
    return err as JsonSyntaxError;
  }
  throw new Error('expected a JsonSyntaxError');
}

/** Replaces bigints and JsonNumbers by numbers, to compare with what JSON.parse would give. */
function lossy(v: JsonValue): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof JsonNumber) return v.value;
  if (Array.isArray(v)) return v.map(lossy);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v))
      Object.defineProperty(out, k, { value: lossy(x), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return v;
}

describe('parseJsonLossless: big integers', () => {
  it.each([
    ['9223372036854775807', 9223372036854775807n],
    ['-9223372036854775808', -9223372036854775808n],
    ['18446744073709551615', 18446744073709551615n],
    ['9007199254740992', 9007199254740992n],
    ['-9007199254740992', -9007199254740992n],
    ['9007199254740993', 9007199254740993n],
    ['123456789012345678901234567890123456789', 123456789012345678901234567890123456789n],
  ])('keeps %s as a bigint', (text, expected) => {
    expect(parseJsonLossless(text)).toBe(expected);
    expect(parseJsonLossless(` \n${text}\t`)).toBe(expected);
  });

  it.each([
    ['9007199254740991', 9007199254740991],
    ['-9007199254740991', -9007199254740991],
    ['1234567890123456', 1234567890123456],
    ['123456789012345', 123456789012345],
    ['1.5', 1.5],
    ['-0.25', -0.25],
    ['1e+21', 1e21],
  ])('keeps %s as a number (the number gives the literal back)', (text, expected) => {
    expect(parseJsonLossless(text)).toBe(expected);
    expect(parseJsonLossless(`[${text}, ${BIG}]`)).toEqual([expected, BigInt(BIG)]);
  });

  it.each([
    // the nearest doubles, as JS reads these literals
    ['12345678901234567.5', Number('12345678901234567.5')],
    ['12345678901234567e0', Number('12345678901234567')],
    ['1.12345678901234567', Number('1.12345678901234567')],
    ['1e400', Number.POSITIVE_INFINITY],
    ['-1E400', Number.NEGATIVE_INFINITY],
    ['-0', -0],
    ['0.0', 0],
    ['1.50', 1.5],
    ['1E5', 1e5],
    ['1e-400', 0],
  ])('keeps %s as the literal sent (a JsonNumber)', (text, value) => {
    for (const parsed of [
      parseJsonLossless(text),
      parseJsonLossless(`[${text}]`),
      parseJsonLossless(`{"x":${text}}`),
    ]) {
      const n = JSON.stringify(parsed).includes('x')
        ? (parsed as Record<string, JsonValue>).x
        : Array.isArray(parsed)
          ? parsed[0]
          : parsed;
      expect(n).toBeInstanceOf(JsonNumber);
      expect((n as JsonNumber).text).toBe(text);
      expect((n as JsonNumber).value).toBe(value);
    }
    expect(stringifyJson(parseJsonLossless(`{"unknown":[${text}, ${BIG}]}`))).toBe(`{"unknown":[${text},${BIG}]}`);
  });

  it('keeps big integers in arrays, objects and nested structures', () => {
    expect(parseJsonLossless('[1, 9007199254740993, 2]')).toEqual([1, 9007199254740993n, 2]);
    expect(parseJsonLossless('{"a":18446744073709551615,"b":"x"}')).toEqual({ a: 18446744073709551615n, b: 'x' });
    expect(parseJsonLossless('{"a":{"b":[{"c":[-9223372036854775808]}]},"d":1.5,"e":[true,false,null]}')).toEqual({
      a: { b: [{ c: [-9223372036854775808n] }] },
      d: 1.5,
      e: [true, false, null],
    });
    expect(parseJsonLossless('[[[[9223372036854775807]]],{"x":{}},[]]')).toEqual([
      [[[9223372036854775807n]]],
      { x: {} },
      [],
    ]);
  });

  it('leaves digit runs inside strings and keys alone', () => {
    const text =
      '{"a":"9223372036854775807","b":"x, 12345678901234567890","c":":[12345678901234567890","12345678901234567890":1}';
    expect(parseJsonLossless(text)).toEqual(JSON.parse(text));
    expect(parseJsonLossless(`[${text}, ${BIG}]`)).toEqual([JSON.parse(text), BigInt(BIG)]);
  });

  it('reads a typical server answer exactly', () => {
    const text = `{"connections":[{"uid":"a","totalRequestStatistics":{"fetchBytes":"18446744073709551615","requestCount":9223372036854775807}}],"totalSize":"1"}`;
    expect(parseJsonLossless(text)).toEqual({
      connections: [
        {
          uid: 'a',
          totalRequestStatistics: { fetchBytes: '18446744073709551615', requestCount: 9223372036854775807n },
        },
      ],
      totalSize: '1',
    });
  });
});

describe('needsSlowPath', () => {
  it.each([
    ['{"a":12345678901234567}', true],
    ['[ -12345678901234567]', true],
    ['12345678901234567', true],
    ['-12345678901234567', true],
    ['{"a":\n\t 12345678901234567}', true],
    ['[1,12345678901234567]', true],
    ['{"a":1234567890123456}', true], // 16 digits: checked exactly by the slow path
    ['{"a":123456789012345}', false],
    ['{"a":"12345678901234567"}', false],
    ['{"12345678901234567":1}', false],
    ['1.12345678901234567', true], // any fraction or exponent: the literal may not survive a JS number
    ['1e12345678901234567', true],
    ['1E-12345678901234567', true],
    ['{"a":1.5}', true],
    ['{"a":-0}', true],
    ['{"a":-0.5,"b":0}', true],
    ['{"a":0,"b":-1,"c":[10]}', false],
    ['{"a":"2025-09-01T10:22:54.123456789Z","b":"0.000000001s","c":"-0 1e5 \\"1.5"}', false],
    ['{"a":"\\\\"}', false],
  ])('%s → %s', (text, slow) => {
    expect(needsSlowPath(text)).toBe(slow);
  });
});

describe('parseJsonLossless: agrees with JSON.parse', () => {
  const samples = [
    '{}',
    '[]',
    '""',
    'true',
    'false',
    'null',
    '0',
    '-1',
    '3.25',
    '-1.5e-7',
    '1E+2',
    '1e2',
    '{"a":1,"b":[1,2,{"c":null}],"d":"x"}',
    ' \t\r\n{ "a" : [ 1 , 2 ] } \n',
    '"\\u00e9\\n\\t\\"\\\\\\/\\b\\f\\r"',
    '"\\ud83d\\ude00 \\ud800 \\udc00 😀 é ü 中文"',
    '"\\u0000\\u001F\\u007f"',
    '{"a":1,"a":2}',
    '{"b":1,"a":2,"b":3}',
    '{"1":"x","0":"y","b":"z","-1":"w"}',
    '{"__proto__":{"x":1},"y":2}',
    '{"":""}',
    '["\u2028\u2029"]',
  ];

  it.each(samples)('fast and slow path match JSON.parse on %s', (text) => {
    const expected: unknown = JSON.parse(text);
    const fast = parseJsonLossless(text);
    const slow = parseJsonLosslessSlow(text);
    expect(lossy(fast)).toEqual(expected);
    expect(lossy(slow)).toEqual(expected);
    // a number literal that a JS number would change is written back as sent
    expect(stringifyJson(slow)).toBe(slow instanceof JsonNumber ? text : JSON.stringify(expected));
  });

  it('keeps __proto__ as an own key without touching the prototype', () => {
    const value = parseJsonLosslessSlow(`{"__proto__":{"polluted":true},"n":${BIG}}`) as Record<string, JsonValue>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__', 'n']);
    expect(Object.getOwnPropertyDescriptor(value, '__proto__')?.value).toEqual({ polluted: true });
    const plain: Record<string, unknown> = {};
    expect(plain.polluted).toBeUndefined();
  });

  it('lets the last duplicate key win on the slow path', () => {
    const value = parseJsonLossless(`{"a":1,"b":${BIG},"a":${BIG}}`) as Record<string, JsonValue>;
    expect(value).toEqual({ a: BigInt(BIG), b: BigInt(BIG) });
    expect(Object.keys(value)).toEqual(['a', 'b']);
  });

  it('matches JSON.parse on random JSON texts (big integers aside)', () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        const expected: unknown = JSON.parse(text);
        expect(lossy(parseJsonLosslessSlow(text))).toEqual(expected);
        expect(lossy(parseJsonLossless(text))).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('matches JSON.parse on random pretty-printed texts', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const text = JSON.stringify(v, null, 2);
        expect(lossy(parseJsonLosslessSlow(text))).toEqual(JSON.parse(text));
      }),
      { numRuns: 200 },
    );
  });
});

describe('parseJsonLossless: bytes', () => {
  it('decodes UTF-8 bytes', () => {
    const bytes = new TextEncoder().encode(`{"name":"é😀","n":${BIG}}`);
    expect(parseJsonLossless(bytes)).toEqual({ name: 'é😀', n: BigInt(BIG) });
  });

  it('replaces invalid UTF-8 with U+FFFD and drops a BOM, like TextDecoder', () => {
    expect(parseJsonLossless(new Uint8Array([0x22, 0xff, 0x41, 0x22]))).toBe('\ufffdA');
    expect(parseJsonLossless(new Uint8Array([0x22, 0xc3, 0x22]))).toBe('\ufffd');
    expect(parseJsonLossless(new Uint8Array([0xef, 0xbb, 0xbf, 0x31]))).toBe(1);
  });

  it('reports positions in the decoded text', () => {
    const err = syntaxError(() => parseJsonLossless(new TextEncoder().encode('["é",]')));
    expect(err.offset).toBe(5);
  });
});

describe('parseJsonLossless: nesting', () => {
  const nest = (depth: number, inner: string): string => '['.repeat(depth) + inner + ']'.repeat(depth);

  it(`accepts ${MAX_JSON_DEPTH} levels on the exact path`, () => {
    let value = parseJsonLossless(nest(MAX_JSON_DEPTH, BIG));
    for (let i = 0; i < MAX_JSON_DEPTH; i++) value = (value as JsonValue[])[0] as JsonValue;
    expect(value).toBe(BigInt(BIG));
    expect(() => parseJsonLossless(`{"a":${nest(MAX_JSON_DEPTH - 1, BIG)}}`)).not.toThrow();
  });

  it(`refuses ${MAX_JSON_DEPTH + 1} levels on the exact path with a positioned error`, () => {
    const err = syntaxError(() => parseJsonLossless(nest(MAX_JSON_DEPTH + 1, BIG)));
    expect(err.detail).toBe(`nesting deeper than ${MAX_JSON_DEPTH} levels`);
    expect(err.offset).toBe(MAX_JSON_DEPTH);
    expect(syntaxError(() => parseJsonLossless(`${'{"a":'.repeat(600)}${BIG}${'}'.repeat(600)}`)).detail).toMatch(
      /nesting/,
    );
    expect(syntaxError(() => parseJsonLossless(nest(MAX_JSON_DEPTH + 1, '') + BIG)).detail).toMatch(/nesting/);
  });

  it('never overflows the stack, even 100,000 levels deep', () => {
    expect(syntaxError(() => parseJsonLossless(nest(100_000, BIG))).detail).toMatch(/nesting/);
    expect(syntaxError(() => parseJsonLosslessSlow(nest(100_000, '1'))).detail).toMatch(/nesting/);
  });

  it('bounds the JSON.parse fast path too: 5,000 levels are a JsonDepthError, not a stack overflow later', () => {
    for (const text of [
      nest(5_000, '1'),
      nest(5_000, ''),
      `{"a":${nest(MAX_JSON_DEPTH, '"x"')}}`,
      `{"a":"[[[[","c":${'{"b":'.repeat(600)}1${'}'.repeat(600)}}`,
    ]) {
      const err = syntaxError(() => parseJsonLossless(text));
      expect(err).toBeInstanceOf(JsonDepthError);
      expect(err.message).toMatch(/nesting deeper than 512 levels/);
      expect(() => parseJsonLossless(new TextEncoder().encode(text))).toThrow(JsonDepthError);
    }
    // brackets inside strings do not count
    expect(parseJsonLossless(`{"a":"${'['.repeat(5000)}","b":${String.raw`"\\"`}}`)).toEqual({
      a: '['.repeat(5000),
      b: '\\',
    });
    expect(() => parseJsonLossless(nest(MAX_JSON_DEPTH, '1'))).not.toThrow();
  });
});

describe('parseJsonLossless: syntax errors', () => {
  it('formats the message with line and column', () => {
    const text = '{\n  "a": 1,\n  "b": [1, 2, 3,';
    for (const input of [text, text.replace('1,', `${BIG},`)]) {
      const err = syntaxError(() => parseJsonLossless(input));
      expect(err.message).toBe('invalid JSON at line 3, column 17: unexpected end of input');
      expect(err.name).toBe('JsonSyntaxError');
      expect([err.line, err.column, err.offset]).toEqual([3, 17, text.length + (input === text ? 0 : BIG.length - 1)]);
    }
  });

  it.each([
    ['', 0, 'unexpected end of input'],
    ['   ', 3, 'unexpected end of input'],
    ['[1, 2', 5, 'unexpected end of input'],
    ['[1,]', 3, 'unexpected character "]", expected a value'],
    ['{"a":1,}', 7, 'unexpected character "}", expected a string key'],
    ['{"a" 1}', 5, 'unexpected character "1", expected ":" after the key'],
    ['{a:1}', 1, 'unexpected character "a", expected a string key'],
    ["{'a':1}", 1, 'unexpected character "\'", expected a string key'],
    ['[1 2]', 3, 'unexpected character "2", expected "," or "]"'],
    ['{"a":1 "b":2}', 7, 'unexpected character "\\"", expected "," or "}"'],
    ['[1}', 2, 'unexpected character "}", expected "," or "]"'],
    ['1 2', 2, 'unexpected data after the JSON value'],
    ['{}x', 2, 'unexpected data after the JSON value'],
    ['01', 1, 'unexpected data after the JSON value'],
    ['-', 1, 'unexpected end of input'],
    ['-a', 1, 'unexpected character "a", expected a digit'],
    ['1.', 2, 'unexpected end of input'],
    ['1.e5', 2, 'unexpected character "e", expected a digit after "."'],
    ['.5', 0, 'unexpected character ".", expected a value'],
    ['1e', 2, 'unexpected end of input'],
    ['1e+', 3, 'unexpected end of input'],
    ['+1', 0, 'unexpected character "+", expected a value'],
    ['tru', 0, 'unexpected character "t", expected a value'],
    ['nul', 0, 'unexpected character "n", expected a value'],
    ['NaN', 0, 'unexpected character "N", expected a value'],
    ['Infinity', 0, 'unexpected character "I", expected a value'],
    ['[1] // c', 4, 'unexpected data after the JSON value'],
    ['\u00a01', 0, 'unexpected character "\u00a0", expected a value'],
    ['\ufeff1', 0, 'unexpected character "\ufeff", expected a value'],
    ['"abc', 4, 'unexpected end of input (unterminated string)'],
    ['"a\\', 3, 'unexpected end of input'],
    ['"a\nb"', 2, 'control character U+000A in string (must be escaped)'],
    ['"a\tb"', 2, 'control character U+0009 in string (must be escaped)'],
    ['"\\x41"', 1, 'invalid escape "\\\\x" in string'],
    ['"\\u12"', 1, 'invalid escape "\\\\u12\\"" in string'],
    ['"\\u12G4"', 1, 'invalid escape "\\\\u12G4" in string'],
    ['"\\U0041"', 1, 'invalid escape "\\\\U" in string'],
    ['["a" "b"]', 5, 'unexpected character "\\"", expected "," or "]"'],
    ['😀', 0, 'unexpected character "😀", expected a value'],
  ])('%j fails at offset %i: %s', (text, offset, detail) => {
    expect(() => JSON.parse(text)).toThrow(SyntaxError);
    for (const err of [syntaxError(() => parseJsonLossless(text)), syntaxError(() => parseJsonLosslessSlow(text))]) {
      expect(err.detail).toBe(detail);
      expect(err.offset).toBe(offset);
      expect(err.line).toBe(1);
      expect(err.column).toBe(offset + 1);
    }
  });

  it('counts lines and columns after newlines', () => {
    const err = syntaxError(() => parseJsonLossless('[\n1,\r\n  2,\n\n     x]'));
    expect([err.line, err.column]).toEqual([5, 6]);
    expect(err.message).toMatch(/^invalid JSON at line 5, column 6: unexpected character "x"/);
  });

  it('locates the error when the big integer comes before it', () => {
    const err = syntaxError(() => parseJsonLossless(`{"n": ${BIG},\n"m": tru}`));
    expect([err.line, err.column, err.offset]).toEqual([2, 6, 33]);
  });

  it('always fails with a JsonSyntaxError on random garbage', () => {
    fc.assert(
      fc.property(fc.json(), fc.nat(), fc.string({ maxLength: 3 }), (text, at, junk) => {
        const broken = text.slice(0, at % (text.length + 1)) + junk;
        let expectedOk = true;
        try {
          JSON.parse(broken);
        } catch {
          expectedOk = false;
        }
        if (expectedOk) {
          expect(lossy(parseJsonLossless(broken))).toEqual(JSON.parse(broken));
        } else {
          const err = syntaxError(() => parseJsonLossless(broken));
          expect(err.offset).toBeGreaterThanOrEqual(0);
          expect(err.offset).toBeLessThanOrEqual(broken.length);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('stringifyJson', () => {
  it('writes bigints as bare integers', () => {
    expect(stringifyJson(18446744073709551615n)).toBe('18446744073709551615');
    expect(stringifyJson({ a: [1, -9223372036854775808n, 'x'], b: null })).toBe(
      '{"a":[1,-9223372036854775808,"x"],"b":null}',
    );
    expect(stringifyJson(1n)).toBe('1');
  });

  it('behaves like JSON.stringify otherwise', () => {
    const odd = {
      a: undefined,
      b: Number.NaN,
      c: [undefined, Number.POSITIVE_INFINITY],
      d: '\u2028"\\\n',
      e: -0,
      f: 1e21,
    } as unknown as JsonValue;
    expect(stringifyJson(odd)).toBe(JSON.stringify(odd));
    fc.assert(
      fc.property(fc.jsonValue(), (v) => stringifyJson(v as JsonValue) === JSON.stringify(v)),
      { numRuns: 300 },
    );
  });

  it('keeps an own __proto__ key', () => {
    const value = parseJsonLossless('{"__proto__":{"x":1}}');
    expect(stringifyJson(value)).toBe('{"__proto__":{"x":1}}');
  });

  it('writes a JsonNumber as its literal, also next to bigints', () => {
    expect(stringifyJson({ a: new JsonNumber('1e400') })).toBe('{"a":1e400}');
    expect(stringifyJson([new JsonNumber('-0'), 1n, new JsonNumber('1.50')])).toBe('[-0,1,1.50]');
    // plain JSON.stringify still works (the nearest number), for callers that are not lossless
    expect(JSON.stringify({ a: new JsonNumber('1.50') })).toBe('{"a":1.5}');
  });

  it('refuses (JsonDepthError) rather than overflowing the stack on values nested too deep', () => {
    let deep: JsonValue = 1;
    for (let i = 0; i < 5_000; i++) deep = [deep];
    expect(() => stringifyJson(deep)).toThrow(JsonDepthError);
    expect(() => stringifyJson({ x: 1n, deep })).toThrow(JsonDepthError);
    let v: JsonValue = 1;
    for (let i = 0; i < 600; i++) v = { a: v }; // JSON.stringify manages it, the bound still holds
    expect(() => stringifyJson(v)).toThrow(/cannot write JSON nesting deeper than 512 levels/);
    let ok: JsonValue = 1;
    for (let i = 0; i < MAX_JSON_DEPTH; i++) ok = [ok];
    expect(parseJsonLossless(stringifyJson(ok))).toEqual(ok);
  });
});

describe('round trip', () => {
  const unsafeBigInt = fc.oneof(
    fc.bigInt({ min: BigInt(Number.MAX_SAFE_INTEGER) + 1n, max: 2n ** 70n }),
    fc.bigInt({ min: -(2n ** 70n), max: -BigInt(Number.MAX_SAFE_INTEGER) - 1n }),
  );
  // Integral doubles beyond 2^53 come back as bigint by design, and -0 as 0: leave them out.
  const number = fc
    .double({ noNaN: true, noDefaultInfinity: true })
    .filter((d) => !Object.is(d, -0) && (!Number.isInteger(d) || Number.isSafeInteger(d)));
  const { value } = fc.letrec<{ value: JsonValue }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constant(null),
      fc.boolean(),
      fc.integer(),
      number,
      unsafeBigInt,
      fc.string({ unit: 'grapheme' }),
      fc.array(tie('value')),
      fc.dictionary(fc.string(), tie('value')),
    ),
  }));

  it('parseJsonLossless(stringifyJson(v)) deep-equals v', () => {
    fc.assert(
      fc.property(value, (v) => {
        expect(parseJsonLossless(stringifyJson(v))).toEqual(v);
        expect(parseJsonLossless(new TextEncoder().encode(stringifyJson(v)))).toEqual(v);
      }),
      { numRuns: 500 },
    );
  });

  it('returns integral doubles beyond 2^53 as bigints of the digits written', () => {
    // String(2 ** 60) is the shortest round-trip form, 1152921504606847000, not 2^60 itself.
    expect(parseJsonLossless(stringifyJson([1e20, 2 ** 60]))).toEqual([100000000000000000000n, 1152921504606847000n]);
  });
});
