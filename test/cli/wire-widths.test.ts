/**
 * Issue 13 end to end on the command line: unsigned widths (uint32 shard id and port, uint64
 * counters and totalSize) through import, query (server dialect filters and order_by) and
 * export; a negative literal against an unsigned field exits 2 naming the field.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJsonLossless, type JsonValue } from '../../src/api/codec/lossless-json.ts';
import { main } from '../../src/cli/main.ts';
import { memoryIo } from '../helpers/memory-io.ts';

const U64_MAX = '18446744073709551615';
const U32_MAX = 4294967295;

const connection = (uid: string, nodeId: number, counter: string, shardId: number): Record<string, JsonValue> => ({
  uid,
  nodeId,
  shardId,
  source: { ipAddress: '\ufeff10.0.0.1', port: U32_MAX },
  groupMemberId: '\ufeffbom',
  state: 'KAFKA_CONNECTION_STATE_OPEN',
  totalRequestStatistics: {
    fetchBytes: counter,
    produceBatchCount: counter,
    produceBytes: counter,
    requestCount: counter,
  },
  recentRequestStatistics: {
    fetchBytes: counter,
    produceBatchCount: '0',
    produceBytes: counter,
    requestCount: counter,
  },
});

let dir: string;
let db: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'flightrec-widths-'));
  db = join(dir, 'h.db');
  const answer = {
    connections: [
      connection('max', 2, U64_MAX, U32_MAX),
      connection('mid', 7, '9223372036854775808', 2147483648),
      connection('low', 5, '1', 0),
    ],
    totalSize: U64_MAX,
  };
  writeFileSync(join(dir, 'answer.json'), JSON.stringify(answer));
  const io = memoryIo({ cwd: dir });
  const code = await main(
    ['--db', db, 'import', '--op', 'ListKafkaConnections', '--at', '2025-09-01T10:00:00Z', 'answer.json'],
    io,
  );
  expect(io.err()).toContain('stored as poll');
  expect(code).toBe(0);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIo({ cwd: dir, now: () => Date.parse('2025-09-01T10:05:00Z') });
  const code = await main(['--db', db, ...args], io);
  return { code, out: io.out(), err: io.err() };
}

function rows(out: string): Record<string, JsonValue>[] {
  return (parseJsonLossless(out) as { rows: Record<string, JsonValue>[] }).rows;
}

describe('unsigned widths on the command line', () => {
  it('import keeps counters of 2^64-1 and a shard id of 2^32-1 exactly', async () => {
    const r = await cli('query', 'connections', '-o', 'json');
    expect(r.code).toBe(0);
    const max = rows(r.out).find((c) => c.uid === 'max')!;
    expect(max.shardId).toBe(U32_MAX);
    expect((max.source as Record<string, JsonValue>).port).toBe(U32_MAX);
    expect((max.source as Record<string, JsonValue>).ipAddress).toBe('\ufeff10.0.0.1');
    expect(max.groupMemberId).toBe('\ufeffbom');
    expect(max.totalRequestStatistics).toEqual({
      fetchBytes: U64_MAX,
      produceBatchCount: U64_MAX,
      produceBytes: U64_MAX,
      requestCount: U64_MAX,
    });
  });

  it('the server dialect accepts and matches a uint64 literal above 2^63-1', async () => {
    const r = await cli(
      'query',
      'connections',
      '--dialect',
      'server',
      '--filter',
      `total_request_statistics.request_count = ${U64_MAX}`,
      '-o',
      'json',
    );
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(rows(r.out).map((c) => c.uid)).toEqual(['max']);
    const gt = await cli(
      'query',
      'connections',
      '--dialect',
      'server',
      '--filter',
      'total_request_statistics.request_count > 9223372036854775807 AND shard_id >= 2147483648',
      '-o',
      'json',
    );
    expect(
      rows(gt.out)
        .map((c) => c.uid)
        .sort(),
    ).toEqual(['max', 'mid']);
  });

  it.each([
    ['total_request_statistics.request_count > -1', 'total_request_statistics.request_count (uint64)'],
    ['shard_id = -1', 'shard_id (uint32)'],
    ['source.port = -1', 'source.port (uint32)'],
  ])('%s exits 2 naming the unsigned field', async (filter, field) => {
    const r = await cli('query', 'connections', '--dialect', 'server', '--filter', filter);
    expect(r.code).toBe(2);
    expect(r.err).toContain(field);
    expect(r.err).toContain('negative value -1 not allowed for unsigned');
    expect(r.out).toBe('');
  });

  it("--order-by ' node_id   DESC ' sorts by node id descending (the direction is stripped, as the server does)", async () => {
    const r = await cli('query', 'connections', '--dialect', 'server', '--order-by', ' node_id   DESC ', '-o', 'json');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(rows(r.out).map((c) => c.nodeId)).toEqual([7, 5, 2]);
    const both = await cli(
      'query',
      'connections',
      '--dialect',
      'server',
      '--order-by',
      'shard_id   desc ,  node_id',
      '-o',
      'json',
    );
    expect(rows(both.out).map((c) => c.uid)).toEqual(['max', 'mid', 'low']);
  });

  it('export gives the answer back with every digit, totalSize included', async () => {
    const out = join(dir, 'export.json');
    const r = await cli('export', '--out', out);
    expect(r.code).toBe(0);
    const bundle = parseJsonLossless(readFileSync(out)) as {
      polls: {
        answer: { totalSize: JsonValue; connections: Record<string, JsonValue>[] };
        poll: Record<string, JsonValue>;
      }[];
    };
    const answer = bundle.polls[0]!.answer;
    expect(answer.totalSize).toBe(U64_MAX);
    expect(answer.connections.map((c) => (c.totalRequestStatistics as Record<string, JsonValue>).requestCount)).toEqual(
      [U64_MAX, '9223372036854775808', '1'],
    );
    expect(answer.connections[0]!.shardId).toBe(U32_MAX);
  });

  it('trends give a finite rate for counters near 2^64 (no overflow)', async () => {
    // a second poll a minute later, the counters grown by 60 (the largest connection wraps nothing)
    const later = {
      connections: [
        connection('max', 2, U64_MAX, U32_MAX),
        connection('mid', 7, '9223372036854775868', 2147483648),
        connection('low', 5, '61', 0),
      ],
      totalSize: '3',
    };
    writeFileSync(join(dir, 'later.json'), JSON.stringify(later));
    expect(
      (await cli('import', '--op', 'ListKafkaConnections', '--at', '2025-09-01T10:01:00Z', 'later.json')).code,
    ).toBe(0);
    const r = await cli(
      'trends',
      'requests',
      '--by',
      'connection',
      '--since',
      '2025-09-01T09:59:00Z',
      '--until',
      '2025-09-01T10:02:00Z',
      '-o',
      'json',
    );
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const doc = parseJsonLossless(r.out) as { rows: { key: string; value: number }[] };
    const byKey = new Map(doc.rows.map((row) => [row.key, row.value]));
    expect(byKey.get('mid')).toBe(1);
    expect(byKey.get('low')).toBe(1);
    expect(byKey.get('max')).toBe(0);
    for (const row of doc.rows) expect(Number.isFinite(row.value)).toBe(true);
  });
});
