/**
 * Item 1 of the reliability issue: cluster faults over real loopback HTTP. The simulated cluster
 * (with its own `api_fault` and `broker_down` events) sits behind a fault proxy that adds what
 * the simulator cannot do; the collector records ~27 minutes of simulated time through both.
 * For every fault: each poll in its window is recorded with its evidence, the collector keeps
 * its schedule, it recovers when the fault ends, and the timeline shows the fault. Every call
 * the proxy saw is a poll, and every poll reconstructs exactly the bytes that were served.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { PollRow } from '../../src/api/schema/resources.ts';
import { OPERATION_NAMES, type OperationName } from '../../src/api/schema/operations.ts';
import { decodeRequest, encodeAnswer, encodeRequest, parseAnswer } from '../../src/api/wire/answers.ts';
import { createHistoryReader, openDatabase, type ReconstructedPoll } from '../../src/db/index.ts';
import { renderTimelineHtml } from '../../src/report/render/timeline-html.ts';
import { renderTimelineText } from '../../src/report/render/timeline-text.ts';
import { buildTimeline, type Timeline, type TimelineSource } from '../../src/report/timeline/timeline.ts';
import { faultPlan, planRules, planScenario, type FaultCase } from './support/fault-plan.ts';
import { recordThroughProxy, type Recording } from './support/record.ts';
import { parseJsonLossless } from '../../src/api/codec/lossless-json.ts';

const S = 1_000_000_000n;
const { faults, seconds } = faultPlan();
const dir = mkdtempSync(join(tmpdir(), 'flightrec-faults-'));
const dbPath = join(dir, 'faults.db');
let rec: Recording;
let polls: PollRow[] = [];
const rebuilt = new Map<bigint, ReconstructedPoll>();
let timeline: Timeline;
const exitSpy = vi.spyOn(process, 'exit');

beforeAll(async () => {
  rec = await recordThroughProxy({
    dbPath,
    scenario: planScenario(faults),
    rules: planRules(faults),
    seconds,
    timeoutMs: 300,
    maxAnswerBytes: 1024 * 1024,
  });
  const db = openDatabase(dbPath, { readonly: true });
  try {
    const reader = createHistoryReader(db);
    polls = reader.polls({});
    for (const p of polls) rebuilt.set(p.id, reader.reconstructAnswer(p.id));
    timeline = buildTimeline(reader as unknown as TimelineSource, {});
  } finally {
    db.close();
  }
}, 120_000);

afterAll(() => {
  exitSpy.mockRestore();
  rmSync(dir, { recursive: true, force: true });
});

/** Simulated seconds from the world start. */
const rel = (ns: bigint): number => Number(ns - rec.start) / 1e9;
const opsOf = (f: FaultCase): readonly OperationName[] => f.ops ?? OPERATION_NAMES;
const inWindow = (f: FaultCase): PollRow[] =>
  polls.filter(
    (p) => rel(p.startTime) >= f.from && rel(p.startTime) < f.until && opsOf(f).includes(p.operation as OperationName),
  );

