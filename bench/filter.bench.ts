// Filter engine: evaluation over 1,000,000 in-memory connection rows with a three-clause filter,
// and parse + check of a 1,000-character filter.
// Run: node scripts/bench.mjs bench/filter.bench.ts
import { ok } from 'node:assert/strict';
import { KafkaConnectionState } from '../src/api/schema/index.ts';
import { checkFilter, compileFilter, compileOrderBy } from '../src/filter/index.ts';
import { parseFilter } from '../src/filter/parser.ts';
import { checkTree } from '../src/filter/checker.ts';
import { reportFigure, round, timeIt } from './lib/figures.ts';

const ROWS = 1_000_000;

/** Deterministic PRNG (mulberry32). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Rows shaped like decodeMessage(KafkaConnection, ...) output; nested objects come from small pools. */
function buildRows(): object[] {
  const rnd = prng(7);
  const int = (n: number): number => Math.floor(rnd() * n);
  const stats = (): object => ({
    fetchBytes: BigInt(int(1e9)),
    produceBatchCount: BigInt(int(1e6)),
    produceBytes: BigInt(int(1e9)),
    requestCount: BigInt(int(1e6)),
  });
  const pool = <T>(n: number, make: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => make(i));
  const auths = pool(16, (i) => ({
    mechanism: 'AUTHENTICATION_MECHANISM_SASL_SCRAM',
    state: 'AUTHENTICATION_STATE_SUCCESS',
    userPrincipal: `user-${i}`,
  }));
  const versions = pool(16, () => Object.fromEntries(Array.from({ length: 20 }, (_, k) => [String(k), int(17)])));
  const inflight = pool(16, () => ({
    hasMoreRequests: false,
    sampledInFlightRequests: [{ apiKey: int(70), inFlightDuration: BigInt(int(5e9)) }],
  }));
  const statPool = pool(64, stats);
  const states = KafkaConnectionState.values;
  const software = ['apache-kafka-java', 'librdkafka', 'franz-go', 'sarama', 'kafka-python'];
  const base = 1_756_720_974_000_000_000n;
  const rows: object[] = new Array(ROWS);
  for (let i = 0; i < ROWS; i++) {
    const closed = rnd() < 0.1;
    rows[i] = {
      apiVersions: versions[i & 15],
      authenticationInfo: auths[i & 15],
      clientId: `client-${int(5000)}`,
      clientSoftwareName: software[int(software.length)],
      clientSoftwareVersion: `1.${int(10)}.0`,
      closeTime: closed ? base : 0n,
      groupId: rnd() < 0.5 ? `orders-${int(50)}` : '',
      groupInstanceId: '',
      groupMemberId: '',
      idleDuration: BigInt(int(120)) * 1_000_000_000n,
      inFlightRequests: inflight[i & 15],
      listenerName: 'internal',
      nodeId: int(9),
      openTime: base - BigInt(int(86_400)) * 1_000_000_000n,
      recentRequestStatistics: statPool[i & 63],
      shardId: int(4),
      source: { ipAddress: `10.0.${int(255)}.${int(255)}`, port: 30000 + int(30000) },
      state: closed ? states[3] : states[1 + int(2) * (rnd() < 0.05 ? 1 : 0)],
      tlsInfo: { enabled: rnd() < 0.5 },
      totalRequestStatistics: statPool[(i >> 6) & 63],
      transactionalId: '',
      uid: `uid-${i}`,
    };
  }
  return rows;
}

const rows = buildRows();
const filter = compileFilter('state = KAFKA_CONNECTION_STATE_OPEN AND node_id = 3 AND idle_duration > 30s', {
  resource: 'connections',
  dialect: 'server',
});
let matched = 0;
const evalRun = (): void => {
  let n = 0;
  for (let i = 0; i < rows.length; i++) if (filter.matches(rows[i] as object)) n++;
  matched = n;
};
const evalTiming = timeIt(evalRun, { warmup: 3, runs: 15 });
ok(matched > 0 && matched < ROWS, `unexpected match count ${matched}`);
const perSecond = ROWS / (evalTiming.medianMs / 1000);
reportFigure({
  name: 'filter.eval_records_per_s',
  value: Math.round(perSecond),
  unit: 'records/s',
  goal: { op: '>=', value: 20_000_000 },
  note: `3-clause AND over ${ROWS} rows: median ${round(evalTiming.medianMs)} ms, ${matched} matches`,
});

// Extended filter with OR, NOT and a wildcard, same rows (no goal: for comparison).
const ext = compileFilter(
  '(node_id = 1 OR node_id = 2) NOT state = KAFKA_CONNECTION_STATE_CLOSED client_id = "client-1*"',
  {
    resource: 'connections',
    dialect: 'extended',
  },
);
const extTiming = timeIt(
  () => {
    let n = 0;
    for (let i = 0; i < rows.length; i++) if (ext.matches(rows[i] as object)) n++;
    matched = n;
  },
  { warmup: 2, runs: 9 },
);
reportFigure({
  name: 'filter.eval_extended_records_per_s',
  value: Math.round(ROWS / (extTiming.medianMs / 1000)),
  unit: 'records/s',
});

// Parse + check of a 1,000-character server filter.
const clauses = [
  'state = KAFKA_CONNECTION_STATE_OPEN',
  'node_id >= 1',
  'client_software_name = "apache-kafka-java"',
  'idle_duration < 1h30m',
  'open_time > 2025-01-01T00:00:00.123456789Z',
  'authentication_info.user_principal != "User:alice"',
  'total_request_statistics.request_count > 1000',
  'tls_info.enabled = true',
  'source.port <= 65535',
  'client_id != "consumer-\\x41-1"',
];
let long = '';
for (let i = 0; long.length < 1000; i++) {
  const next = (long === '' ? '' : ' AND ') + clauses[i % clauses.length];
  if (long.length + next.length > 1000) break;
  long += next;
}
long = long.padEnd(1000, ' ');
ok(long.length === 1000 && checkFilter(long, { resource: 'connections', dialect: 'server' }).ok);
const REPS = 200;
const parseTiming = timeIt(
  () => {
    for (let i = 0; i < REPS; i++) {
      const syntax = parseFilter(long, 'server');
      if (syntax !== undefined) checkTree(syntax, { resource: 'connections', dialect: 'server', input: long });
    }
  },
  { warmup: 20, runs: 30 },
);
reportFigure({
  name: 'filter.parse_check_1000_chars_ms',
  value: round(parseTiming.medianMs / REPS, 4),
  unit: 'ms',
  goal: { op: '<=', value: 1 },
  note: 'parse + check of a 1,000-character server-dialect filter (median)',
});
const compileTiming = timeIt(
  () => {
    for (let i = 0; i < REPS; i++) compileFilter(long, { resource: 'connections', dialect: 'server' });
  },
  { warmup: 20, runs: 30 },
);
reportFigure({
  name: 'filter.compile_1000_chars_ms',
  value: round(compileTiming.medianMs / REPS, 4),
  unit: 'ms',
  note: 'parse + check + print + closures',
});

// order_by over 100,000 rows (no goal).
const order = compileOrderBy('node_id desc, client_id', { resource: 'connections', dialect: 'server' });
const slice = rows.slice(0, 100_000);
const sortTiming = timeIt(
  () => {
    slice.slice().sort(order.compare);
  },
  { warmup: 1, runs: 5 },
);
reportFigure({
  name: 'filter.sort_100k_ms',
  value: round(sortTiming.medianMs),
  unit: 'ms',
  note: 'order_by "node_id desc, client_id" + uid tie-break',
});
