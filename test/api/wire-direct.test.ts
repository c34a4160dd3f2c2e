import { execFileSync } from 'node:child_process';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonLossless } from '../../src/api/codec/lossless-json.ts';
import { f, message, type MessageSchema } from '../../src/api/schema/fields.ts';
import { OPERATIONS, OPERATION_NAMES, type OperationName } from '../../src/api/schema/operations.ts';
import { encodeAnswer, parseAnswer } from '../../src/api/wire/answers.ts';
import { decodeMessage } from '../../src/api/wire/decode.ts';
import { decodeMessageBytes, tryDecodeDirect } from '../../src/api/wire/direct-decoder.ts';
import { ConnectionWorld } from '../helpers/connection-answers.ts';
import { rng, sampleMessage } from '../helpers/sample-values.ts';

const LIST = OPERATIONS.ListKafkaConnections.response;
const UPGRADE = OPERATIONS.GetUpgradeStatus.response;
const bytes = (text: string): Buffer => Buffer.from(text, 'utf8');

/** What the reference path gives: the value, or the error's class, message and path. */
function reference(schema: MessageSchema, body: Uint8Array): unknown {
  try {
    return { value: decodeMessage(schema, parseJsonLossless(body)) };
  } catch (err) {
    return failure(err);
  }
}

function direct(schema: MessageSchema, body: Uint8Array): unknown {
  try {
    return { value: decodeMessageBytes(schema, body) };
  } catch (err) {
    return failure(err);
  }
}

function failure(err: unknown): unknown {
  const e = err as Error & { path?: string };
  return { error: e.constructor.name, message: e.message, path: e.path };
}

/** A value as nested [key, value] lists, so that a comparison also checks the order of keys. */
function ordered(v: unknown): unknown {
  if (Array.isArray(v)) return ['array', v.map(ordered)];
  if (v !== null && typeof v === 'object') {
    return [
      'object',
      Object.getPrototypeOf(v) === Object.prototype,
      Object.entries(v).map(([k, x]) => [k, ordered(x)]),
    ];
  }
  return [typeof v, v];
}

/** The direct decoder gives exactly the reference's value or error, keys in the same order. */
function expectSame(schema: MessageSchema, body: Uint8Array): void {
  expect(ordered(direct(schema, body))).toEqual(ordered(reference(schema, body)));
}

/** The direct decoder reads this body itself (no fallback) and gives the reference's value. */
function expectDirect(schema: MessageSchema, body: Uint8Array): void {
  const value = tryDecodeDirect(schema, body);
  expect(value).toBeDefined();
  expect(ordered({ value })).toEqual(ordered(reference(schema, body)));
}

const connection = (fields: string): string => `{"connections":[{${fields}}],"totalSize":"1"}`;

