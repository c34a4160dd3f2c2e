/**
 * Generators for fuzzing the command line: random text (any Unicode, control bytes, grammar
 * tokens), valid seeds with random edits, and hostile classics (huge, deeply nested, YAML alias
 * bombs, injection attempts), for filters, order_by, times, durations, config files and saved
 * answers.
 */
import fc from 'fast-check';

const TOKENS = [
  ...'abcdefghijklmnopqrstuvwxyz_.0123456789 ()"\'\\:=<>!-+*,/%;\t\n',
  'AND',
  'OR',
  'NOT',
  ' AND ',
  ' OR ',
  'node_id',
  'client_id',
  'state',
  'idle_duration',
  'open_time',
  'principal',
  'KAFKA_CONNECTION_STATE_OPEN',
  '2026-01-01T00:00:00Z',
  '1h30m',
  'desc',
  'asc',
  'now',
  '-2h',
  '30m',
  '7d',
  'ms',
  'ns',
  '\u0000',
  '\u001b[31m',
  '\u009b',
  '\u202e',
  'é',
  '🚀',
  '\uD800',
  "' OR 1=1 --",
  '"; DROP TABLE poll; --',
  '${x}',
  '%s',
  'NaN',
  '1e309',
];

/** Random text: Unicode strings, control bytes, and sequences of grammar tokens. */
export const randomText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.array(fc.constantFrom(...TOKENS), { maxLength: 30 }).map((xs) => xs.join('')),
);

/** A seed with one to three random edits: insert a token, delete a slice, or replace one. */
export function mutatedFrom(seeds: readonly string[]): fc.Arbitrary<string> {
  const edit = fc.tuple(
    fc.nat(),
    fc.nat({ max: 6 }),
    fc.constantFrom(...TOKENS),
    fc.constantFrom('insert', 'delete', 'replace', 'double'),
  );
  return fc.tuple(fc.constantFrom(...seeds), fc.array(edit, { minLength: 1, maxLength: 3 })).map(([seed, edits]) => {
    let s = seed;
    for (const [at, len, piece, how] of edits) {
      const i = s.length === 0 ? 0 : at % (s.length + 1);
      if (how === 'insert') s = s.slice(0, i) + piece + s.slice(i);
      else if (how === 'delete') s = s.slice(0, i) + s.slice(i + len + 1);
      else if (how === 'double') s = s + s;
      else s = s.slice(0, i) + piece + s.slice(i + len);
    }
    return s;
  });
}

/** Random and mutated inputs of one kind, plus its valid seeds unchanged. */
export function inputsOf(seeds: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: randomText, weight: 2 },
    { arbitrary: mutatedFrom(seeds), weight: 3 },
    { arbitrary: fc.constantFrom(...seeds), weight: 1 },
  );
}

/** Valid filters to mutate. */
export const FILTER_SEEDS = [
  'node_id = 1',
  'state = KAFKA_CONNECTION_STATE_OPEN AND client_id = "orders-service-1"',
  'NOT (node_id = 2) OR authentication_info.user_principal:"User:svc-*"',
  'idle_duration > 30s AND open_time < 2026-01-01T00:10:00Z',
  'client_id = "*"',
  'group_id != "" AND -transactional_id:"tx-*"',
];

/** Valid order_by expressions to mutate. */
export const ORDER_SEEDS = [
  'client_id',
  'node_id desc, client_id',
  'open_time asc',
  'idle_duration desc',
  'authentication_info.user_principal',
];

/** Valid time arguments to mutate. */
export const TIME_SEEDS = [
  '2026-01-01T00:01:00Z',
  '2026-01-01T01:02:03.123456789+02:00',
  'now',
  '-2h',
  '30m',
  '-1d',
  '1h30m',
];

/** Valid durations to mutate. */
export const DURATION_SEEDS = ['30s', '10m', '1h30m', '7d', '500ms', '1.5h', '2w', '0'];

/** A valid config file (every section) to mutate. */
export const CONFIG_SEED = `jitter: 2s
shutdownTimeout: 10s
keepRawAnswers: false
retry:
  maxAttempts: 4
  baseDelay: 500ms
  exhaustedDelay: 5s
  maxDelay: 30s
schedules:
  connections: "*/30 * * * * *"
  shadow: "*/30 * * * * *"
  iceberg: "0 * * * * *"
  upgrade: off
clusters:
  - name: prod
    baseUrl: http://127.0.0.1:9
    servicePrefix: platform.core.admin.v2
    timeout: 10s
    auth:
      kind: basic
      username: flightrec
      passwordEnv: FUZZ_PASSWORD
    shadowLinks:
      - name: dr-primary
        topics: [orders, payments]
      - analytics-mirror
    connections:
      pageSize: 0
      filter: 'state = KAFKA_CONNECTION_STATE_OPEN'
      orderBy: ""
      fanout: true
      maxCalls: 256
    iceberg:
      topics: []
    schedules:
      connections: "*/10 * * * * *"
`;

/** A valid thresholds section (read by timeline, summary and trends) to mutate. */
export const THRESHOLDS_SEED = `thresholds:
  collection:
    gapFactor: 3
`;

/** Config texts: the seed mutated line-wise and character-wise, random text, and YAML classics. */
export const configTexts: fc.Arbitrary<string> = fc.oneof(
  mutatedFrom([CONFIG_SEED, THRESHOLDS_SEED]),
  fc
    .tuple(
      fc.nat(),
      fc.nat({ max: 5 }),
      fc.constantFrom('', '  ', '- ', ': x', '&a [*a]', '!!str', '{', 'clusters: 5', '<<: *a'),
    )
    .map(([at, n, piece]) => {
      const lines = CONFIG_SEED.split('\n');
      const i = at % lines.length;
      lines.splice(i, n, piece + (lines[i] ?? ''));
      return lines.join('\n');
    }),
  randomText,
  fc.constantFrom(
    // the billion laughs: aliases of aliases
    `a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n`,
    `${'['.repeat(5000)}${']'.repeat(5000)}`,
    `clusters:\n${'  - name: x\n    baseUrl: http://127.0.0.1:9\n'.repeat(2000)}`,
    'clusters: !!binary "AAAA"',
    '\uFEFFjitter: 1s\n',
    `jitter: ${'9'.repeat(400)}s`,
  ),
);

/** A saved answer body: a valid one with edits, random bytes, or classics. */
export function answerBodies(valid: readonly string[]): fc.Arbitrary<Uint8Array> {
  return fc.oneof(
    mutatedFrom(valid).map((s) => Buffer.from(s)),
    fc.uint8Array({ maxLength: 200 }),
    randomText.map((s) => Buffer.from(s)),
    fc.constantFrom(
      Buffer.from(`${'['.repeat(100_000)}`),
      Buffer.from(`{"activeVersion": ${'9'.repeat(5000)}}`),
      Buffer.from('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"x": 1}}}'),
      Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]),
      Buffer.from([0xff, 0xfe, 0x7b, 0x00, 0x7d, 0x00]),
      Buffer.alloc(0),
    ),
  );
}
