/**
 * diff against the simulated cluster: a scenario is recorded by the collector over loopback
 * HTTP into a temporary store; the diff of two instants is then checked, entity by entity and
 * value by value, against the answers the simulator served at those instants.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KafkaConnection, ListKafkaConnectionsResponse } from '../../src/api/schema/connection.ts';
import type { OperationName } from '../../src/api/schema/operations.ts';
import type { PollRow } from '../../src/api/schema/resources.ts';
import type { ShadowLink } from '../../src/api/schema/shadow-link.ts';
import { parseAnswer } from '../../src/api/wire/answers.ts';
import { Collector, createReporter, defaultCluster, defaultCollectorConfig } from '../../src/collector/index.ts';
import {
  createHistoryReader,
  createHistoryWriter,
  openDatabase,
  type FlightrecDb,
  type HistoryReader,
} from '../../src/db/index.ts';
import { diffStates, type DiffResult, type ResourceDiff } from '../../src/report/index.ts';
import { createWorld, parseScenario, simClock, startSimServer, type SimServer } from '../../src/sim/index.ts';

const SCENARIO = `name: report-diff
description: connections come and go, a link pauses and a task faults
duration: 5m
events:
  - { at: 40s, kind: connection_storm, client: reporting-batch, rate: 1, duration: 90s }
  - { at: 1m30s, kind: link_paused, duration: 2m }
  - { at: 1m40s, kind: task_faulted, reason: "fetch from source failed", duration: 2m }
`;

interface Served {
  readonly op: OperationName;
  readonly request: unknown;
  readonly answer: unknown;
  /** simulated time when it was served */
  readonly at: bigint;
}

let dir: string;
let sim: SimServer;
let db: FlightrecDb;
let reader: HistoryReader;
const served: Served[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'flightrec-report-sim-'));
  const world = createWorld({ seed: 5, scenario: parseScenario(SCENARIO, 'report-diff'), connections: 120 });
  sim = await startSimServer({ world, clock: 'manual' });
  sim.onAnswer((op, request, status, body) => {
    if (op !== undefined && status === 200)
      served.push({ op, request, answer: parseAnswer(op, body), at: sim.world.now() });
  });
  const described = sim.describe();
  const cluster = {
    ...defaultCluster('sim', sim.baseUrl),
    shadowLinks: described.links.map((name) => ({ name, topics: [] })),
  };
  const path = join(dir, 'history.db');
  const writer = createHistoryWriter(openDatabase(path));
  const { nowMs, advanceTo, sleep } = simClock(sim);
  const collector = new Collector({
    config: { ...defaultCollectorConfig([cluster]), jitterMs: 0 },
    writer,
    env: {},
    now: Date.now,
    nowNs: () => sim.world.now(),
    sleep,
    reporter: createReporter({ write: () => undefined }),
  });
  await collector.runVirtual(nowMs() + 5 * 60_000, { nowMs, advanceTo });
  await collector.shutdown();
  db = openDatabase(path, { readonly: true });
  reader = createHistoryReader(db);
}, 60_000);