describe('direct decoder: the forms the server writes are read in place', () => {
  it.each(OPERATION_NAMES)('%s: fully populated answers', (op: OperationName) => {
    for (let seed = 1; seed <= 5; seed++) {
      const text = encodeAnswer(op, sampleMessage(OPERATIONS[op].response, rng(seed)) as never);
      expectSame(OPERATIONS[op].response, bytes(text));
    }
  });

  it('simulated connection answers, with unknown fields and counters at the edges of int64', () => {
    const world = new ConnectionWorld({
      connections: 300,
      churn: 0.05,
      seed: 9,
      unknownFields: true,
      hugeCounters: true,
    });
    for (let i = 0; i < 4; i++) {
      const body = bytes(encodeAnswer('ListKafkaConnections', world.next().answer));
      expectDirect(LIST, body);
      expect(parseAnswer('ListKafkaConnections', body)).toEqual(
        parseAnswer('ListKafkaConnections', body.toString('utf8')),
      );
    }
  });

  it('plain simulated answers never fall back to the reference path', () => {
    const world = new ConnectionWorld({ connections: 200, churn: 0.02, seed: 3, shuffle: true });
    for (let i = 0; i < 3; i++) expectDirect(LIST, bytes(encodeAnswer('ListKafkaConnections', world.next().answer)));
  });

  it('reads int64 and uint64 at their extremes exactly, as strings and as bare numbers', () => {
    const bodies = [
      '{"activeVersion":"9223372036854775807","versionAfterFinalization":"-9223372036854775808"}',
      '{"activeVersion":9223372036854775807,"versionAfterFinalization":-9223372036854775808}',
      '{"activeVersion":"999999999999999","versionAfterFinalization":"-999999999999999"}',
      '{"activeVersion":"1000000000000000","versionAfterFinalization":"9007199254740993"}',
      '{"activeVersion":"-0","versionAfterFinalization":"007"}',
      '{"activeVersion":1023,"versionAfterFinalization":"1024"}',
    ];
    for (const body of bodies) expectSame(UPGRADE, bytes(body));
    const max = decodeMessageBytes(UPGRADE, bytes(bodies[0]!));
    expect(max.activeVersion).toBe(9223372036854775807n);
    expect(max.versionAfterFinalization).toBe(-9223372036854775808n);
    expect(decodeMessageBytes(UPGRADE, bytes(bodies[1]!)).versionAfterFinalization).toBe(-9223372036854775808n);
  });

  it('reads int32 and uint32 at their extremes, and every integer form JSON allows', () => {
    const ports = [
      '0',
      '-0',
      '2147483647',
      '-2147483648',
      '2147483648',
      '1.0',
      '1e3',
      '"42"',
      '-1',
      '4294967295',
      '01',
      '-01',
      '00',
      '-',
    ];
    for (const port of [...ports, '12345678901']) {
      expectSame(LIST, bytes(connection(`"source":{"ipAddress":"h","port":${port}}`)));
    }
  });

  it('reads every scalar kind of a schema, unsigned ones and string-keyed maps included', () => {
    const inner = message('Inner', { n: f.int32() });
    const all = message('All', {
      u64: f.uint64(),
      u32: f.uint32(),
      i64: f.int64(),
      flag: f.bool(),
      names: f.map('string', f.string()),
      byId: f.map('int32', f.message(inner)),
      lists: f.list(f.list(f.int64())),
    });
    const bodies = [
      '{"u64":"18446744073709551615","u32":4294967295,"i64":"-5","flag":false}',
      '{"u64":"-0","u32":-0,"i64":"-0"}',
      '{"u64":"-5"}',
      '{"u64":"-"}',
      '{"u64":""}',
      '{"u64":" 5"}',
      '{"u64":18446744073709551616}',
      '{"u32":-1}',
      '{"u32":4294967296}',
      '{"flag":true,"names":{"a":"x","b":"y","3":"z","__proto__":"p"}}',
      '{"names":{"a":1}}',
      '{"byId":{"0":{"n":1},"17":{"n":2},"-3":{},"007":{"n":3},"4294967295":{},"1234567890":{}}}',
      '{"byId":{"12345678901":{}}}',
      '{"byId":{"00":{}}}',
      '{"byId":{"1":{"n":1},"1":{"n":2}}}',
      '{"lists":[["1","2"],[],[3,"-4"]]}',
      '{"lists":[[null]]}',
    ];
    for (const body of bodies) expectSame(all, bytes(body));
    expectDirect(all, bytes(bodies[0]!));
    expectDirect(all, bytes(bodies[11]!));
  });

  it('builds int32-keyed maps by a literal per key set exactly as entry by entry', () => {
    const inner = message('Inner', { versions: f.map('int32', f.int32()) });
    const schema = message('Maps', { byId: f.map('int32', f.message(inner)), versions: f.map('int32', f.int32()) });
    const map = (keys: (string | number)[]): string => `{${keys.map((k, i) => `"${k}":${i}`).join(',')}}`;
    const sets: (string | number)[][] = [
      [3, 10, 17, 60],
      [60, 17, 10, 3], // not ascending
      [3, 3, 10], // a key twice: the last value
      [0],
      [999999999, 0, 5],
      [1000000000, 5], // an index too long for the literal
      [3, 10, '-1', 17], // a key that is not an index: the rest entry by entry
      ['007', 3],
      Array.from({ length: 70 }, (_, i) => i * 2), // more keys than a literal takes
      [],
    ];
    for (let round = 0; round < 2; round++) {
      for (const keys of sets) {
        expectDirect(schema, bytes(`{"versions":${map(keys)},"byId":{"1":{"versions":${map(keys)}},"2":{}}}`));
      }
    }
    // more key sets than a field remembers: the others are built entry by entry
    for (let i = 0; i < 300; i++) expectDirect(schema, bytes(`{"versions":${map([i, i + 1, 1000 + (i % 7)])}}`));
  });

  it('leaves messages of more than 31 fields to the compiled decoder, nested or not', () => {
    const wide = message('Wide', Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`f${i}`, f.int32()])));
    const outer = message('Outer', { wide: f.message(wide), list: f.list(f.message(wide)) });
    const fields = (n: number) => Array.from({ length: n }, (_, i) => `"f${i}":${i}`).join(',');
    for (const body of [`{${fields(40)}}`, `{${fields(40)},"f3":7}`, `{"f39":1,"f0":2}`, '{"f1":true}']) {
      expectSame(wide, bytes(body));
      expectSame(outer, bytes(`{"wide":${body},"list":[${body},{}]}`));
    }
    expectDirect(outer, bytes(`{"wide":{${fields(40)}},"list":[]}`));
  });

  it('keeps unknown fields at every level, in order, with exact big numbers', () => {
    const body = connection(
      '"zeta":1,"uid":"u","99":[1,{"b":2}],"source":{"port":1,"zone":{"x":null}},"alpha":18446744073709551615,' +
        '"totalRequestStatistics":{"fetchRecords":"5","fetchBytes":"7"},"inFlightRequests":{"sampledInFlightRequests":[{"apiKey":1,"x":true}]}',
    );
    expectDirect(LIST, bytes(body));
    const value = decodeMessageBytes(LIST, bytes(body)) as { connections: { $unknown: Record<string, unknown> }[] };
    expect(value.connections[0]!.$unknown).toEqual({ zeta: 1, 99: [1, { b: 2 }], alpha: 18446744073709551615n });
  });

  it('fills missing fields with defaults and skips null, as the reference does', () => {
    for (const body of [
      '{}',
      '{"connections":[{}]}',
      connection('"uid":null,"source":null,"apiVersions":null'),
      '{"connections":null}',
    ]) {
      expectDirect(LIST, bytes(body));
    }
    const iceberg = OPERATIONS.GetIcebergStatus.response;
    expectDirect(
      iceberg,
      bytes('{"topics":[{"topic":"t","partitions":[{"partition":0,"lastCommittedOffset":null}]}]}'),
    );
    expectDirect(
      iceberg,
      bytes('{"topics":[{"topic":"t","partitions":[{"partition":0,"lastCommittedOffset":"12"}]}]}'),
    );
  });

  it('reads snake_case keys, keys out of order, whitespace, escapes, non-ASCII text and a BOM', () => {
    const bodies = [
      connection('"client_id":"a","uid":"b","node_id":3,"api_versions":{"3":1}'),
      connection('"uid":"x","clientId":"y","apiVersions":{"10":1,"3":2,"07":4,"-1":5}'),
      ' \n{ "connections" : [ { "uid" : "a\\"b\\u00e9\\ud83d\\ude00" , "clientId":"\\/x" } ] ,\t"totalSize":"2" }\r\n',
      connection('"\\u0075id":"escaped key","clientId":"é ünïcode ✓ 😀","userPrincipal":"x"'),
      `\ufeff${connection('"uid":"after a BOM"')}`,
      connection('"uid":"\ufeffa BOM inside a string","clientId":"\u2028\u2029"'),
    ];
    for (const body of bodies) expectSame(LIST, bytes(body));
  });

  it('decodes enums, timestamps and durations in every accepted form, through the text caches', () => {
    const forms = [
      '"state":3,"openTime":"2025-09-01T12:22:54.5+02:00","idleDuration":"-1.5s"',
      '"state":"KAFKA_CONNECTION_STATE_NEW_THING","openTime":"2025-09-01T10:22:54Z","idleDuration":"0.000000001s"',
      '"state":"KAFKA_CONNECTION_STATE_OPEN","openTime":"1970-01-01T00:00:00.000000000Z","idleDuration":"60s"',
    ];
    // twice: the second time the texts come from the caches
    for (let round = 0; round < 2; round++) for (const f of forms) expectDirect(LIST, bytes(connection(f)));
    const alias =
      '{"shadowLink":{"configurations":{"consumerOffsetSyncOptions":{"groupFilters":[{"patternType":"PATTERN_TYPE_PREFIXED"}]}}}}';
    expectSame(OPERATIONS.GetShadowLink.response, bytes(alias));
  });

  it('builds records in one step or field by field with the same keys in the same order', () => {
    const full = (fields: string) =>
      `{"fetchBytes":"1","produceBatchCount":"2","produceBytes":"3","requestCount":"4"${fields}}`;
    const stats = [
      full(''), // in schema order: one step
      full(',"extra":{"a":1}'),
      '{"extra":1,"fetchBytes":"1","produceBatchCount":"2","produceBytes":"3","requestCount":"4"}',
      '{"produceBatchCount":"2","fetchBytes":"1","produceBytes":"3","requestCount":"4"}', // out of order
      '{"fetchBytes":"1","produceBatchCount":null,"produceBytes":"3","requestCount":"4"}', // null: a default, last
      '{"fetchBytes":"1","produceBytes":"3"}', // gaps
      '{"fetchBytes":"1","produceBatchCount":"2"}', // a prefix
      '{"requestCount":"4"}',
      '{"fetch_bytes":"1","produceBatchCount":"2","produceBytes":"3","requestCount":"4"}',
      '{}',
    ];
    for (const s of stats) {
      const body = bytes(
        `{"connections":[{"totalRequestStatistics":${s},"recentRequestStatistics":${full('')}},{"totalRequestStatistics":${s}}]}`,
      );
      expectDirect(LIST, body);
    }
  });

  it('keeps nothing of an answer once it is decoded (both decoders)', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    // the flag back as it was: V8 refuses a code cache made under other flags, and this process runs
    // other files after this one (test/cli/code-cache.test.ts checks dist's cache); gc stays usable
    setFlagsFromString('--no-expose-gc');
    const body = bytes(
      encodeAnswer('ListKafkaConnections', new ConnectionWorld({ connections: 50, seed: 8 }).next().answer),
    );
    const refs = (() => {
      const direct = decodeMessageBytes(LIST, body) as { connections: object[] };
      const reference = decodeMessage(LIST, parseJsonLossless(body)) as { connections: object[] };
      return [
        new WeakRef(direct.connections),
        new WeakRef(direct.connections[49]!),
        new WeakRef(reference.connections),
      ];
    })();
    await new Promise((resolve) => setTimeout(resolve, 0));
    gc();
    expect(refs.map((r) => r.deref() === undefined)).toEqual([true, true, true]);
  });

  it('reuses nothing mutable between answers: an int-keyed map of numbers repeated is one frozen object', () => {
    const body = bytes(connection('"apiVersions":{"3":1},"source":{"ipAddress":"h","port":1}'));
    const a = decodeMessageBytes(LIST, body) as { connections: { apiVersions: object; source: object }[] };
    const b = decodeMessageBytes(LIST, body) as { connections: { apiVersions: object; source: object }[] };
    expect(a.connections[0]!.apiVersions).toBe(b.connections[0]!.apiVersions);
    expect(Object.isFrozen(a.connections[0]!.apiVersions)).toBe(true);
    expect(a.connections[0]!.source).not.toBe(b.connections[0]!.source);
    expect(a).toEqual(b);
    const other = decodeMessageBytes(LIST, bytes(connection('"apiVersions":{"3":2}'))) as {
      connections: { apiVersions: object }[];
    };
    expect(other.connections[0]!.apiVersions).toEqual({ 3: 2 });
    expect(a.connections[0]!.apiVersions).toEqual({ 3: 1 });
  });
});

