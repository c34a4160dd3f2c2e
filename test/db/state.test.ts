import { beforeAll, expect, it } from 'vitest';
import type { KafkaConnection, ListKafkaConnectionsResponse } from '../../src/api/schema/connection.ts';
import { compileFilter, toSqlPrefilter } from '../../src/filter/index.ts';
import { createHistoryReader, createHistoryWriter, openDatabase } from '../../src/db/index.ts';
import { OPERATION_NAMES } from '../../src/api/schema/operations.ts';
import { pollGaps } from '../../src/report/gaps.ts';
import type { PollRecord } from '../../src/db/poll-record.ts';
import { ConnectionWorld } from '../helpers/connection-answers.ts';
import { forEachEngine } from '../helpers/pg.ts';
import { failedRecord, LIST_REQUEST, okRecord } from './fixtures.ts';
import { shadowLinkAnswer, shadowTopic, upgradeAnswer } from './small-answers.ts';

const SEC = 1_000_000_000n;

interface Call {
  readonly at: bigint;
  readonly round: string;
  readonly ok: boolean;
  readonly rows: KafkaConnection[];
}

/** Rounds of fan-out: a truncated first call, then one call per half of the nodes; some calls fail. */
function record(): { calls: Call[]; records: PollRecord[] } {
  const world = new ConnectionWorld({ connections: 90, churn: 0.06, seed: 21, nodes: 4 });
  const calls: Call[] = [];
  const records: PollRecord[] = [];
  for (let r = 0; r < 14; r++) {
    const { at, answer } = world.next();
    const slices: [string, (c: KafkaConnection) => boolean, number][] = [
      ['', () => true, 40],
      ['node_id < 2', (c) => c.nodeId < 2, 1000],
      ['node_id >= 2', (c) => c.nodeId >= 2, 1000],
    ];
    slices.forEach(([slice, pick, limit], k) => {
      const callAt = at + BigInt(k) * 2n * SEC;
      const round = `round-${r}`;
      const failed = (r === 4 && k === 1) || r === 9;
      if (failed) {
        records.push(
          failedRecord(
            'ListKafkaConnections',
            { code: 'unavailable', kind: 'connect', httpStatus: 503, message: 'down' },
            { at: callAt, request: LIST_REQUEST, round },
          ),
        );
        calls.push({ at: callAt, round, ok: false, rows: [] });
        return;
      }
      const matching = answer.connections.filter(pick);
      const rows = matching.slice(0, limit);
      const part: ListKafkaConnectionsResponse = { connections: rows, totalSize: BigInt(matching.length) };
      const coverage = { rowsReturned: rows.length, totalSize: part.totalSize, fanoutCalls: k + 1, slice };
      records.push(
        okRecord('ListKafkaConnections', part, {
          at: callAt,
          request: { ...LIST_REQUEST, filter: slice },
          round,
          coverage,
        }),
      );
      calls.push({ at: callAt, round, ok: true, rows });
    });
  }
  return { calls, records };
}

/** The brute-force model of stateAt: the latest round's successful calls so far, newest wins by uid. */
function modelState(calls: Call[], at: bigint): KafkaConnection[] {
  const done = calls.filter((c) => c.ok && c.at <= at);
  const last = done.at(-1);
  if (last === undefined) return [];
  const byUid = new Map<string, KafkaConnection>();
  for (const c of done.filter((x) => x.round === last.round)) for (const row of c.rows) byUid.set(row.uid, row);
  return [...byUid.values()];
}

