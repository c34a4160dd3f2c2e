/**
 * The SQL pre-filter of the store against exact evaluation (issue 19, point 3): for random
 * connections written through the real writer (times from year 1 to 9999, both widths at their
 * extremes, strings with lone surrogates that SQLite keeps as BLOBs) and random filters, every
 * row the filter matches is among the rows the pre-filter lets through: it stays a superset.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringifyJson } from '../../src/api/codec/lossless-json.ts';
import { KafkaConnection } from '../../src/api/schema/connection.ts';
import { parseAnswer } from '../../src/api/wire/answers.ts';
import { createHistoryReader, createHistoryWriter, openDatabase, CONNECTION_COLUMNS } from '../../src/db/index.ts';
import { compileFilter, toSqlPrefilter, type Dialect } from '../../src/filter/index.ts';
import { formatFilterTimestamp } from '../../src/filter/printer.ts';
import { filterArb } from '../filter/gen.ts';
import { messageArb } from '../helpers/wire-gen.ts';
import { LIST_REQUEST, okRecord, tempDbPath } from './fixtures.ts';

const NS = 1_000_000_000n;
/** filter literals across the whole range the API allows, the int64-nanosecond limits included */
const TIMES = [
  -62_135_596_800n * NS, // 0001-01-01
  -62_135_596_800n * NS + 1n,
  -9_223_372_036_854_775_808n, // 1677-09-21T00:12:43.145224192Z
  -9_223_372_036_854_775_807n,
  0n,
  946_684_800n * NS, // 2000-01-01
  1_756_720_800n * NS,
  9_223_372_036_854_775_807n, // 2262-04-11T23:47:16.854775807Z
  9_223_372_036_854_775_807n + 1n,
  253_402_300_799n * NS, // 9999-12-31T23:59:59Z
  253_402_300_799n * NS + 999_999_999n,
].map(formatFilterTimestamp);

const OPS = ['=', '!=', '<', '<=', '>', '>='];

/** Comparisons and presence tests on the two timestamp columns. */
function timeFilterArb(dialect: Dialect): fc.Arbitrary<string> {
  const cmp = fc
    .tuple(fc.constantFrom('open_time', 'close_time'), fc.constantFrom(...OPS), fc.constantFrom(...TIMES))
    .map(([path, op, t]) => `${path} ${op} ${t}`);
  if (dialect === 'server') return fc.array(cmp, { minLength: 1, maxLength: 3 }).map((cs) => cs.join(' AND '));
  const term = fc.oneof(
    cmp,
    fc.constantFrom('close_time:*', 'open_time:*', 'NOT close_time:*'),
    filterArb('connections', 'extended'),
  );
  return fc
    .tuple(term, term, fc.constantFrom('AND', 'OR'), fc.boolean())
    .map(([a, b, op, neg]) => `${neg ? 'NOT ' : ''}(${a}) ${op} (${b})`);
}

const connectionsArb = fc.array(messageArb(KafkaConnection), { minLength: 1, maxLength: 8 }).map((rows) =>
  // unique uids, so that rows can be told apart
  rows.map((r, i) => ({ ...r, uid: `c${i}${typeof r.uid === 'string' ? r.uid : ''}` })),
);