describe('decoders where code generation is forbidden', () => {
  it('build every record and map field by field, with the same result', () => {
    const script = `
      const { parseAnswer, encodeAnswer } = await import('./src/api/wire/answers.ts');
      const { decodeMessage } = await import('./src/api/wire/decode.ts');
      const { parseJsonLossless } = await import('./src/api/codec/lossless-json.ts');
      const { OPERATIONS } = await import('./src/api/schema/operations.ts');
      const { ConnectionWorld } = await import('./test/helpers/connection-answers.ts');
      const { isDeepStrictEqual } = await import('node:util');
      let refused = false;
      try { new Function('return 1'); } catch { refused = true; }
      const world = new ConnectionWorld({ connections: 40, seed: 5, unknownFields: true });
      const body = Buffer.from(encodeAnswer('ListKafkaConnections', world.next().answer));
      const direct = parseAnswer('ListKafkaConnections', body);
      const reference = decodeMessage(OPERATIONS.ListKafkaConnections.response, parseJsonLossless(body));
      const keys = (a) => JSON.stringify(Object.keys(a.connections[0]));
      const same = isDeepStrictEqual(direct, reference) && keys(direct) === keys(reference);
      process.stdout.write(JSON.stringify({ refused, same, rows: direct.connections.length }));
    `;
    const out = execFileSync(
      process.execPath,
      ['--disallow-code-generation-from-strings', '--import', 'tsx', '--input-type=module', '-e', script],
      {
        cwd: new URL('../..', import.meta.url),
        encoding: 'utf8',
      },
    );
    expect(JSON.parse(out)).toEqual({ refused: true, same: true, rows: 40 });
  });
});

