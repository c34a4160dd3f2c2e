// Schema-driven decoding of a full 10,000-connection ListKafkaConnections answer, from the
// already parsed JSON tree (goal: at most 80 ms on 2 cores, well under the 100 ms ingest budget),
// and from the answer's bytes as ingest decodes it (parseAnswer: the direct decoder parses and
// decodes in one pass).
// Run: node scripts/bench.mjs bench/decode.bench.ts
import { ok } from 'node:assert/strict';
import { decodeAnswer, encodeAnswer, parseAnswer } from '../src/api/wire/answers.ts';
import type { ResponseOf } from '../src/api/schema/operations.ts';
import { createWorld, SimError } from '../src/sim/index.ts';
import { reportFigure, round, timeIt } from './lib/figures.ts';

const world = createWorld({ seed: 1, connections: 10_000 });
const answer = world.listKafkaConnections({ filter: '', orderBy: '', pageSize: 20_000 });
ok(!(answer instanceof SimError), 'simulator refused the listing');
const text = encodeAnswer('ListKafkaConnections', answer as ResponseOf<'ListKafkaConnections'>);
const tree: unknown = JSON.parse(text);

const first = decodeAnswer('ListKafkaConnections', tree);
// 10,000 open connections plus the recently closed ones the simulator keeps listing
ok(first.connections.length >= 10_000, `expected at least 10000 connections, got ${first.connections.length}`);

let sink = 0;
const t = timeIt(
  () => {
    sink += decodeAnswer('ListKafkaConnections', tree).connections.length;
  },
  { warmup: 5, runs: 25 },
);
ok(sink > 0);
reportFigure({
  name: 'api.decode_10k_connections_ms',
  value: round(t.medianMs, 1),
  unit: 'ms',
  goal: { op: '<=', value: 80 },
  note: `decodeAnswer of a parsed answer of ${first.connections.length} connections (${(text.length / 1e6).toFixed(1)} MB JSON); median of 25, p90 ${round(t.p90Ms, 1)} ms, min ${round(t.minMs, 1)} ms`,
});

const body = Buffer.from(text);
const bytes = timeIt(
  () => {
    sink += parseAnswer('ListKafkaConnections', body).connections.length;
  },
  { warmup: 5, runs: 25 },
);
reportFigure({
  name: 'api.parse_decode_10k_connections_ms',
  value: round(bytes.medianMs, 1),
  unit: 'ms',
  note: `parseAnswer of the same answer's ${(body.length / 1e6).toFixed(1)} MB of bytes (parse and decode, as ingest does); median of 25, p90 ${round(bytes.p90Ms, 1)} ms, min ${round(bytes.minMs, 1)} ms`,
});