forEachEngine('stateAt, samples and entity history against a brute-force model', (engine) => {
  const { calls, records } = record();
  let path: string;
  let writer: ReturnType<typeof createHistoryWriter>;
  let reader: ReturnType<typeof createHistoryReader>;
  beforeAll(async () => {
    path = await engine.target();
    const db = openDatabase(path);
    writer = createHistoryWriter(db, { batchFrames: 5 });
    for (const r of records) writer.writePoll(r);
    reader = createHistoryReader(db);
    // read once for the tests that compare with it (on PostgreSQL a pass over the probes takes seconds)
    states = probes.map((at) => reader.stateAt('connections', at));
  });
  const probes = [calls[0]!.at - 1n, ...calls.flatMap((c) => [c.at, c.at + SEC])];
  /** stateAt('connections') of each probe, read after the writes */
  let states: ReturnType<typeof reader.stateAt>[];

  it('answers the state of connections as of any instant (fan-out unions, failures skipped)', () => {
    for (const [i, at] of probes.entries()) {
      const got = states[i]!;
      expect(got.rows).toEqual(modelState(calls, at));
      if (got.rows.length > 0) expect(got.poll!.startTime <= at).toBe(true);
    }
    expect(reader.stateAt('connections', probes[0]!)).toEqual({ poll: undefined, polls: [], rows: [] });
  });

  it("gives the state's connections as their versions: the same uids in the same order, slow fields and newest poll", () => {
    for (const [i, at] of probes.entries()) {
      const state = states[i]!;
      const got = reader.connectionVersionsAt(at);
      expect(got.poll).toEqual(state.poll);
      const rows = state.rows as KafkaConnection[];
      expect(got.versions.map((v) => [v.uid, v.state, v.clientId, v.closeTime])).toEqual(
        rows.map((r) => [r.uid, r.state, r.clientId, r.closeTime]),
      );
    }
  });

  it("gives each operation's newest poll in one read, as recentPolls does one operation at a time", () => {
    const operations = [...OPERATION_NAMES, 'ListKafkaConnections'] as const;
    for (const until of probes) {
      const each = operations.map((operation) => reader.recentPolls({ operation, until, limit: 1 })[0]);
      expect(reader.newestPolls({ operations, until })).toEqual(each);
    }
    expect(reader.newestPolls({ operations: [], until: probes.at(-1)! })).toEqual([]);
  });

  it('answers poll ranges inside one read transaction as outside it (a range inside a wider one read first)', () => {
    const since = calls[3]!.at;
    const until = calls[30]!.at;
    const asks = [
      { since, until },
      { since: since + SEC, until, operation: 'ListKafkaConnections' as const },
      { since: calls[10]!.at, until: calls[20]!.at },
      { since: calls[10]!.at, until: calls[20]!.at, limit: 3 },
      { since: since - SEC, until },
      { since, until: until + 5n * SEC },
    ];
    const cluster = reader.clusters()[0]!;
    const outside = asks.map((q) => reader.polls({ ...q, cluster }));
    const inside = reader.consistent(() => [
      reader.polls({ since, until, cluster }),
      ...asks.map((q) => reader.polls({ ...q, cluster })),
    ]);
    expect(inside.slice(1)).toEqual(outside);
    expect(outside[2]!.length).toBeGreaterThan(0);
  });

  it('applies the filter engine pre-filter as a superset, the closure keeping exactly the matches', () => {
    const filter = compileFilter(
      'node_id = 1 AND client_software_name != "sarama" AND state = KAFKA_CONNECTION_STATE_OPEN',
      {
        resource: 'connections',
        dialect: 'extended',
      },
    );
    const pre = toSqlPrefilter(filter, reader.sqlColumns('connections'));
    expect(pre.where).not.toBe('1');
    for (const at of probes.slice(0, 30)) {
      const all = modelState(calls, at).filter((r) => filter.matches(r));
      const got = reader.stateAt('connections', at, { prefilter: pre }).rows.filter((r) => filter.matches(r));
      expect(got).toEqual(all);
      expect(reader.stateAt('connections', at, { filter, prefilter: pre }).rows).toEqual(all);
      expect(reader.stateAt('connections', at, { filter }).rows).toEqual(all);
    }
  });

  it('lists every sample in a range in poll order, and each poll equals its reconstruction', () => {
    const since = calls[6]!.at;
    const until = calls[30]!.at;
    const samples = [...reader.samples('connections', { since, until })];
    const expected = calls.filter((c) => c.ok && c.at >= since && c.at <= until).flatMap((c) => c.rows);
    expect(samples.map((s) => s.row)).toEqual(expected);
    for (let i = 1; i < samples.length; i++)
      expect(samples[i - 1]!.poll.startTime <= samples[i]!.poll.startTime).toBe(true);
  });

  it('gives one connection its full history, sealed batches and open head alike', () => {
    const uids = new Set(calls.flatMap((c) => c.rows.map((r) => r.uid)));
    for (const uid of [...uids].slice(0, 25)) {
      const expected = calls.flatMap((c) => c.rows.filter((r) => r.uid === uid).map((row) => ({ at: c.at, row })));
      const got = reader.entityHistory('connections', { uid });
      expect(got.map((s) => s.row)).toEqual(expected.map((e) => e.row));
      expect(got.map((s) => s.poll.startTime)).toEqual(expected.map((e) => e.at));
      const mid = expected[Math.floor(expected.length / 2)]!.at;
      expect(reader.entityHistory('connections', { uid }, { since: mid }).length).toBe(
        expected.filter((e) => e.at >= mid).length,
      );
    }
  });

  it('reports polls and gaps', () => {
    const polls = reader.polls({ operation: 'ListKafkaConnections' });
    expect(polls.length).toBe(records.length);
    expect(polls.filter((p) => p.outcome === 'unavailable').length).toBe(4);
    expect(polls[0]!.coverage).toBe('truncated');
    expect(reader.polls({ cluster: 'prod', limit: 5 }).length).toBe(5);
    const window = { operation: 'ListKafkaConnections', expectedIntervalNs: 60n * SEC } as const;
    const gaps = pollGaps(reader, { ...window, since: calls[0]!.at, until: calls.at(-1)!.at });
    // round 9 failed entirely: from the last call of round 8 to the first of round 10
    expect(gaps).toEqual([{ from: calls[8 * 3 + 2]!.at, to: calls[10 * 3]!.at, reason: 'failed' }]);
    const late = pollGaps(reader, { ...window, since: calls[0]!.at, until: calls.at(-1)!.at + 600n * SEC });
    expect(late.at(-1)).toEqual({ from: calls.at(-1)!.at, to: calls.at(-1)!.at + 600n * SEC, reason: 'no-poll' });
  });

  it('survives sealing and a read-only reopen with the same answers', () => {
    // the answers before sealing are the model's (the first test compares every probe with it):
    // compared with the model, not read again, which takes seconds on PostgreSQL
    writer.close();
    const ro = openDatabase(path, { readonly: true });
    const r2 = createHistoryReader(ro);
    expect(probes.map((at) => r2.stateAt('connections', at).rows)).toEqual(probes.map((at) => modelState(calls, at)));
    ro.close();
  });
});

