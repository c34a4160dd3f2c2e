import { describe, expect, it } from 'vitest';
import type { KafkaConnection } from '../../src/api/schema/connection.ts';
import type { PollRow } from '../../src/api/schema/resources.ts';
import { FilterError } from '../../src/filter/index.ts';
import { QueryOptionsError, runQuery, type ReportReader } from '../../src/report/index.ts';
import { fakeReader } from '../fixtures/report/fake-reader.ts';
import { connectionsAt, MINUTE, scenarioRecords, T, T0 } from '../fixtures/report/scenario.ts';

const reader = fakeReader(scenarioRecords());
const uids = (rows: object[]): string[] => rows.map((r) => (r as KafkaConnection).uid.slice(0, 1));

describe('runQuery as of an instant', () => {
  it('answers from the latest successful poll at or before the instant, ordered by key', () => {
    const r = runQuery(reader, { resource: 'connections', at: T[1]! + 30n * 1_000_000_000n });
    expect(r.mode).toBe('at');
    expect(r.poll?.id).toBe(3n);
    expect(r.poll?.startTime).toBe(T[1]);
    expect(uids(r.rows)).toEqual(['a', 'b', 'c', 'd']);
    expect(r.total).toBe(4);
    expect(r.rows).toEqual([...connectionsAt(1)].sort((x, y) => (x.uid < y.uid ? -1 : 1)));
  });

  it('keeps answering from the last success while later polls fail', () => {
    const r = runQuery(reader, { resource: 'connections', at: T[3]! });
    expect(r.poll?.startTime).toBe(T[2]);
  });

  it('reports no poll (and no rows) before the first one', () => {
    const r = runQuery(reader, { resource: 'connections', at: T0 - 1n });
    expect(r.poll).toBeUndefined();
    expect(r.rows).toEqual([]);
    expect(r.total).toBe(0);
  });

  it('filters in the extended dialect by default and counts matches before the limit', () => {
    const r = runQuery(reader, {
      resource: 'connections',
      at: T[1]!,
      filter: 'state = KAFKA_CONNECTION_STATE_CLOSED OR client_id = "audit*"',
    });
    expect(uids(r.rows)).toEqual(['b', 'c']);
    const limited = runQuery(reader, { resource: 'connections', at: T[1]!, limit: 1, orderBy: 'node_id desc' });
    expect(uids(limited.rows)).toEqual(['c']);
    expect(limited.total).toBe(4);
    expect(limited.orderBy).toBe('node_id desc');
  });

  it('accepts exactly the cluster dialect with dialect server', () => {
    const ok = runQuery(reader, {
      resource: 'connections',
      at: T[1]!,
      dialect: 'server',
      filter: 'node_id = 1 AND group_id = "orders"',
    });
    expect(uids(ok.rows)).toEqual(['a']);
    expect(() =>
      runQuery(reader, { resource: 'connections', at: T[1]!, dialect: 'server', filter: 'node_id = 1 OR node_id = 2' }),
    ).toThrow(FilterError);
  });

  it('throws FilterError for an invalid order_by', () => {
    expect(() => runQuery(reader, { resource: 'connections', at: T[1]!, orderBy: 'nope desc' })).toThrow(FilterError);
  });

  it('queries derived resources (shadow partitions with lag)', () => {
    const r = runQuery(reader, { resource: 'shadow-partitions', at: T[2]!, filter: 'lag > 0' });
    expect(r.rows).toHaveLength(2);
    expect(r.rows.map((p) => (p as { lag: bigint }).lag)).toEqual([100n, 100n]);
  });
});

describe('runQuery over a range', () => {
  it('returns every sample with its poll, by time then key', () => {
    const r = runQuery(reader, { resource: 'connections', since: T[0]!, until: T[4]!, filter: 'node_id = 1' });
    expect(r.mode).toBe('range');
    expect(r.samples?.map((s) => [s.poll.startTime, (s.row as KafkaConnection).uid[0]])).toEqual([
      [T[0], 'a'],
      [T[1], 'a'],
      [T[1], 'd'],
      [T[2], 'a'],
      [T[2], 'd'],
      [T[4], 'a'],
      [T[4], 'd'],
    ]);
    expect(r.rows).toEqual(r.samples?.map((s) => s.row));
    expect(r.total).toBe(7);
  });

  it('orders samples by order_by first, then time, and applies the limit', () => {
    const r = runQuery(reader, { resource: 'connections', since: T[0]!, until: T[1]!, orderBy: 'client_id', limit: 3 });
    expect(r.samples?.map((s) => `${(s.row as KafkaConnection).clientId}@${(s.poll.startTime - T0) / MINUTE}`)).toEqual(
      ['=cmd|"/C calc"!A0\u001b[31m-evil@1', 'audit-idle@0', 'audit-idle@1'],
    );
    expect(r.total).toBe(7);
  });

  it('refuses contradictory options', () => {
    expect(() => runQuery(reader, { resource: 'connections', at: T[0]!, since: T[0]!, until: T[1]! })).toThrow(
      QueryOptionsError,
    );
    expect(() => runQuery(reader, { resource: 'connections', since: T[0]! })).toThrow(QueryOptionsError);
    expect(() => runQuery(reader, { resource: 'connections', since: T[2]!, until: T[1]! })).toThrow(
      /since is after until/,
    );
    expect(() => runQuery(reader, { resource: 'connections', at: T[0]!, limit: -1 })).toThrow(QueryOptionsError);
  });
});

describe('runQuery of polls', () => {
  it('lists recorded polls, failures included, and filters them', () => {
    const failed = runQuery(reader, { resource: 'polls', at: T[4]!, filter: 'outcome != "ok"' });
    expect(failed.rows.map((p) => (p as PollRow).id)).toEqual([7n, 8n]);
    const range = runQuery(reader, { resource: 'polls', since: T[1]!, until: T[2]!, orderBy: 'id desc' });
    expect(range.rows.map((p) => (p as PollRow).id)).toEqual([6n, 5n, 4n, 3n]);
  });
});

describe('the SQL pre-filter', () => {
  it('is handed to the reader when it offers columns, and the closure re-checks what comes back', () => {
    const seen: unknown[] = [];
    const spy: ReportReader = {
      ...reader,
      sqlColumns: (resource) =>
        resource === 'connections' ? { node_id: { sql: 'c.node_id', type: 'integer' } } : undefined,
      stateAt(resource, at, opts) {
        seen.push(opts?.prefilter);
        return reader.stateAt(resource, at, opts); // a superset: the fake ignores the SQL
      },
    };
    const r = runQuery(spy, { resource: 'connections', at: T[1]!, filter: 'node_id = 1 AND client_id = "orders*"' });
    expect(seen).toEqual([{ where: expect.stringContaining('c.node_id'), params: [1] }]);
    expect(uids(r.rows)).toEqual(['a']);
  });

  it('is not used without a filter or without columns', () => {
    const seen: unknown[] = [];
    const spy: ReportReader = {
      ...reader,
      stateAt(resource, at, opts) {
        seen.push(opts?.prefilter);
        return reader.stateAt(resource, at, opts);
      },
    };
    runQuery(spy, { resource: 'connections', at: T[1]!, filter: 'node_id = 1' });
    runQuery(
      { ...spy, sqlColumns: () => ({ node_id: { sql: 'x', type: 'integer' } }) },
      { resource: 'connections', at: T[1]! },
    );
    expect(seen).toEqual([undefined, undefined]);
  });
});
