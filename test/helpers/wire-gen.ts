/**
 * fast-check arbitraries of wire answers built from the schema, as an independent protobuf JSON
 * encoder might write them: any subset of fields present (plain fields left out at their default
 * or written anyway, optional fields and one-of members set or not, nested messages absent or
 * `{}`), each width at its extremes, int64 as strings or bare numbers, timestamps in years 1 and
 * 9999 with nanoseconds, negative and nanosecond durations, BOM-led, control-character and
 * lone-surrogate strings, numeric and unknown enum values, snake_case keys, unknown fields.
 */
import fc from 'fast-check';
import { formatWireDuration } from '../../src/api/codec/duration.ts';
import { JsonNumber, type JsonValue } from '../../src/api/codec/lossless-json.ts';
import { formatTimestamp } from '../../src/api/codec/timestamp.ts';
import { camelToSnake, type FieldSpec, type FieldType, type MessageSchema } from '../../src/api/schema/fields.ts';
import { OPERATIONS, type OperationName } from '../../src/api/schema/operations.ts';

type Json = JsonValue;
type Tree = { [key: string]: Json };
const ABSENT: unique symbol = Symbol('absent');
type Maybe = Json | typeof ABSENT;

/** Strings that broke or could break a byte-exact round trip. */
export const EDGE_STRINGS = [
  '',
  'x',
  '\ufeffbom',
  '\ufeff',
  'a\ufeffb',
  'ctl\u0000\u0001\u001f\u007f\u0085',
  '\ud800',
  'x\udc00y',
  '\udbff\udfff',
  '😀',
  '\u202eevil\u2066',
  'é ü 中文',
  '"\\/\b\f\n\r\t',
  '\u2028\u2029',
  ' spaced ',
  '10.0.0.1',
] as const;

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;
const U64_MAX = 2n ** 64n - 1n;
const TS_MIN = -62_135_596_800n * 1_000_000_000n; // 0001-01-01T00:00:00Z
const TS_MAX = 253_402_300_799n * 1_000_000_000n + 999_999_999n; // 9999-12-31T23:59:59.999999999Z
const DUR_MAX = 315_576_000_000n * 1_000_000_000n + 999_999_999n;

const str: fc.Arbitrary<Json> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom<Json>(...EDGE_STRINGS) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) },
);

/** A 64-bit value written as the server does (a string) or as a bare number (bigint: written exactly). */
function int64Form(min: bigint, max: bigint, edges: readonly bigint[]): fc.Arbitrary<Json> {
  const value = fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(...edges) },
    { weight: 1, arbitrary: fc.bigInt({ min, max }) },
  );
  return fc.tuple(value, fc.integer({ min: 0, max: 3 })).map(([v, form]) => (form === 0 ? v : v.toString()));
}

function int32Form(min: number, max: number, edges: readonly number[]): fc.Arbitrary<Json> {
  const value = fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(...edges) },
    { weight: 1, arbitrary: fc.integer({ min, max }) },
  );
  return fc.tuple(value, fc.integer({ min: 0, max: 5 })).map(([v, form]) => (form === 0 ? String(v) : v));
}

const durationArb: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>(
    '0s',
    '1s',
    '30s',
    '-1.500s',
    '0.000000001s',
    '-0.000000001s',
    '1.000000001s',
    '315576000000.999999999s',
    '-315576000000.999999999s',
  ),
  fc.bigInt({ min: -DUR_MAX, max: DUR_MAX }).map((ns) => formatWireDuration(ns)),
);

const timestampArb: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>(
    '0001-01-01T00:00:00.000000001Z',
    '0001-01-01T00:00:00Z',
    '9999-12-31T23:59:59.999999999Z',
    '1970-01-01T00:00:00.000000000Z',
    '1970-01-01T00:00:00Z',
    '1677-09-21T00:12:43.145224191Z',
    '2262-04-11T23:47:16.854775808Z',
    '2025-09-01T10:22:54.123+02:00',
  ),
  fc.bigInt({ min: TS_MIN, max: TS_MAX }).map((ns) => formatTimestamp(ns)),
);

/** Values that only an unknown field can carry: number literals a JS number would change, big integers, nesting. */
const unknownValueArb: fc.Arbitrary<Json> = fc.constantFrom<Json>(
  new JsonNumber('1e400'),
  new JsonNumber('-0'),
  new JsonNumber('1.50'),
  18446744073709551615n,
  '\ufeffx',
  { a: [1, null, true, { b: '\ud800' }] },
  [],
  null,
);

