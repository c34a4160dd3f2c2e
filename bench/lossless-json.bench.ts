// Lossless JSON reader against JSON.parse on a realistic ~11 MB ListKafkaConnections answer.
// Run: node scripts/bench.mjs bench/lossless-json.bench.ts
import { deepStrictEqual, ok } from 'node:assert/strict';
import {
  formatTimestamp,
  formatWireDuration,
  parseJsonLossless,
  stringifyJson,
  type JsonValue,
} from '../src/api/codec/index.ts';
import { needsSlowPath } from '../src/api/codec/lossless-json.ts';
import { reportFigure, round, timeIt } from './lib/figures.ts';

const CONNECTIONS = 10_000;

/** Deterministic PRNG (mulberry32) so every run parses the same bytes. */
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

type Counters = 'string' | 'bare';

/** Builds the answer; `bare` writes the int64 counters as JSON numbers, some above 2^53. */
function buildAnswer(counters: Counters): string {
  const rnd = prng(42);
  const int = (n: number): number => Math.floor(rnd() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)] as T;
  const hex = (n: number): string => Array.from({ length: n }, () => int(16).toString(16)).join('');
  const big = (): bigint => {
    const r = rnd();
    if (r < 0.05) return 2n ** 53n + BigInt(int(1e9)) * 1_000_003n; // beyond the safe range
    if (r < 0.3) return BigInt(int(1e9)) * BigInt(int(1e6));
    return BigInt(int(1e6));
  };
  const counter = (): JsonValue => (counters === 'string' ? big().toString() : big());
  const stats = (): JsonValue => ({
    fetchBytes: counter(),
    produceBatchCount: counter(),
    produceBytes: counter(),
    requestCount: counter(),
  });
  const base = 1_756_720_974_000_000_000n; // 2025-09-01T10:02:54Z
  const connections: JsonValue[] = [];
  for (let i = 0; i < CONNECTIONS; i++) {
    const closed = rnd() < 0.1;
    const openTime = base - BigInt(int(86_400)) * 1_000_000_000n - BigInt(int(1e9));
    const apiVersions: Record<string, JsonValue> = {};
    const apiCount = 2 + int(12);
    for (let k = 0; k < apiCount; k++) apiVersions[String(k)] = int(17);
    const sampled: JsonValue[] = [];
    for (let k = int(3); k > 0; k--) {
      sampled.push({ apiKey: int(70), inFlightDuration: formatWireDuration(BigInt(int(5e9))) });
    }
    const software = pick(['apache-kafka-java', 'librdkafka', 'franz-go', 'sarama', 'kafka-python'] as const);
    const group = rnd() < 0.5 ? `orders-consumer-${int(50)}` : '';
    connections.push({
      uid: `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`,
      nodeId: int(9),
      shardId: int(16),
      source: { ipAddress: `10.${int(256)}.${int(256)}.${int(256)}`, port: 1024 + int(64_000) },
      tlsInfo: { enabled: rnd() < 0.7 },
      authenticationInfo: {
        state: 'AUTHENTICATION_STATE_SUCCESS',
        mechanism: pick(['AUTHENTICATION_MECHANISM_SASL_SCRAM', 'AUTHENTICATION_MECHANISM_MTLS'] as const),
        userPrincipal: `svc-${pick(['orders', 'billing', 'search', 'audit', 'ingest'] as const)}-${int(20)}`,
      },
      listenerName: pick(['internal', 'external', 'replication'] as const),
      state: closed ? 'KAFKA_CONNECTION_STATE_CLOSED' : 'KAFKA_CONNECTION_STATE_OPEN',
      openTime: formatTimestamp(openTime),
      closeTime: formatTimestamp(closed ? openTime + BigInt(int(3600)) * 1_000_000_000n : 0n),
      idleDuration: formatWireDuration(BigInt(int(120_000)) * 1_000_000n),
      inFlightRequests: { sampledInFlightRequests: sampled, hasMoreRequests: sampled.length === 2 && rnd() < 0.5 },
      totalRequestStatistics: stats(),
      recentRequestStatistics: stats(),
      clientId: `${software}-client-${hex(6)}`,
      clientSoftwareName: software,
      clientSoftwareVersion: `${1 + int(3)}.${int(10)}.${int(5)}`,
      groupId: group,
      groupInstanceId: group === '' ? '' : `instance-${int(100)}`,
      groupMemberId: group === '' ? '' : `${software}-client-${hex(8)}-${hex(4)}-${hex(12)}`,
      transactionalId: rnd() < 0.1 ? `tx-${hex(10)}` : '',
      apiVersions,
    });
  }
  const answer = { connections, totalSize: String(CONNECTIONS) };
  return counters === 'string' ? JSON.stringify(answer) : stringifyJson(answer);
}

