/**
 * The collector against the simulated cluster over loopback HTTP: many rounds with churn and
 * incidents, then, for every poll, the answer reconstructed from the database equals the
 * answer the simulator served, field for field (int64 exact); failures of every kind are
 * poll rows with their details, and the collector keeps going.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperationName } from '../../src/api/schema/operations.ts';
import { encodeAnswer, parseAnswer } from '../../src/api/wire/answers.ts';
import {
  Collector,
  createReporter,
  defaultCluster,
  defaultCollectorConfig,
  type RoundResult,
} from '../../src/collector/index.ts';
import { createHistoryReader, createHistoryWriter, openDatabase, type ReconstructedPoll } from '../../src/db/index.ts';
import { createWorld, parseScenario, simClock, startSimServer, type SimServer } from '../../src/sim/index.ts';
import { closedLoopbackPort } from '../helpers/loopback-server.ts';
import { forEachEngine } from '../helpers/pg.ts';

const SCENARIO = `name: collector-test
description: churn, incidents and every API fault the collector must survive
duration: 11m
events:
  - { at: 30s, kind: connection_storm, client: reporting-batch, rate: 2, duration: 2m }
  - { at: 1m, kind: api_fault, fault: unavailable, duration: 20s }
  - { at: 1m30s, kind: api_fault, fault: truncated, duration: 20s }
  - { at: 2m, kind: api_fault, fault: slow, delay: 1s, operations: [GetUpgradeStatus], duration: 10s }
  - { at: 2m30s, kind: api_fault, fault: malformed, duration: 20s }
  - { at: 3m, kind: api_fault, fault: html, duration: 20s }
  - { at: 3m30s, kind: api_fault, fault: empty, duration: 20s }
  - { at: 4m, kind: api_fault, fault: too_many_requests, duration: 20s }
  - { at: 4m30s, kind: api_fault, fault: duplicate_uids, operations: [ListKafkaConnections], duration: 20s }
  - { at: 5m, kind: api_fault, fault: wrong_type, operations: [GetUpgradeStatus, ListShadowTopics], duration: 20s }
  - { at: 5m30s, kind: api_fault, fault: oversize, size: 65536, operations: [ListShadowTopics], duration: 20s }
  - { at: 6m, kind: api_fault, fault: licence_missing, duration: 1m }
  - { at: 7m30s, kind: broker_down, broker: 0, duration: 40s }
  - { at: 8m30s, kind: link_paused, duration: 1m }
  - { at: 8m40s, kind: task_faulted, reason: "fetch from source failed", duration: 1m }
  - { at: 9m, kind: rolling_upgrade, member_interval: 20s, restart: 10s, auto_finalize: true }
  - { at: 9m, kind: auth_failures, rate: 1, duration: 1m }
`;

interface Served {
  readonly op: OperationName | undefined;
  readonly request: unknown;
  readonly status: number;
  readonly body: Buffer;
}

forEachEngine(
  'sim integration',
  (engine) => {
    let dir: string;
    let sim: SimServer;
    const served: Served[] = [];
    const rounds: RoundResult[] = [];
    const lines: string[] = [];
    let polls: {
      id: bigint;
      cluster: string;
      operation: string;
      outcome: string;
      httpStatus: number;
      startTime: bigint;
      fanoutCalls: number;
    }[] = [];
    let rebuilt = new Map<bigint, ReconstructedPoll>();

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'flightrec-sim-'));
      const scenario = parseScenario(SCENARIO, 'collector-test');
      // a memory budget of 60 rows per answer: the lists are cut, so the fan-out by broker and shard runs
      const world = createWorld({ seed: 11, scenario, connections: 260, memoryBudgetBytes: 60 * 3 * 1024 });
      sim = await startSimServer({ world, clock: 'manual', overlapWaitMs: 200 });
      sim.onAnswer((op, request, status, body) => served.push({ op, request, status, body }));
      const described = sim.describe();
      const refused = await closedLoopbackPort();
      const simCluster = {
        ...defaultCluster('sim', sim.baseUrl),
        timeoutMs: 300,
        shadowLinks: described.links.map((name) => ({
          name,
          topics: described.topics
            .filter((t) => t.link === name)
            .map((t) => t.topic)
            .slice(0, 2),
        })),
      };
      const goneCluster = {
        ...defaultCluster('gone', `http://127.0.0.1:${refused}`),
        schedules: {
          ...simCluster.schedules,
          ListKafkaConnections: '0 */5 * * * *',
          GetUpgradeStatus: null,
          GetIcebergStatus: null,
        },
      };
      const config = { ...defaultCollectorConfig([simCluster, goneCluster]), jitterMs: 0 };
      const db = await engine.target();
      const writer = createHistoryWriter(openDatabase(db));
      const { nowMs, advanceTo, sleep } = simClock(sim); // back-off passes in simulated time
      const collector = new Collector({
        config,
        writer,
        env: {},
        now: Date.now,
        nowNs: () => sim.world.now(),
        sleep,
        reporter: createReporter({ write: (s: string) => lines.push(s) }),
        onRound: (r) => rounds.push(r),
      });
      await collector.runVirtual(nowMs() + 11 * 60_000, { nowMs, advanceTo });
      expect(await collector.shutdown()).toEqual({ aborted: false, unwritten: 0 });

      const readDb = openDatabase(db, { readonly: true });
      const reader = createHistoryReader(readDb);
      polls = reader.polls({}).map((p) => ({
        id: p.id,
        cluster: p.cluster,
        operation: p.operation,
        outcome: p.outcome,
        httpStatus: p.httpStatus,
        startTime: p.startTime,
        fanoutCalls: p.fanoutCalls,
      }));
      rebuilt = new Map(polls.map((p) => [p.id, reader.reconstructAnswer(p.id)]));
      readDb.close();
      // 11 simulated minutes: seconds alone, but over a minute on PostgreSQL on a loaded machine (load 10-15)
    }, 180_000);

    afterAll(async () => {
      await sim?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    const simPolls = () => polls.filter((p) => p.cluster === 'sim');
    const failure = (id: bigint) => rebuilt.get(id)!.failure!;

    describe('collector against the simulated cluster', () => {
      it('ran many rounds of every operation', () => {
        const ops = new Set(rounds.filter((r) => r.cluster === 'sim').map((r) => r.operation));
        expect(ops.size).toBe(6);
        expect(simPolls().length).toBeGreaterThan(150);
        expect(rounds.length).toBeGreaterThan(100);
      });

      it('reconstructs every poll from the database exactly as the simulator served it', () => {
        let next = 0;
        let compared = 0;
        for (const p of simPolls()) {
          const r = rebuilt.get(p.id)!;
          const status = p.outcome === 'ok' ? 200 : p.httpStatus;
          if (status === 0) {
            // no answer arrived: the connection closed, or the local deadline fired; in the latter case
            // the server may still have written an answer to the abandoned connection: its own 504,
            // or on a loaded machine (the deadline is 300 ms of real time) the whole answer
            const late = served[next];
            if (
              p.outcome === 'deadline_exceeded' &&
              late?.op === p.operation &&
              isDeepStrictEqual(late.request, r.request)
            )
              next++;
            continue;
          }
          // the served answer of this poll: the next one for the same operation, request and status
          const at = served.findIndex(
            (s, i) =>
              i >= next && s.op === p.operation && s.status === status && isDeepStrictEqual(s.request, r.request),
          );
          expect(at, `poll ${p.id} ${p.operation} ${p.outcome}`).toBeGreaterThanOrEqual(0);
          expect(at - next, `answers served but never recorded before poll ${p.id}`).toBe(0);
          const s = served[at]!;
          next = at + 1;
          if (p.outcome === 'ok') {
            const expected = parseAnswer(p.operation as OperationName, s.body);
            expect(r.answer, `poll ${p.id} ${p.operation}`).toStrictEqual(expected);
            expect(encodeAnswer(p.operation as OperationName, r.answer as never)).toBe(
              encodeAnswer(p.operation as OperationName, expected as never),
            );
          } else {
            expect(Buffer.from(r.raw ?? new Uint8Array()).equals(s.body), `raw body of failed poll ${p.id}`).toBe(true);
          }
          compared++;
        }
        expect(next).toBe(served.length);
        expect(compared).toBeGreaterThan(150);
      });

      it('keeps int64 values exact', () => {
        const upgrade = simPolls().filter((p) => p.operation === 'GetUpgradeStatus' && p.outcome === 'ok');
        const values = upgrade.map((p) => (rebuilt.get(p.id)!.answer as { activeVersion: bigint }).activeVersion);
        expect(values.every((v) => typeof v === 'bigint')).toBe(true);
        const conns = simPolls().filter((p) => p.operation === 'ListKafkaConnections' && p.outcome === 'ok');
        const totals = conns.map((p) => (rebuilt.get(p.id)!.answer as { totalSize: unknown }).totalSize);
        expect(totals.every((v) => typeof v === 'bigint')).toBe(true);
      });

      it('records failures of every kind as polls with their details', () => {
        const all = polls.map((p) => ({ ...p, f: p.outcome === 'ok' ? undefined : failure(p.id) }));
        const find = (pred: (p: (typeof all)[number]) => boolean, what: string) => {
          const hit = all.find(pred);
          expect(hit, what).toBeDefined();
          return hit!;
        };
        find(
          (p) => p.cluster === 'gone' && p.outcome === 'unavailable' && /connection refused/.test(p.f!.message),
          'refused',
        );
        find((p) => p.outcome === 'deadline_exceeded' && p.operation === 'GetUpgradeStatus', 'time-out');
        find((p) => p.outcome === 'resource_exhausted' && p.httpStatus === 429 && p.f!.kind === 'connect', '429');
        find((p) => p.outcome === 'unavailable' && p.httpStatus === 503 && p.f!.kind === 'connect', '503');
        find((p) => p.f?.kind === 'invalid_answer' && /not valid JSON/.test(p.f.message), 'invalid JSON');
        find((p) => p.f?.kind === 'invalid_answer' && p.f.path !== undefined, 'wrong type, with its JSON path');
        find((p) => p.httpStatus === 502 && p.f?.kind === 'protocol' && p.outcome === 'unavailable', 'HTML page');
        const licence = find((p) => p.outcome === 'failed_precondition', 'licence');
        expect(licence.f!.message).toMatch(/licen[cs]e/);
        find(
          (p) => p.cluster === 'sim' && p.outcome === 'unavailable' && p.httpStatus === 0,
          'broker down: connection closed',
        );
      });

      it('retries what is worth retrying and never the licence error', () => {
        const licenceRounds = rounds.filter((r) => r.failures.some((f) => f.code === 'failed_precondition'));
        expect(licenceRounds.length).toBeGreaterThan(0);
        for (const r of licenceRounds) expect(r.failedCalls).toBe(1);
        const recovered = rounds.filter((r) => r.failedCalls > 0 && r.failures.length === 0);
        expect(recovered.length, 'a round that succeeded after retries').toBeGreaterThan(0);
      });

      it('fans out over brokers and shards when the list is cut, and records the coverage', () => {
        const conn = rounds.filter(
          (r) => r.cluster === 'sim' && r.operation === 'ListKafkaConnections' && r.coverage !== undefined,
        );
        expect(conn.some((r) => r.calls > 4)).toBe(true);
        const quiet = conn.filter((r) => r.failedCalls === 0);
        expect(quiet.filter((r) => r.coverage!.complete).length).toBeGreaterThan(5);
        expect(simPolls().some((p) => p.fanoutCalls > 1)).toBe(true);
      });

      it('keeps going after every incident', () => {
        const last = rounds.filter((r) => r.cluster === 'sim').slice(-6);
        expect(last.every((r) => r.failures.length === 0)).toBe(true);
        const end = simPolls().at(-1)!;
        expect(end.outcome).toBe('ok');
        expect(lines.join('')).toMatch(/sim ListKafkaConnections ok/);
        expect(lines.join('')).toMatch(/gone ListKafkaConnections FAILED 1\/1/);
      });
    });
  },
  { onPglite: false },
);