afterAll(async () => {
  db?.close();
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The successful polls of an operation, each with the answer the simulator served for it (same time, same target). */
function pairs(op: OperationName): { poll: PollRow; answer: unknown }[] {
  const polls = reader.polls({ operation: op }).filter((p) => p.outcome === 'ok');
  return polls.map((poll) => {
    const answers = served.filter(
      (s) =>
        s.op === op &&
        s.at >= poll.startTime &&
        s.at <= poll.endTime &&
        (poll.target === '' || (s.request as { name?: string }).name === poll.target),
    );
    expect(answers, `poll ${poll.id}`).toHaveLength(1);
    return { poll, answer: answers[0]!.answer };
  });
}

const of = (r: DiffResult, name: string): ResourceDiff => r.resources.find((x) => x.resource === name)!;
const sorted = (xs: Iterable<string>): string[] => [...xs].sort();

/** A connection without the fields diff reports as counters, gauges or noise. */
function identityOf(c: KafkaConnection): unknown {
  const {
    inFlightRequests: _i,
    recentRequestStatistics: _r,
    totalRequestStatistics: _t,
    idleDuration: _d,
    ...rest
  } = c;
  return rest;
}

function valueAt(row: unknown, path: string): unknown {
  let v = row;
  for (const step of path.split('.')) v = (v as Record<string, unknown> | undefined)?.[step];
  return v;
}

describe('diff against what the simulator served', () => {
  it('finds exactly the added, removed and changed connections, with exact values, deltas and rates', () => {
    const conns = pairs('ListKafkaConnections');
    expect(conns.length).toBeGreaterThanOrEqual(10);
    const a = conns[1]!;
    const b = conns[7]!;
    const result = diffStates(reader, { from: a.poll.startTime, to: b.poll.startTime, resources: ['connections'] });
    const d = of(result, 'connections');
    const stateOnly = of(
      diffStates(reader, { from: a.poll.startTime, to: b.poll.startTime, resources: ['connections'], only: ['state'] }),
      'connections',
    );
    expect(d.observed).toBe(true);
    expect(d.from.poll?.id).toBe(a.poll.id);
    expect(d.to.poll?.id).toBe(b.poll.id);

    const before = new Map((a.answer as ListKafkaConnectionsResponse).connections.map((c) => [c.uid, c]));
    const after = new Map((b.answer as ListKafkaConnectionsResponse).connections.map((c) => [c.uid, c]));
    const added = [...after.keys()].filter((u) => !before.has(u));
    const removed = [...before.keys()].filter((u) => !after.has(u));
    expect(added.length + removed.length).toBeGreaterThan(0);
    expect(sorted(d.added.map((e) => e.key))).toEqual(sorted(added));
    expect(sorted(d.removed.map((e) => e.key))).toEqual(sorted(removed));
    for (const e of d.added) expect(e.row).toEqual(after.get(e.key));

    const common = [...after.keys()].filter((u) => before.has(u));
    // --only state: the identity and attributes changed
    const changedState = common.filter(
      (u) => !isDeepStrictEqual(identityOf(before.get(u)!), identityOf(after.get(u)!)),
    );
    expect(changedState.length).toBeGreaterThan(0);
    expect(sorted(stateOnly.changed.map((e) => e.key))).toEqual(sorted(changedState));
    expect(stateOnly.unchanged).toBe(common.length - changedState.length);
    // by default a moving counter or gauge is a difference too (in-flight samples are noise)
    const noInFlight = (c: KafkaConnection): unknown => ({ ...c, inFlightRequests: [] });
    const changed = common.filter((u) => !isDeepStrictEqual(noInFlight(before.get(u)!), noInFlight(after.get(u)!)));
    expect(sorted(d.changed.map((e) => e.key))).toEqual(sorted(changed));
    expect(d.unchanged).toBe(common.length - changed.length);

    const seconds = Number(b.poll.startTime - a.poll.startTime) / 1e9;
    for (const e of d.changed) {
      for (const c of [...e.changes, ...e.counters, ...e.gauges]) {
        if (c.path.includes('[]')) continue;
        expect(c.old, `${e.key} ${c.path}`).toEqual(valueAt(before.get(e.key), c.path));
        expect(c.new, `${e.key} ${c.path}`).toEqual(valueAt(after.get(e.key), c.path));
        if (c.kind === 'counter') {
          expect(c.delta).toBe((c.new as bigint) - (c.old as bigint));
          expect(c.ratePerSecond).toBe(Number(c.delta) / seconds);
        }
      }
    }
    const fetch = d.totals.find((t) => t.path === 'totalRequestStatistics.fetchBytes')!;
    const sum = (m: Map<string, KafkaConnection>): bigint =>
      common.reduce((s, u) => s + m.get(u)!.totalRequestStatistics.fetchBytes, 0n);
    expect([fetch.oldSum, fetch.newSum, fetch.delta]).toEqual([sum(before), sum(after), sum(after) - sum(before)]);
  });

  it('reports the paused link and the faulted task as the simulator served them', () => {
    const links = pairs('GetShadowLink');
    const name = (links[0]!.answer as { shadowLink: ShadowLink }).shadowLink.name;
    const ofLink = links.filter((l) => (l.answer as { shadowLink: ShadowLink }).shadowLink.name === name);
    const first = ofLink[0]!;
    const paused = ofLink.find(
      (l) => (l.answer as { shadowLink: ShadowLink }).shadowLink.status.state === 'SHADOW_LINK_STATE_PAUSED',
    );
    expect(paused).toBeDefined();
    const result = diffStates(reader, {
      from: first.poll.startTime,
      to: paused!.poll.startTime,
      resources: ['shadow-links', 'shadow-tasks'],
    });
    expect(result.unobserved).toEqual([]);
    const link = of(result, 'shadow-links').changed.find((e) => e.key === name)!;
    expect(link.changes.find((c) => c.path === 'status.state')).toMatchObject({
      old: 'SHADOW_LINK_STATE_ACTIVE',
      new: 'SHADOW_LINK_STATE_PAUSED',
      description: 'link state ACTIVE → PAUSED',
    });
    const oldTasks = (first.answer as { shadowLink: ShadowLink }).shadowLink.status.taskStatuses;
    const newTasks = (paused!.answer as { shadowLink: ShadowLink }).shadowLink.status.taskStatuses;
    const key = (t: { name: string; brokerId: number; shard: number }): string =>
      `${name}/${t.name}/${t.brokerId}/${t.shard}`;
    const expected = newTasks
      .filter((t) => {
        const o = oldTasks.find((x) => key(x) === key(t));
        return o !== undefined && !isDeepStrictEqual(o, t);
      })
      .map(key);
    const tasks = of(result, 'shadow-tasks').changed.filter((e) => e.key.startsWith(`${name}/`));
    expect(sorted(tasks.map((e) => e.key))).toEqual(sorted(expected));
  });
});
