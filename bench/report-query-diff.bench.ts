// Analysis over history: diff of two instants and a filtered query over the whole range, on
// 24 hours of 30-second ListKafkaConnections polls (2,880 polls) of 1,000 connections.
// Run: node scripts/bench.mjs bench/report-query-diff.bench.ts
import { ok } from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { KafkaConnection } from '../src/api/schema/connection.ts';
import { createHistoryReader, createHistoryWriter, openDatabase } from '../src/db/index.ts';
import { diffStates, runQuery, type ReportReader } from '../src/report/index.ts';
import { ConnectionWorld } from '../test/helpers/connection-answers.ts';
import { listPollRecord } from './lib/list-poll.ts';
import { reportFigure, round, timeIt } from './lib/figures.ts';

const CONNECTIONS = 1_000;
const POLLS = 2_880;
const INTERVAL = 30_000_000_000n;
const START = 1_756_684_800_000_000_000n; // 2025-09-01T00:00:00Z
const HOUR = 3_600_000_000_000n;
/** A selective incident question: one service's connections on one broker, over the whole day. */
const FILTER = 'authentication_info.user_principal = "svc-fraud" AND node_id = 3';

const dir = mkdtempSync(join(tmpdir(), 'flightrec-bench-report-'));
const path = join(dir, 'history.db');
try {
  // --- generate: a churning world (0.2 % of connections replaced per poll), written poll by poll
  const t0 = performance.now();
  const world = new ConnectionWorld({
    connections: CONNECTIONS,
    churn: 0.002,
    seed: 7,
    startNs: START,
    intervalNs: INTERVAL,
  });
  const db = openDatabase(path);
  const writer = createHistoryWriter(db);
  let served: { at: bigint; connections: KafkaConnection[] }[] = [];
  for (let i = 0; i < POLLS; i++) {
    const { at, answer } = world.next();
    if (i === 6 * 120 || i === 7 * 120) served.push({ at, connections: answer.connections });
    writer.writePoll(
      listPollRecord(answer, { at, durationNs: 40_000_000n, bytes: 1_100 * answer.connections.length, round: `r${i}` }),
    );
  }
  writer.close();
  const generateMs = performance.now() - t0;
  process.stderr.write(
    `generated ${POLLS} polls × ${CONNECTIONS} connections in ${round(generateMs / 1000, 1)} s (${statSync(path).size} bytes)\n`,
  );

  const ro = openDatabase(path, { readonly: true });
  const reader = createHistoryReader(ro) as unknown as ReportReader;
  const from = START + 6n * HOUR;
  const to = START + 7n * HOUR;

  // --- check once against what was served, then time
  const result = diffStates(reader, { from, to, resources: ['connections'] });
  const conns = result.resources[0]!;
  const before = new Set(served[0]!.connections.map((c) => c.uid));
  const after = new Set(served[1]!.connections.map((c) => c.uid));
  ok(conns.observed, 'both instants observed');
  ok(conns.added.length === [...after].filter((u) => !before.has(u)).length, 'added matches the served answers');
  ok(conns.removed.length === [...before].filter((u) => !after.has(u)).length, 'removed matches the served answers');
  served = [];

  const diff = timeIt(() => void diffStates(reader, { from, to, resources: ['connections'] }), { warmup: 2, runs: 7 });
  const query = runQuery(reader, { resource: 'connections', since: START, until: START + 24n * HOUR, filter: FILTER });
  const queryTime = timeIt(
    () => void runQuery(reader, { resource: 'connections', since: START, until: START + 24n * HOUR, filter: FILTER }),
    { warmup: 1, runs: 5 },
  );
  ro.close();

  reportFigure({
    name: 'report.diff_two_instants_ms',
    value: round(diff.medianMs, 1),
    unit: 'ms',
    goal: { op: '<=', value: 300 },
    note: `connections, 1 h apart: ${conns.added.length} added, ${conns.removed.length} removed, ${conns.changed.length} changed; p90 ${round(diff.p90Ms, 1)} ms`,
  });
  reportFigure({
    name: 'report.query_filtered_range_ms',
    value: round(queryTime.medianMs, 1),
    unit: 'ms',
    goal: { op: '<=', value: 1000 },
    note: `${FILTER} over 24 h: ${query.total} samples; p90 ${round(queryTime.p90Ms, 1)} ms`,
  });
  reportFigure({ name: 'report.bench_generate_s', value: round(generateMs / 1000, 1), unit: 's' });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
