import { expect, it } from 'vitest';
import type { KafkaConnection } from '../../src/api/schema/connection.ts';
import { parseAnswer, encodeAnswer } from '../../src/api/wire/answers.ts';
import { createHistoryReader, createHistoryWriter, openDatabase } from '../../src/db/index.ts';
import { cloneConnection, generateConnectionPolls } from '../helpers/connection-answers.ts';
import { forEachEngine } from '../helpers/pg.ts';
import { LIST_REQUEST, okRecord, storedVersions } from './fixtures.ts';

const MIN = 60_000_000_000n;

/** apiVersions maps a connection goes through, poll after poll (null: as in the poll before). */
const MAPS: (Record<string, number> | null)[] = [
  { '3': 1, '10': 2, '60': 3 },
  null,
  { '3': 1, '10': 2, '60': 4 }, // a value changes
  { '3': 1, '10': 2, '60': 4, '61': 0 }, // a key comes
  { '3': 1, '10': 2, '61': 0 }, // a key goes
  { '3': 1, '11': 2, '61': 0 }, // a key is replaced, same count
  { '3': 1, '11': 2, '61': 0, '007': 5 }, // a key that is not an array index
  { '007': 5, '3': 1, '11': 2, '61': 0 }, // the same (index keys always enumerate first)
  { '3': 1, '11': 2, '61': 0, '-1': 5, '007': 5 }, // named keys: order matters
  { '3': 1, '11': 2, '61': 0, '007': 5, '-1': 5 },
  null,
  {},
  null,
  { '0': 0 },
  { '4294967294': 1, '4294967295': 2 }, // the largest index, and a key just beyond
];

function count(db: ReturnType<typeof openDatabase>): number {
  return storedVersions(db);
}

forEachEngine('connection versions follow every change of apiVersions, and only those', (engine) => {
  it.each([
    ['decoded answers, one writer', false, false],
    ['decoded from bytes, one writer', true, false],
    ['a new writer for every poll (state loaded from the database)', false, true],
  ])('%s', async (_name, fromBytes, reopen) => {
    const path = await engine.target();
    let db = openDatabase(path);
    let writer = createHistoryWriter(db, { batchFrames: 3 });
    const rows = generateConnectionPolls({ connections: 3, polls: 1, seed: 4 })[0]!.answer.connections;
    let current: Record<string, number> = {};
    const answers: { connections: KafkaConnection[]; totalSize: bigint }[] = [];
    const versions: number[] = [];
    MAPS.forEach((m, i) => {
      if (m !== null) current = m;
      const cs = rows.map(cloneConnection);
      cs[1]!.apiVersions = { ...current };
      const answer = { connections: cs, totalSize: 3n };
      answers.push(answer);
      const written = fromBytes
        ? parseAnswer('ListKafkaConnections', Buffer.from(encodeAnswer('ListKafkaConnections', answer)))
        : answer;
      writer.writePoll(okRecord('ListKafkaConnections', written, { at: BigInt(i) * MIN, request: LIST_REQUEST }));
      versions.push(count(db));
      if (reopen) {
        writer.close();
        db = openDatabase(path);
        writer = createHistoryWriter(db, { batchFrames: 3 });
      }
    });
    // the first poll makes three versions; then one more exactly when the map changed
    const changed = MAPS.map((m, i): number => (i === 0 ? 3 : m === null ? 0 : 1));
    changed[7] = 0; // { '007': 5, '3': 1, ... } enumerates as the poll before
    const expected = changed.map((_, i) => changed.slice(0, i + 1).reduce((a, b) => a + b, 0));
    expect(versions).toEqual(expected);
    // each version ends at the poll of the next one; the last is open (the psql view shows both
    // engines' versions alike: on PostgreSQL the first is in the entity row, and its end is the
    // next one's first poll)
    const spans = (
      db.sqlite
        .prepare(`SELECT from_poll AS "from", to_poll AS "to" FROM connection_v WHERE uid = ? ORDER BY version`)
        .all(rows[1]!.uid) as { from: number | bigint; to: number | bigint | null }[]
    ).map(({ from, to }) => ({ from: Number(from), to: to === null ? null : Number(to) }));
    expect(spans.map((v) => v.to)).toEqual([...spans.slice(1).map((v) => v.from), null]);
    writer.close();
    const reader = createHistoryReader(openDatabase(path, { readonly: true }));
    const history = reader.entityHistory('connections', { uid: rows[1]!.uid });
    expect(history.map((s) => Object.entries((s.row as KafkaConnection).apiVersions))).toEqual(
      answers.map((a) => Object.entries(a.connections[1]!.apiVersions)),
    );
  });
});