forEachEngine('stateAt of the small resources', (engine) => {
  it('takes the latest successful poll per target; shadow topics from any operation that carries them', async () => {
    const db = openDatabase(await engine.target());
    const writer = createHistoryWriter(db);
    const at = (m: number): bigint => 1_756_720_974_000_000_000n + BigInt(m) * 60n * SEC;
    writer.writePoll(
      okRecord('GetShadowLink', shadowLinkAnswer(1), { at: at(0), request: { name: 'dr-link' }, target: 'dr-link' }),
    );
    writer.writePoll(okRecord('GetUpgradeStatus', upgradeAnswer(1), { at: at(0), request: {} }));
    writer.writePoll(
      failedRecord(
        'GetUpgradeStatus',
        { code: 'unavailable', kind: 'transport', message: 'x' },
        { at: at(1), request: {} },
      ),
    );
    writer.writePoll(
      okRecord(
        'GetShadowTopic',
        { shadowTopic: shadowTopic('orders', 5) },
        { at: at(2), request: { shadowLinkName: 'dr-link', name: 'orders' }, target: 'dr-link/orders' },
      ),
    );
    writer.writePoll(
      okRecord(
        'ListShadowTopics',
        { shadowTopics: [shadowTopic('payments', 9)] },
        { at: at(3), request: { shadowLinkName: 'dr-link' }, target: 'dr-link' },
      ),
    );
    const reader = createHistoryReader(db);
    const names = (t: bigint): string[] =>
      reader.stateAt('shadow-topics', t).rows.map((r) => (r as { name: string }).name);
    expect(names(at(0))).toEqual(['orders', 'payments']);
    expect(names(at(2))).toEqual(['orders', 'payments']);
    const orders = reader.stateAt('shadow-topics', at(2)).rows[0] as {
      status: { partitionInformation: { highWatermark: bigint }[] };
    };
    expect(orders.status.partitionInformation[0]!.highWatermark).toBe(5000n);
    // the newer link-wide listing no longer has "orders": it is gone
    expect(names(at(3))).toEqual(['payments']);
    const parts = reader.stateAt('shadow-partitions', at(3)).rows as { topicName: string; lag: bigint }[];
    expect(parts.every((p) => p.topicName === 'payments')).toBe(true);
    expect(reader.stateAt('upgrade-members', at(1)).poll!.startTime).toBe(at(0));
    expect(reader.stateAt('upgrade', at(1)).rows).toEqual([upgradeAnswer(1)]);
    expect(reader.stateAt('shadow-tasks', at(5)).rows.length).toBe(3);
    expect(reader.stateAt('shadow-links', at(5)).rows[0]).toEqual(shadowLinkAnswer(1).shadowLink);
    expect(
      reader.entityHistory('shadow-topics', { shadowLinkName: 'dr-link', name: 'orders' }).map((s) => s.poll.startTime),
    ).toEqual([at(0), at(2)]);
    expect(reader.entityHistory('upgrade-members', { nodeId: 2 }).length).toBe(1);
    writer.close();
  });
});