const serverForm = buildAnswer('string');
const bareForm = buildAnswer('bare');
const mb = (s: string): number => round(Buffer.byteLength(s) / 1e6, 2);
process.stderr.write(`answers: server form ${mb(serverForm)} MB, bare-counter form ${mb(bareForm)} MB\n`);

// Correctness before timing: the fast path must be taken and agree with JSON.parse; the slow
// path must keep the big counters exactly.
ok(!needsSlowPath(serverForm), 'server-form answer should take the fast path');
ok(needsSlowPath(bareForm), 'bare-counter answer should take the slow path');
deepStrictEqual(parseJsonLossless(serverForm), JSON.parse(serverForm));
ok(stringifyJson(parseJsonLossless(bareForm)) === bareForm, 'slow path must round-trip every digit');

/**
 * Times `base` and `subject` in alternating rounds so that background load hits both alike;
 * the ratio is the median of the per-round ratios.
 */
function paired(
  base: () => void,
  subject: () => void,
  rounds: number,
): { base: number; subject: number; ratio: number } {
  const once = { warmup: 0, runs: 1 };
  timeIt(base, { warmup: 3, runs: 1 });
  timeIt(subject, { warmup: 3, runs: 1 });
  const b: number[] = [];
  const s: number[] = [];
  const r: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const tb = timeIt(base, once).medianMs;
    const ts = timeIt(subject, once).medianMs;
    b.push(tb);
    s.push(ts);
    r.push(ts / tb);
  }
  const median = (xs: number[]): number => {
    const sorted = [...xs].sort((x, y) => x - y);
    const mid = sorted.length >> 1;
    return sorted.length % 2 === 1
      ? (sorted[mid] as number)
      : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
  };
  return { base: median(b), subject: median(s), ratio: median(r) };
}

const fast = paired(
  () => JSON.parse(serverForm),
  () => parseJsonLossless(serverForm),
  15,
);
// Not paired: the slow path leaves much more garbage, whose collection would land in the
// next JSON.parse round and flatter the ratio.
const slowOpts = { warmup: 3, runs: 11 };
const slowBase = timeIt(() => JSON.parse(bareForm), slowOpts).medianMs;
const slowSubject = timeIt(() => parseJsonLossless(bareForm), slowOpts).medianMs;
const slow = { base: slowBase, subject: slowSubject, ratio: slowSubject / slowBase };
const scan = timeIt(() => needsSlowPath(serverForm), { warmup: 3, runs: 15 });

const size = `${CONNECTIONS} connections, ${mb(serverForm)} MB`;
reportFigure({ name: 'json_parse.ms', value: round(fast.base, 1), unit: 'ms', note: `JSON.parse median, ${size}` });
reportFigure({
  name: 'lossless_json.parse_ms',
  value: round(fast.subject, 1),
  unit: 'ms',
  note: `parseJsonLossless median (fast path: pre-scan ${round(scan.medianMs, 1)} ms + JSON.parse), int64 as strings`,
});
reportFigure({
  name: 'lossless_json.ratio',
  value: round(fast.ratio, 2),
  unit: 'x',
  goal: { op: '<=', value: 1.5 },
  note: 'parseJsonLossless / JSON.parse, server form (median of paired rounds)',
});
reportFigure({
  name: 'lossless_json.slow_path_ratio',
  value: round(slow.ratio, 2),
  unit: 'x',
  better: 'lower',
  note: `slow path ${round(slow.subject, 1)} ms vs JSON.parse ${round(slow.base, 1)} ms, counters as bare numbers (5% above 2^53), ${mb(bareForm)} MB`,
});