describe('direct decoder: everything else gives the reference result or error', () => {
  it('reports wrong types with the path and message of the reference', () => {
    const cases: [string, string][] = [
      ['{"activeVersion":true}', 'activeVersion: expected int64, got true'],
      ['{"activeVersion":"12a"}', 'activeVersion: expected int64, got "12a"'],
      ['{"activeVersion":1.5}', 'activeVersion: expected int64, got 1.5'],
      ['{"activeVersion":9007199254740993.5}', 'activeVersion: expected int64, got 9007199254740993.5'],
      ['{"activeVersion":1e400}', 'activeVersion: value 1e400 out of range for int64'],
    ];
    for (const [body, message] of cases) {
      expectSame(UPGRADE, bytes(body));
      expect(() => decodeMessageBytes(UPGRADE, bytes(body))).toThrow(message);
    }
    // an integral literal in any JSON number form is exact (the literal is kept, not rounded)
    for (const form of ['9007199254740993.0', '9007199254740993e0', '90071992547409930E-1']) {
      expectSame(UPGRADE, bytes(`{"activeVersion":${form}}`));
      expect(decodeMessageBytes(UPGRADE, bytes(`{"activeVersion":${form}}`)).activeVersion).toBe(9007199254740993n);
    }
    const list = [
      connection('"clientId":5'),
      connection('"tlsInfo":{"enabled":"yes"}'),
      connection('"state":true'),
      connection('"apiVersions":{"x":1}'),
      connection('"apiVersions":{"3":"9x"}'),
      connection('"apiVersions":{"3":null}'),
      '{"connections":{}}',
      '{"connections":[null]}',
      connection('"source":"host"'),
      connection('"idleDuration":"5 minutes"'),
      connection('"openTime":"2025-13-01T00:00:00Z"'),
      '{"totalSize":1.5}',
      '[]',
      '"text"',
    ];
    for (const body of list) expectSame(LIST, bytes(body));
    expect(() => decodeMessageBytes(LIST, bytes(connection('"totalRequestStatistics":{"produceBytes":true}')))).toThrow(
      'connections[0].totalRequestStatistics.produceBytes: expected uint64, got true',
    );
  });

  it('reports malformed JSON as the reference does', () => {
    const bodies = [
      '',
      ' ',
      '{',
      '{"connections":[',
      '{"uid":"a}',
      '{"totalSize":"1",}',
      '{"totalSize":01}',
      '{"x":tru}',
      '{} {}',
      '{"connections":[{"uid":"a\u0001"}]}',
      '{"a":1 "b":2}',
      '{"totalSize":"1"}x',
      '{"x":-}',
      '{"x":[1,]}',
      '{"x":{"a" 1}}',
    ];
    for (const body of bodies) expectSame(LIST, bytes(body));
  });

  it('gives duplicate keys, one-of conflicts and __proto__ keys the reference treatment', () => {
    const bodies = [
      connection('"uid":"a","uid":"b"'),
      connection('"uid":"a","uid":null'),
      connection('"clientId":"a","client_id":"b"'),
      connection('"x":1,"x":2'),
      connection('"__proto__":{"polluted":1}'),
      connection('"apiVersions":{"3":1,"3":2}'),
    ];
    for (const body of bodies) expectSame(LIST, bytes(body));
    const conflict =
      '{"shadowLink":{"configurations":{"clientOptions":{"authenticationConfiguration":{"plainConfiguration":{},"scramConfiguration":{}}}}}}';
    expectSame(OPERATIONS.GetShadowLink.response, bytes(conflict));
  });

  it('leaves deep nesting and invalid UTF-8 to the reference', () => {
    const deep = `${'['.repeat(600)}${']'.repeat(600)}`;
    for (const body of [connection(`"x":${deep}`), connection(`"x":${deep},"y":12345678901234567890`)])
      expectSame(LIST, bytes(body));
    const invalid = Buffer.concat([
      bytes('{"connections":[{"uid":"a'),
      Buffer.from([0xff, 0xe2, 0x82, 0xed, 0xa0, 0x80]),
      bytes('b"}]}'),
    ]);
    expectSame(LIST, invalid);
    expect(tryDecodeDirect(LIST, invalid)).toBeDefined();
  });

  it('any prefix of an answer gives the reference error', () => {
    const body = bytes(encodeAnswer('ListKafkaConnections', sampleMessage(LIST, rng(4)) as never));
    for (let n = 0; n < body.length; n += 7) expectSame(LIST, body.subarray(0, n));
  });

  it('random damage to an answer gives the reference value or error', () => {
    const body = bytes(encodeAnswer('ListKafkaConnections', sampleMessage(LIST, rng(2)) as never));
    const damage = fc.array(
      fc.tuple(
        fc.nat({ max: body.length - 1 }),
        fc.oneof(fc.constantFrom(...bytes('"{}[],:0123456789-.etrufanl\\ \n')), fc.nat({ max: 255 })),
      ),
      {
        minLength: 1,
        maxLength: 3,
      },
    );
    fc.assert(
      fc.property(damage, fc.boolean(), (edits, insert) => {
        let damaged = Buffer.from(body);
        for (const [at, byte] of edits) {
          damaged = insert
            ? Buffer.concat([damaged.subarray(0, at), Buffer.from([byte]), damaged.subarray(at)])
            : damaged;
          if (!insert) damaged[at] = byte;
        }
        expectSame(LIST, damaged);
      }),
      { numRuns: 300, seed: 7 },
    );
  });
});
