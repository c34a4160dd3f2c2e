/**
 * A pre-filtered state read takes the verdicts and the passing versions' records in one statement
 * (connections/parts.ts loadPassing): for filters that SQL decides exactly, its rows must be exactly
 * the matching rows of the unfiltered read, in answer order, whatever the reader read before
 * (nothing, the unfiltered state, other filters).
 */
import { describe, expect, it } from 'vitest';
import { stringifyJson, type JsonValue } from '../../src/api/codec/lossless-json.ts';
import type { KafkaConnection } from '../../src/api/schema/connection.ts';
import { parseAnswer } from '../../src/api/wire/answers.ts';
import { createHistoryReader, createHistoryWriter, openDatabase, CONNECTION_COLUMNS } from '../../src/db/index.ts';
import { decodeIdList, encodeIdList } from '../../src/db/encoding/sql-values.ts';
import { compileFilter, toSqlPrefilter } from '../../src/filter/index.ts';
import Database from 'better-sqlite3';
import { LIST_REQUEST, okRecord, tempDbPath } from './fixtures.ts';

const NS = 1_000_000_000n;
const AT = 1_756_720_974_000_000_000n;

const FILTERS = [
  'node_id = 1',
  'node_id = 999',
  'node_id != 1 AND client_id = "app-2"',
  'client_id = "app-1" OR shard_id = 3',
  'authentication_info.user_principal = "User:u0"',
];

/** 40 connections over 3 nodes; a second poll moves some to another client (new versions) and drops a few. */
function connections(poll: number): JsonValue[] {
  const out: JsonValue[] = [];
  for (let i = 0; i < 40; i++) {
    if (poll === 1 && i % 13 === 5) continue;
    out.push({
      uid: `c${String(i).padStart(2, '0')}`,
      nodeId: i % 3,
      shardId: i % 5,
      clientId: `app-${poll === 1 && i % 4 === 0 ? 9 : i % 3}`,
      authenticationInfo: { userPrincipal: `User:u${i % 2}` },
      totalRequestStatistics: { produceBytes: String(1000 * i + poll), requestCount: String(i) },
    });
  }
  return out;
}

describe('a pre-filtered state read', () => {
  it('gives the matching rows of the unfiltered read, whatever the reader read before', () => {
    const db = openDatabase(tempDbPath());
    const writer = createHistoryWriter(db, { batchFrames: 2 });
    const ats = [AT, AT + 60n * NS, AT + 120n * NS];
    ats.forEach((at, poll) => {
      const rows = connections(poll);
      const answer = parseAnswer(
        'ListKafkaConnections',
        Buffer.from(stringifyJson({ connections: rows, totalSize: String(rows.length) })),
      );
      writer.writePoll(okRecord('ListKafkaConnections', answer, { at, request: LIST_REQUEST }));
    });
    writer.close();
    const ro = openDatabase(db.path, { readonly: true });
    for (const at of ats) {
      const all = createHistoryReader(ro).stateAt('connections', at).rows as KafkaConnection[];
      expect(all.length).toBeGreaterThan(30);
      const warm = createHistoryReader(ro);
      warm.stateAt('connections', at);
      const reused = createHistoryReader(ro);
      for (const expr of FILTERS) {
        const pre = toSqlPrefilter(
          compileFilter(expr, { resource: 'connections', dialect: 'extended' }),
          CONNECTION_COLUMNS,
        );
        // these filters are exact in SQL: the pre-filter lets through the matches only
        const filter = compileFilter(expr, { resource: 'connections', dialect: 'extended' });
        const expected = all.filter((r) => filter.matches(r));
        for (const reader of [createHistoryReader(ro), warm, reused]) {
          const rows = reader.stateAt('connections', at, { prefilter: pre }).rows as KafkaConnection[];
          expect(rows, `${expr} at ${at}`).toEqual(expected);
        }
      }
    }
    ro.close();
  });

  it('drops a row whose version id no version can have (a damaged id list) instead of failing on it', () => {
    const db = openDatabase(tempDbPath());
    const writer = createHistoryWriter(db, { batchFrames: 2 });
    const rows = connections(0);
    const answer = parseAnswer(
      'ListKafkaConnections',
      Buffer.from(stringifyJson({ connections: rows, totalSize: String(rows.length) })),
    );
    writer.writePoll(okRecord('ListKafkaConnections', answer, { at: AT, request: LIST_REQUEST }));
    writer.close();
    const raw = new Database(db.path);
    const frame = raw.prepare('SELECT poll, rows, versions FROM conn_frame').get() as {
      poll: number;
      rows: number;
      versions: Buffer;
    };
    const ids = decodeIdList(frame.versions, frame.rows);
    ids[0] = 2 ** 40; // beyond any row id
    raw.prepare('UPDATE conn_frame SET versions = ? WHERE poll = ?').run(encodeIdList(ids), frame.poll);
    raw.close();
    const ro = openDatabase(db.path, { readonly: true });
    const expr = 'node_id = 1';
    const pre = toSqlPrefilter(
      compileFilter(expr, { resource: 'connections', dialect: 'extended' }),
      CONNECTION_COLUMNS,
    );
    const got = createHistoryReader(ro).stateAt('connections', AT, { prefilter: pre }).rows as KafkaConnection[];
    // the damaged row was c00 on node 0: node 1's rows are all there, and nothing else
    expect(got.map((r) => r.uid)).toEqual(
      rows.filter((_, i) => i % 3 === 1).map((_, k) => `c${String(3 * k + 1).padStart(2, '0')}`),
    );
    ro.close();
  });
});