const valueArbs = new WeakMap<FieldType, fc.Arbitrary<Json>>();

/** A JSON value of a field type (present), edge cases weighted in. */
export function valueArb(type: FieldType): fc.Arbitrary<Json> {
  let arb = valueArbs.get(type);
  if (arb !== undefined) return arb;
  switch (type.kind) {
    case 'string':
      arb = str;
      break;
    case 'bool':
      arb = fc.boolean();
      break;
    case 'int32':
      arb = int32Form(-2147483648, 2147483647, [-2147483648, 2147483647, 0, -1, 1]);
      break;
    case 'uint32':
      arb = int32Form(0, 4294967295, [0, 4294967295, 2147483648, 1]);
      break;
    case 'int64':
      arb = int64Form(I64_MIN, I64_MAX, [I64_MIN, I64_MAX, 0n, -1n, 2n ** 53n + 1n]);
      break;
    case 'uint64':
      arb = int64Form(0n, U64_MAX, [0n, U64_MAX, 2n ** 63n, 2n ** 53n + 1n, I64_MAX]);
      break;
    case 'duration':
      arb = durationArb;
      break;
    case 'timestamp':
      arb = timestampArb;
      break;
    case 'enum': {
      const values = type.table.values;
      arb = fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom<Json>(...values) },
        { weight: 1, arbitrary: fc.integer({ min: 0, max: values.length - 1 }) },
        { weight: 1, arbitrary: fc.constant<Json>(`${type.table.prefix}FROM_THE_FUTURE`) },
      );
      break;
    }
    case 'list':
      arb = fc.array(valueArb(type.element), { maxLength: 3 });
      break;
    case 'map': {
      const key =
        type.keyKind === 'int32'
          ? fc.constantFrom('0', '1', '18', '-1', '2147483647', '-2147483648')
          : fc.constantFrom('a', '', '\ufeff');
      arb = fc.dictionary(key, valueArb(type.value), { maxKeys: 3 });
      break;
    }
    case 'message':
      arb = messageArb(type.message);
      break;
  }
  valueArbs.set(type, arb);
  return arb;
}

/** A field: absent, or present with a value (the default value included). */
function fieldArb(spec: FieldSpec): fc.Arbitrary<Maybe> {
  return fc.oneof({ weight: 1, arbitrary: fc.constant<Maybe>(ABSENT) }, { weight: 3, arbitrary: valueArb(spec.type) });
}

const messageArbs = new WeakMap<MessageSchema, fc.Arbitrary<Tree>>();

/** A message as some encoder wrote it: any subset of its fields, at most one member per one-of. */
export function messageArb(schema: MessageSchema): fc.Arbitrary<Tree> {
  const cached = messageArbs.get(schema);
  if (cached !== undefined) return cached;
  const plain: [string, FieldSpec][] = [];
  const groups = new Map<string, [string, FieldSpec][]>();
  for (const [name, spec] of Object.entries(schema.fields)) {
    if (spec.oneof === undefined) plain.push([name, spec]);
    else groups.set(spec.oneof, [...(groups.get(spec.oneof) ?? []), [name, spec]]);
  }
  const plainArb = fc.tuple(...plain.map(([, spec]) => fieldArb(spec)));
  const groupArbs = [...groups.values()].map((members) =>
    fc.oneof(
      fc.constant<[string, Json] | undefined>(undefined),
      ...members.map(([name, spec]) => valueArb(spec.type).map((v): [string, Json] => [name, v])),
    ),
  );
  const arb = fc
    .tuple(
      plainArb,
      fc.tuple(...groupArbs),
      fc.option(unknownValueArb, { freq: 6 }),
      fc.boolean(),
      fc.integer({ min: 0, max: 9 }),
    )
    .map(([values, chosen, unknown, snake, shuffle]) => {
      const entries: [string, Json][] = [];
      plain.forEach(([name], i) => {
        const v = values[i];
        if (v !== ABSENT) entries.push([name, v as Json]);
      });
      for (const c of chosen) if (c !== undefined) entries.push(c);
      if (shuffle === 0) entries.reverse();
      const out: Tree = {};
      for (const [name, v] of entries) out[snake && shuffle === 1 ? camelToSnake(name) : name] = v;
      if (unknown !== null) out.zFutureField = unknown;
      return out;
    });
  messageArbs.set(schema, arb);
  return arb;
}

/** An answer body (JSON tree) of an operation. */
export function answerArb(op: OperationName): fc.Arbitrary<Tree> {
  return messageArb(OPERATIONS[op].response);
}