describe('the SQL pre-filter stays a superset of the exact matches (differential)', () => {
  it.each(['server', 'extended'] as const)('%s dialect', (dialect) => {
    const db = openDatabase(tempDbPath());
    const writer = createHistoryWriter(db, { batchFrames: 2 });
    const reader = createHistoryReader(db);
    let at = 1_756_720_974_000_000_000n;
    let compared = 0;
    fc.assert(
      fc.property(
        connectionsArb,
        fc.array(fc.oneof(timeFilterArb(dialect), filterArb('connections', dialect)), { minLength: 1, maxLength: 6 }),
        (rows, filters) => {
          const answer = parseAnswer(
            'ListKafkaConnections',
            Buffer.from(stringifyJson({ connections: rows, totalSize: String(rows.length) })),
          );
          at += 60n * NS;
          writer.writePoll(okRecord('ListKafkaConnections', answer, { at, request: LIST_REQUEST }));
          const all = reader.stateAt('connections', at).rows as KafkaConnection[];
          expect(all.length).toBe(rows.length);
          for (const expr of filters) {
            const filter = compileFilter(expr, { resource: 'connections', dialect });
            const pre = toSqlPrefilter(filter, CONNECTION_COLUMNS);
            const passed = new Set(
              (reader.stateAt('connections', at, { prefilter: pre }).rows as KafkaConnection[]).map((r) => r.uid),
            );
            const exact = all.filter((r) => filter.matches(r)).map((r) => r.uid);
            const dropped = exact.filter((uid) => !passed.has(uid));
            expect(dropped, `${expr}\nWHERE ${pre.where}`).toEqual([]);
            compared++;
          }
        },
      ),
      { numRuns: 150, seed: 1919 },
    );
    writer.close();
    expect(compared).toBeGreaterThan(150);
  });

  it('keeps rows whose times lie beyond 2262 (or before 1678) for the filters of the issue', () => {
    const db = openDatabase(tempDbPath());
    const writer = createHistoryWriter(db);
    const reader = createHistoryReader(db);
    const far = {
      uid: 'far',
      openTime: '9999-12-31T23:59:59.999999999Z',
      closeTime: '9999-12-31T23:59:59Z',
      state: 'KAFKA_CONNECTION_STATE_CLOSED',
    };
    const early = { uid: 'early', openTime: '0001-01-01T00:00:00.000000001Z' };
    const answer = parseAnswer(
      'ListKafkaConnections',
      Buffer.from(JSON.stringify({ connections: [far, early], totalSize: '2' })),
    );
    const at = 1_756_720_974_000_000_000n;
    writer.writePoll(okRecord('ListKafkaConnections', answer, { at, request: LIST_REQUEST }));
    const uids = (expr: string, dialect: Dialect = 'extended'): string[] => {
      const filter = compileFilter(expr, { resource: 'connections', dialect });
      const prefilter = toSqlPrefilter(filter, CONNECTION_COLUMNS);
      return (reader.stateAt('connections', at, { filter, prefilter }).rows as KafkaConnection[]).map((r) => r.uid);
    };
    expect(uids('open_time > 2000-01-01T00:00:00Z', 'server')).toEqual(['far']);
    expect(uids('close_time:*')).toEqual(['far']);
    expect(uids('open_time != 1970-01-01T00:00:00Z', 'server')).toEqual(['far', 'early']);
    expect(uids('open_time < 1000-01-01T00:00:00Z', 'server')).toEqual(['early']);
    expect(uids('NOT open_time < 2000-01-01T00:00:00Z')).toEqual(['far']);
    writer.close();
  });

  it('keeps rows whose strings hold lone surrogates (stored as BLOBs, which SQL cannot compare as text)', () => {
    const db = openDatabase(tempDbPath());
    const writer = createHistoryWriter(db);
    const reader = createHistoryReader(db);
    const rows = [
      { uid: 'u\ud800', clientId: '\ud800', groupMemberId: 'm\udc00', listenerName: '\udbff' },
      { uid: 'plain', clientId: 'zz', groupMemberId: 'm', listenerName: 'internal' },
    ];
    const body = JSON.stringify({ connections: rows }); // lone surrogates written as \\ud800 escapes
    expect(body).toContain('\\ud800');
    const at = 1_756_720_974_000_000_000n;
    writer.writePoll(
      okRecord('ListKafkaConnections', parseAnswer('ListKafkaConnections', Buffer.from(body)), {
        at,
        request: LIST_REQUEST,
      }),
    );
    const uids = (expr: string): string[] => {
      const filter = compileFilter(expr, { resource: 'connections', dialect: 'extended' });
      const prefilter = toSqlPrefilter(filter, CONNECTION_COLUMNS);
      return (reader.stateAt('connections', at, { filter, prefilter }).rows as KafkaConnection[]).map((r) => r.uid);
    };
    expect(uids('client_id < "🚀"')).toEqual(['u\ud800', 'plain']);
    expect(uids('uid < "v"')).toEqual(['u\ud800', 'plain']);
    expect(uids('group_member_id <= "m\\xF0"')).toEqual(['u\ud800', 'plain']);
    expect(uids('listener_name > "a"')).toEqual(['u\ud800', 'plain']);
    writer.close();
  });
});
