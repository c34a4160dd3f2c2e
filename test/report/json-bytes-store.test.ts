/**
 * The JSON bytes of a query (row-bytes.ts) for rows as the store gives them back (shared frozen
 * sub-objects, frozen API-version maps written once and copied after): byte for byte what
 * formatJson writes of queryToJson's tree, the first time and again from what the writer kept,
 * for connections with unknown fields, counters beyond 2^53, absent fields and characters a
 * terminal would act on.
 */
import { describe, expect, it } from 'vitest';
import type { KafkaConnection } from '../../src/api/schema/connection.ts';
import { createHistoryReader, createHistoryWriter, openDatabase } from '../../src/db/index.ts';
import { runQuery } from '../../src/report/query.ts';
import { formatJson, queryToJson, queryToJsonText, queryToNdjson, encodeRow } from '../../src/report/render/json.ts';
import { cloneConnection, generateConnectionPolls } from '../helpers/connection-answers.ts';
import { TERMINAL_UNSAFE_STRINGS } from '../helpers/unsafe-strings.ts';
import { LIST_REQUEST, okRecord, tempDbPath } from '../db/fixtures.ts';

const MIN = 60_000_000_000n;

/** Three polls of 150 connections, some of them odd, recorded and read back as of each poll. */
function recorded(): { at: bigint[]; reader: ReturnType<typeof createHistoryReader> } {
  const path = tempDbPath();
  const writer = createHistoryWriter(openDatabase(path), { batchFrames: 2 });
  const polls = generateConnectionPolls({
    connections: 150,
    polls: 3,
    seed: 7,
    unknownFields: true,
    hugeCounters: true,
  });
  const at = polls.map((p, i) => {
    const cs = p.answer.connections.map(cloneConnection);
    TERMINAL_UNSAFE_STRINGS.forEach((text, k) => {
      const c = cs[k * 3]!;
      c.clientId = text;
      c.authenticationInfo = { ...c.authenticationInfo, userPrincipal: `User:${text}` };
    });
    cs[1]!.apiVersions = { '007': 1, '-1': 2, '3': 4, '\u202e': 5 };
    cs[2]!.idleDuration = 315_576_000_000_999_999_999n;
    cs[4]!.totalRequestStatistics = { ...cs[4]!.totalRequestStatistics, fetchBytes: 2n ** 64n - 1n };
    const absent: KafkaConnection = { ...cs[5]!, $absent: ['groupId', 'shardId'] };
    cs[5] = absent;
    const when = BigInt(i) * MIN;
    writer.writePoll(
      okRecord('ListKafkaConnections', { ...p.answer, connections: cs }, { at: when, request: LIST_REQUEST }),
    );
    return when;
  });
  writer.close();
  return { at, reader: createHistoryReader(openDatabase(path, { readonly: true })) };
}

describe('query JSON bytes of rows read back from the store', () => {
  it('are formatJson(queryToJson(...)) and its ndjson, again when the shared maps are copied', () => {
    const { at, reader } = recorded();
    for (const t of at) {
      for (const filter of ['', 'node_id = 1', 'client_id = "nothing"']) {
        const r = runQuery(reader, { resource: 'connections', at: t, filter });
        const tree = formatJson(queryToJson(r));
        const lines = r.rows.map((row) => `${formatJson(encodeRow('connections', row), 0)}\n`).join('');
        for (let pass = 0; pass < 2; pass++) {
          expect(queryToJsonText(r)).toBe(tree);
          expect(queryToNdjson(r)).toBe(lines);
        }
      }
    }
    // the shared objects are frozen, and shared: the path that copies bytes was taken
    const rows = runQuery(reader, { resource: 'connections', at: at[2]! }).rows as KafkaConnection[];
    expect(rows.every((c) => Object.isFrozen(c.apiVersions))).toBe(true);
    expect(new Set(rows.map((c) => c.apiVersions)).size).toBeLessThan(rows.length / 2);
  });
});
