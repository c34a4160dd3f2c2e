// The incident timeline over 24 hours of 30-second ListKafkaConnections polls (2,880 polls) of
// 1,000 connections: one streaming pass through the store's lean connection frames
// (HistoryReader.connectionFrames) and every detector.
// Run: node scripts/bench.mjs bench/report-timeline.bench.ts
import { ok } from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createHistoryReader, createHistoryWriter, openDatabase } from '../src/db/index.ts';
import {
  connFrameOfStored,
  emptyConnFrame,
  mergeConnFanout,
  type ConnFrame,
} from '../src/report/timeline/conn-frame.ts';
import { connectionsDetector } from '../src/report/timeline/detectors/connections.ts';
import { padFrames } from '../src/report/timeline/frames.ts';
import { DEFAULT_THRESHOLDS } from '../src/report/timeline/thresholds.ts';
import { buildTimeline, type TimelineSource } from '../src/report/timeline/timeline.ts';
import { ConnectionWorld } from '../test/helpers/connection-answers.ts';
import { listPollRecord } from './lib/list-poll.ts';
import { reportFigure, round, timeIt } from './lib/figures.ts';

const CONNECTIONS = 1_000;
const POLLS = 2_880;
const INTERVAL = 30_000_000_000n;
const START = 1_756_684_800_000_000_000n; // 2025-09-01T00:00:00Z
/** A broker drops out for 20 minutes in the middle of the day, so detectors have work to do. */
const OUTAGE = { from: 1_200, to: 1_240, node: 2 };

const dir = mkdtempSync(join(tmpdir(), 'flightrec-bench-timeline-'));
const path = join(dir, 'history.db');
try {
  const t0 = performance.now();
  const world = new ConnectionWorld({
    connections: CONNECTIONS,
    churn: 0.005,
    seed: 7,
    startNs: START,
    intervalNs: INTERVAL,
  });
  const db = openDatabase(path);
  const writer = createHistoryWriter(db);
  for (let i = 0; i < POLLS; i++) {
    const { at, answer } = world.next();
    const outage = i >= OUTAGE.from && i < OUTAGE.to;
    const connections = outage ? answer.connections.filter((c) => c.nodeId !== OUTAGE.node) : answer.connections;
    const listed = { ...answer, connections, totalSize: BigInt(connections.length) };
    writer.writePoll(
      listPollRecord(listed, { at, durationNs: 40_000_000n, bytes: 1_100 * connections.length, round: `r${i}` }),
    );
  }
  writer.close();
  const generateMs = performance.now() - t0;
  process.stderr.write(
    `generated ${POLLS} polls × ${CONNECTIONS} connections in ${round(generateMs / 1000, 1)} s (${statSync(path).size} bytes)\n`,
  );

  const ro = openDatabase(path, { readonly: true });
  const reader = createHistoryReader(ro);
  const source = reader as unknown as TimelineSource;

  // --- check once: the outage is found, then time
  const timeline = buildTimeline(source, {});
  ok(timeline.polls.total === POLLS, 'every poll is in the window');
  ok(
    timeline.events.some((e) => e.kind === 'connections.broker-empty' && e.entity === `broker/${OUTAGE.node}`),
    'the broker outage is on the timeline',
  );
  let rows = 0;
  for (const f of reader.connectionFrames({ since: timeline.since, until: timeline.until })) rows += f.versions.length;
  process.stderr.write(`${rows} connection samples, ${timeline.events.length} events\n`);

  // read alone and end to end in alternating rounds, so background load hits both alike
  const readOnly = (): void => {
    for (const _ of reader.connectionFrames({ since: timeline.since, until: timeline.until })) {
      // read only
    }
  };
  const once = { warmup: 0, runs: 1 };
  timeIt(readOnly, once);
  timeIt(() => void buildTimeline(source, {}), once);
  const reads: number[] = [];
  const fulls: number[] = [];
  for (let i = 0; i < 3; i++) {
    reads.push(timeIt(readOnly, once).medianMs);
    fulls.push(timeIt(() => void buildTimeline(source, {}), once).medianMs);
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;
  const read = { medianMs: median(reads) };
  const full = { medianMs: median(fulls) };
  const ratio = median(fulls.map((f, i) => f / (reads[i] as number)));
  // the connection detectors alone, over the first two hours held in memory (no reading)
  const twoHours = START + 2n * 3_600_000_000_000n;
  const early = reader.polls({ until: twoHours - 1n }).filter((p) => p.outcome === 'ok');
  const stored = [...reader.connectionFrames({ since: START, until: twoHours - 1n })].map(connFrameOfStored);
  const frames: ConnFrame[] = [...mergeConnFanout(padFrames(stored, early, emptyConnFrame))];
  const earlyRows = frames.reduce((n, f) => n + f.rows.length, 0);
  const detect = timeIt(
    () => {
      const d = connectionsDetector({ thresholds: DEFAULT_THRESHOLDS });
      for (const f of frames) d.frame(f);
      d.finish(twoHours);
    },
    { warmup: 2, runs: 7 },
  );
  ro.close();

  reportFigure({
    name: 'report.timeline_24h_1k_ms',
    value: round(full.medianMs, 0),
    unit: 'ms',
    goal: { op: '<=', value: 2000 },
    note: `buildTimeline end to end through HistoryReader.connectionFrames(), ${rows} connection samples, median of 3 rounds`,
  });
  reportFigure({
    name: 'report.timeline_read_24h_1k_ms',
    value: round(read.medianMs, 0),
    unit: 'ms',
    note: 'of which: reading the same samples through HistoryReader.connectionFrames() alone',
  });
  reportFigure({
    name: 'report.timeline_over_read_ratio',
    value: round(ratio, 2),
    unit: 'x',
    better: 'lower',
    note: 'end to end / read alone, median of the per-round ratios: what the analysis adds to reading',
  });
  reportFigure({
    name: 'report.timeline_detect_ns_per_sample',
    value: round((detect.medianMs * 1e6) / earlyRows, 0),
    unit: 'ns',
    note: `the connection detectors alone per sample, over ${earlyRows} samples (2 h) held in memory, median of 7`,
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
