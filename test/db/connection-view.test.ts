/**
 * The psql view connection_v shows each stored connection version with its identity and
 * attributes, on both engines: on SQLite from the typed columns, on PostgreSQL decoded from the
 * packed records by SQL functions (drizzle/pg/0006), with what PostgreSQL text cannot hold (NUL,
 * lone surrogates) as U+FFFD and times beyond a timestamp as NULL.
 */
import { expect, it } from 'vitest';
import type { KafkaConnection, ListKafkaConnectionsResponse } from '../../src/api/schema/connection.ts';
import { createHistoryWriter, openDatabase } from '../../src/db/index.ts';
import { cloneConnection, generateConnectionPolls } from '../helpers/connection-answers.ts';
import { forEachEngine } from '../helpers/pg.ts';
import { LIST_REQUEST, okRecord, storedVersions } from './fixtures.ts';

const MIN = 60_000_000_000n;

/** A time in milliseconds (null for 0): the view gives milliseconds, truncated on PostgreSQL, rounded on SQLite. */
function ms(ns: bigint): number | null {
  return ns === 0n ? null : Number(ns / 1_000_000n);
}

type ViewRow = Record<string, unknown>;

/** The columns of the view that show a connection's fields, as the view should give them. */
function expected(c: KafkaConnection): ViewRow {
  return {
    uid: c.uid,
    node_id: c.nodeId,
    shard_id: c.shardId,
    listener_name: c.listenerName,
    source_ip: c.source.ipAddress,
    source_port: c.source.port,
    tls: c.tlsInfo.enabled ? 1 : 0,
    open_time: ms(c.openTime),
    client_id: c.clientId,
    client_software_name: c.clientSoftwareName,
    client_software_version: c.clientSoftwareVersion,
    user_principal: c.authenticationInfo.userPrincipal,
    mechanism: c.authenticationInfo.mechanism,
    auth_state: c.authenticationInfo.state,
    state: c.state,
    close_time: ms(c.closeTime),
    group_id: c.groupId,
    group_instance_id: c.groupInstanceId ?? null,
    group_member_id: c.groupMemberId,
    transactional_id: c.transactionalId,
    api_versions: JSON.stringify(c.apiVersions),
  };
}

/** The same columns of a view row: numbers as numbers, whatever the driver gave; times as milliseconds, within 1 of `want`'s. */
function shown(r: ViewRow, want: ViewRow): ViewRow {
  const out: ViewRow = {};
  for (const k of Object.keys(want)) {
    const v = r[k];
    if (k.endsWith('_time')) {
      const t = v === null ? null : Date.parse(String(v));
      const w = want[k] as number | null;
      out[k] = t !== null && w !== null && Math.abs(t - w) <= 1 ? w : t;
    } else
      out[k] =
        typeof v === 'bigint' || (typeof v === 'string' && /^(node_id|shard_id|source_port|tls)$/.test(k))
          ? Number(v)
          : v;
  }
  return out;
}

/** A packed string of UTF-16 code units (ByteWriter.string's form for text with lone surrogates). */
function utf16Record(units: readonly number[]): Buffer {
  const out = [units.length * 2 + 1];
  for (let u of units) {
    while (u >= 128) {
      out.push((u & 127) | 128);
      u >>>= 7;
    }
    out.push(u);
  }
  return Buffer.from(out);
}

forEachEngine('connection_v shows each stored version', (engine) => {
  it('every field of every version, as the answers gave it; text PostgreSQL cannot hold as U+FFFD', async () => {
    const path = await engine.target();
    const written = openDatabase(path);
    const writer = createHistoryWriter(written, { batchFrames: 2 });
    const polls = generateConnectionPolls({ connections: 30, polls: 4, seed: 7 });
    const answers: ListKafkaConnectionsResponse[] = polls.map((p) => p.answer);
    // a last poll with awkward values, on PostgreSQL: NUL, a lone surrogate, a pair, a time past 2262
    // (beyond an int64 of nanoseconds), in the packed records (the view decodes those) and in the
    // dictionary (flightrec's own reads unescape those: see escapeText in src/db/engines/pg/sync-database.ts)
    const odd = cloneConnection(answers.at(-1)!.connections[0]!);
    Object.assign(odd, {
      uid: 'odd-connection',
      source: { ...odd.source, ipAddress: '10.0.0.1\u0000x' },
      clientId: 'nul\u0000here',
      groupMemberId: 'nul \u0000, lone \ud800 and pair \ud83d\ude00',
      closeTime: BigInt(Date.UTC(9000, 0, 1)) * 1_000_000n,
    });
    if (engine.name !== 'sqlite') answers.push({ connections: [...answers.at(-1)!.connections, odd], totalSize: 31n });
    answers.forEach((a, i) =>
      writer.writePoll(okRecord('ListKafkaConnections', a, { at: BigInt(i + 1) * MIN, request: LIST_REQUEST })),
    );
    writer.close();
    const db = openDatabase(path, { readonly: true });
    const rows = db.sqlite.prepare('SELECT * FROM connection_v ORDER BY version').all() as ViewRow[];
    const versions = storedVersions(db);
    expect(rows.length).toBe(versions);
    // each connection's last version shows its fields in the last answer that lists it
    const last = new Map<string, KafkaConnection>();
    for (const a of answers) for (const c of a.connections) last.set(c.uid, c);
    const open = rows.filter((r) => r['to_poll'] === null);
    expect(open.length).toBe(last.size);
    for (const r of open) {
      const c = last.get(String(r['uid']))!;
      if (c.uid === 'odd-connection') {
        const want = {
          ...expected(c),
          source_ip: '10.0.0.1\ufffdx',
          group_member_id: 'nul \ufffd, lone \ufffd and pair \ud83d\ude00',
          close_time: null,
        };
        expect(shown(r, want)).toEqual(want);
      } else {
        expect(shown(r, expected(c)), c.uid).toEqual(expected(c));
      }
    }
    db.close();
  });
  // SQLite's view reads the typed columns: no record decoding in SQL there
  it.skipIf(engine.name === 'sqlite')('a corrupt record is an error naming the byte, never a wrong row', async () => {
    const db = openDatabase(await engine.target());
    const decode = (b: Buffer, layout: string): unknown =>
      db.sqlite.prepare('SELECT flightrec_unpack_record(?, ?)').pluck().get(b, layout);
    // a varint cut short, a string longer than the record, a record ending before its layout
    expect(() => decode(Buffer.from([0x80, 0x80]), 'u')).toThrow(
      /varint at byte 2 runs past the end of its 2-byte record/,
    );
    expect(() => decode(Buffer.from([0x14, 0x61, 0x62]), 's')).toThrow(
      /string at byte 1 runs past the end of its 3-byte record/,
    );
    expect(() => decode(Buffer.from([0x01]), 'uu')).toThrow(/runs past the end of its 1-byte record/);
    // UTF-16 units (odd length): a pair, NUL, a lone high surrogate at the end
    expect(decode(utf16Record([0x61, 0xd83d, 0xde00, 0, 0xd800]), 's')).toEqual(['a\ud83d\ude00\ufffd\ufffd']);
    db.close();
  });
});