describe('cluster faults: recorded with evidence, schedule kept, recovered, shown in the timeline', () => {
  it('records every call the cluster saw as one poll, each reconstructing exactly what was served', () => {
    expect(polls.length).toBe(rec.log.length);
    expect(polls.length).toBeGreaterThan(400);
    const problems: string[] = [];
    polls.forEach((p, i) => {
      const entry = rec.log[i]!;
      const r = rebuilt.get(p.id)!;
      const where = `poll ${p.id} ${p.operation} at ${rel(p.startTime)}s (${entry.rule ?? 'no proxy fault'})`;
      if (entry.op !== p.operation) return problems.push(`${where}: the proxy saw ${entry.op}`);
      const asked = encodeRequest(
        p.operation as OperationName,
        decodeRequest(p.operation as OperationName, parseJsonLossless(entry.request)) as never,
      );
      if (asked !== encodeRequest(p.operation as OperationName, r.request as never))
        problems.push(`${where}: request differs`);
      const served = entry.served;
      if (entry.outcome === 'dropped' && !(p.outcome === 'unavailable' && p.httpStatus === 0))
        problems.push(`${where}: dropped but ${p.outcome}`);
      if (entry.outcome === 'aborted' && p.outcome !== 'deadline_exceeded')
        problems.push(`${where}: timed out but ${p.outcome}`);
      if (served === undefined) return;
      if (p.outcome === 'ok') {
        const expected = encodeAnswer(
          p.operation as OperationName,
          parseAnswer(p.operation as OperationName, served.body) as never,
        );
        if (encodeAnswer(p.operation as OperationName, r.answer as never) !== expected)
          problems.push(`${where}: answer not reconstructed exactly`);
      } else if (served.body.length > 0) {
        const raw = Buffer.from(r.raw ?? new Uint8Array());
        // an answer over the size limit keeps its head (nothing when Content-Length already says too much);
        // a call the client gave up on (its own deadline) got no answer, whatever the server sent later
        const oversize = r.failure?.code === 'resource_exhausted' && r.failure.kind === 'protocol';
        const gaveUp = r.failure?.code === 'deadline_exceeded' && r.failure.kind === 'transport';
        const same = oversize ? served.body.subarray(0, raw.length).equals(raw) : gaveUp || raw.equals(served.body);
        if (!same) problems.push(`${where}: raw body of the failed answer not kept`);
      }
    });
    expect(problems).toEqual([]);
  });

  for (const f of faults) {
    it(`${f.name} (${f.from}s..${f.until}s)`, () => {
      const hit = inWindow(f);
      expect(hit.length, 'polls in the window').toBeGreaterThan(0);
      const wrong: string[] = [];
      for (const p of hit) {
        const r = rebuilt.get(p.id)!;
        if (f.expect === 'ok' && p.outcome !== 'ok')
          wrong.push(`poll ${p.id} ${p.operation}: ${p.outcome} ${p.message}`);
        if (f.expect === 'fail' && p.outcome === 'ok')
          wrong.push(`poll ${p.id} ${p.operation} succeeded during the fault`);
        const why = f.evidence?.(r);
        if (why !== undefined && !(f.expect === 'ok' && p.outcome !== 'ok'))
          wrong.push(`poll ${p.id} ${p.operation}: ${why}`);
      }
      expect(wrong).toEqual([]);
      if (f.expect === 'mixed')
        expect(
          hit.some((p) => p.outcome !== 'ok'),
          'some call failed',
        ).toBe(true);
      if (f.proxy !== undefined)
        expect(
          rec.log.some((e) => e.rule === f.name),
          'the proxy applied the fault',
        ).toBe(true);
      // recovery: the first round of each affected operation scheduled after the window succeeds
      for (const op of opsOf(f)) {
        const next = rec.rounds.find((r) => r.operation === op && r.scheduledAt >= rec.start + BigInt(f.until) * S);
        expect(next, `a ${op} round after the fault`).toBeDefined();
        expect(next!.failures, `${op} recovered`).toEqual([]);
      }
      if (f.timeline !== undefined) {
        const { kinds, entity } = f.timeline;
        const from = rec.start + BigInt(f.from) * S;
        const until = rec.start + BigInt(f.until + 60) * S;
        const concerns = (e: Timeline['events'][number]): boolean =>
          entity !== undefined
            ? e.entity === entity || e.related.includes(entity)
            : opsOf(f).some((op) => e.entity === `api/${op}` || e.entity.startsWith(`api/${op}/`));
        const shown = timeline.events.filter(
          (e) => kinds.includes(e.kind) && concerns(e) && e.start < until && (e.end ?? until) >= from,
        );
        expect(
          shown.map((e) => `${e.kind} ${e.entity}`),
          `timeline ${kinds.join('|')}`,
        ).not.toEqual([]);
        expect(
          shown.some((e) => e.end !== null && e.end <= until + 120n * S),
          'the timeline shows the fault ending',
        ).toBe(true);
      }
    });
  }

  it('keeps its schedule: every operation fires for every tick at which no round was still running, on time when healthy', () => {
    const ticks: bigint[] = [];
    for (let t = rec.start; t < rec.start + BigInt(seconds) * S; t += 30n * S) ticks.push(t);
    const busy = (t: bigint): boolean => rec.rounds.some((r) => r.startedAt < t && r.endedAt >= t);
    const idle = ticks.filter((t) => !busy(t));
    const faulty = (t: bigint): boolean => faults.some((f) => rel(t) >= f.from && rel(t) < f.until + 40);
    const missed: string[] = [];
    idle.forEach((t, i) => {
      const next = idle[i + 1] ?? t + 3600n * S;
      for (const op of OPERATION_NAMES) {
        const fired = rec.rounds.find((r) => r.operation === op && r.scheduledAt >= t);
        // the round of this tick ran in the tick's batch (after the operations before it, retries included)
        if (fired === undefined || fired.scheduledAt >= next) missed.push(`${op} at ${rel(t)}s`);
        else if (!faulty(t) && fired.scheduledAt !== t)
          missed.push(`${op} at ${rel(t)}s late: ${rel(fired.scheduledAt)}s`);
      }
    });
    expect(missed).toEqual([]);
    // only ticks covered by a long retrying round were skipped, and most ticks were healthy and on time
    expect(ticks.length - idle.length).toBeLessThanOrEqual(faults.length);
    expect(idle.filter((t) => !faulty(t)).length).toBeGreaterThanOrEqual(15);
    expect(rec.rounds.at(-1)!.scheduledAt).toBeGreaterThanOrEqual(rec.start + BigInt(seconds - 30) * S);
  });

  it('never exits: the collector ran to the end and shut down cleanly with nothing unwritten', () => {
    expect(exitSpy).not.toHaveBeenCalled();
    expect(rec.report).toEqual({ aborted: false, unwritten: 0 });
    expect(rec.collector.stats.unwritten).toBe(0);
    expect(rec.collector.stats.polls).toBe(polls.length);
    expect(rec.lines.join('')).not.toMatch(/cannot write a poll/);
  });

  it('renders the timeline of all these faults as text and HTML', () => {
    expect(timeline.polls.failed).toBeGreaterThan(50);
    const text = renderTimelineText(timeline, { color: false, width: 160, wide: false });
    expect(text).toMatch(/unavailable/);
    const html = renderTimelineHtml(timeline);
    expect(html).toMatch(/^<!DOCTYPE html>/i);
  });
});
