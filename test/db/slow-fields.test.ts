// Every slow field of connections/fields.ts, one by one: a change of only that field makes one new
// version, an unchanged value none (also for a writer that reloads its state from the packed
// records), the field reads back exactly from the packed record, the typed column and the history,
// and the pre-filter knows its column. Data-driven over the declaration: a new field is covered.
import { describe, expect, it } from 'vitest';
import { KafkaConnection as KafkaConnectionSchema, type KafkaConnection } from '../../src/api/schema/connection.ts';
import type { FieldSpec, MessageSchema } from '../../src/api/schema/fields.ts';
import { encodeAnswer } from '../../src/api/wire/answers.ts';
import { SLOW_FIELDS, type AnySlowValue, type SlowField } from '../../src/db/connections/fields.ts';
import { CONNECTION_COLUMNS, createHistoryReader, createHistoryWriter, openDatabase } from '../../src/db/index.ts';
import { cloneConnection, generateConnectionPolls } from '../helpers/connection-answers.ts';
import { LIST_REQUEST, okRecord, tempDbPath } from './fixtures.ts';

const MIN = 60_000_000_000n;
const FIELDS: readonly SlowField[] = SLOW_FIELDS;

/** The schema of a row field at a path. */
function specOf(path: SlowField['path']): FieldSpec {
  const top = KafkaConnectionSchema.fields[path[0] as keyof typeof KafkaConnectionSchema.fields] as FieldSpec;
  if (path[1] === undefined) return top;
  if (top.type.kind !== 'message') throw new Error(`${path[0]} is not a message`);
  const sub: MessageSchema = top.type.message;
  return sub.fields[path[1]]!;
}

function get(c: KafkaConnection, path: SlowField['path']): AnySlowValue {
  const row: Readonly<Record<string, unknown>> = c;
  const v = path[1] === undefined ? row[path[0]] : (row[path[0]] as Record<string, unknown>)[path[1]];
  return v as AnySlowValue;
}

function set(c: KafkaConnection, path: SlowField['path'], v: AnySlowValue): void {
  const row: Record<string, unknown> = c;
  if (path[1] === undefined) row[path[0]] = v;
  else row[path[0]] = { ...(row[path[0]] as object), [path[1]]: v };
}

/** Another value of the same kind than `old`. */
function changed(f: SlowField, old: AnySlowValue): AnySlowValue {
  switch (f.kind) {
    case 'text':
    case 'inline':
      return `${String(old)}~${f.key}\u00e9`;
    case 'optionalText':
      return old === undefined ? `set ${f.key}` : undefined;
    case 'time':
      return (old as bigint) + 1_000_000_007n;
    case 'map':
      return { ...(old as Record<string, number>), '4242': 7 };
    case 'enum': {
      const type = specOf(f.path).type;
      if (type.kind !== 'enum') throw new Error(`${f.key} is not an enum field`);
      return type.table.values.find((v) => v !== old && !v.endsWith('_UNSPECIFIED'))!;
    }
  }
}

const snake = (s: string): string => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

describe('each slow connection field is versioned and stored exactly', () => {
  it.each(FIELDS.map((f) => [f.key, f] as const))('%s', (_key, f) => {
    const path = tempDbPath();
    let db = openDatabase(path);
    let writer = createHistoryWriter(db, { batchFrames: 2 });
    const rows = generateConnectionPolls({ connections: 2, polls: 1, seed: 11 })[0]!.answer.connections;
    const later = changed(f, get(rows[0]!, f.path));
    const versions = (): number => db.sqlite.prepare('SELECT count(*) FROM conn_version').pluck().get() as number;
    const answers: { connections: KafkaConnection[]; totalSize: bigint }[] = [];
    const ids: bigint[] = [];
    const counts: number[] = [];
    for (let i = 0; i < 4; i++) {
      const cs = rows.map(cloneConnection);
      if (i > 0) set(cs[0]!, f.path, later);
      const answer = { connections: cs, totalSize: 2n };
      answers.push(answer);
      ids.push(
        writer.writePoll(okRecord('ListKafkaConnections', answer, { at: BigInt(i) * MIN, request: LIST_REQUEST })),
      );
      counts.push(versions());
      if (i === 2) {
        // a new writer knows the current version from the packed records only
        writer.close();
        db = openDatabase(path);
        writer = createHistoryWriter(db, { batchFrames: 2 });
      }
    }
    expect(counts).toEqual([2, 3, 3, 3]);
    // the typed column holds the value too (a dictionary id, a time, or the string itself): two values for row 0
    const stored = db.sqlite
      .prepare(
        `SELECT count(DISTINCT quote(v.${f.column})) FROM conn_version v JOIN conn_entity e ON e.id = v.entity WHERE e.uid = ?`,
      )
      .pluck()
      .get(rows[0]!.uid) as number;
    expect(stored).toBe(2);
    writer.close();
    const reader = createHistoryReader(openDatabase(path, { readonly: true }));
    ids.forEach((id, i) => {
      const back = reader.reconstructAnswer(id).answer as { connections: KafkaConnection[]; totalSize: bigint };
      expect(back).toEqual(answers[i]);
      expect(encodeAnswer('ListKafkaConnections', back)).toEqual(encodeAnswer('ListKafkaConnections', answers[i]!));
    });
    const history = reader.entityHistory('connections', { uid: rows[0]!.uid });
    expect(history.map((s) => get(s.row as KafkaConnection, f.path))).toEqual(
      answers.map((a) => get(a.connections[0]!, f.path)),
    );
    // the pre-filter knows every field SQL can compare
    if (f.kind !== 'map' && f.kind !== 'optionalText') {
      expect(CONNECTION_COLUMNS[f.path.map(snake).join('.')]?.sql).toContain(`v.${f.column}`);
    }
  });
});
