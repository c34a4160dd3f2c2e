/**
 * PostgreSQL keeps a connection's first version in its entity row (drizzle/pg/0010): no
 * conn_version row of its own, its id the entity's, entities and versions numbered from one
 * counter. A store written before keeps all its versions as rows, with version ids that equal
 * entity ids; both layouts read back exactly, side by side, and `db check` reads both.
 */
import { expect, it, onTestFinished } from 'vitest';
import type { ListKafkaConnectionsResponse } from '../../src/api/schema/connection.ts';
import { encodeAnswer } from '../../src/api/wire/answers.ts';
import { checkStore, createHistoryReader, createHistoryWriter, openDatabase } from '../../src/db/index.ts';
import type { FlightrecDb } from '../../src/db/index.ts';
import { generateConnectionPolls } from '../helpers/connection-answers.ts';
import { freshPgTarget } from '../helpers/pg.ts';
import { LIST_REQUEST, okRecord, storedVersions } from './fixtures.ts';

const count = (db: FlightrecDb, sql: string): number => Number(db.sqlite.prepare(sql).pluck().get());

/** Every written poll read back as the answer it recorded. */
function expectReconstructed(db: FlightrecDb, ids: bigint[], answers: ListKafkaConnectionsResponse[]): void {
  const reader = createHistoryReader(db);
  ids.forEach((id, i) => {
    const got = reader.reconstructAnswer(id).answer as ListKafkaConnectionsResponse;
    expect(encodeAnswer('ListKafkaConnections', got), `poll ${i + 1}`).toBe(
      encodeAnswer('ListKafkaConnections', answers[i]!),
    );
  });
}

it('keeps a new connection first version in its entity row, and every poll reads back', async () => {
  const t = await freshPgTarget({ persistent: true, migrated: true });
  onTestFinished(() => t.drop());
  const polls = generateConnectionPolls({ connections: 120, churn: 0.1, polls: 8, seed: 21 });
  const writer = createHistoryWriter(openDatabase(t.target), { batchFrames: 3 });
  const ids = polls.map((p) =>
    writer.writePoll(okRecord('ListKafkaConnections', p.answer, { at: p.at, request: LIST_REQUEST })),
  );
  writer.close(); // and its database
  const db = openDatabase(t.target);
  try {
    const entities = count(db, 'SELECT count(*) FROM conn_entity');
    expect(count(db, 'SELECT count(*) FROM conn_entity WHERE first_version IS NULL')).toBe(0);
    // the rows of conn_version are the later versions only, numbered apart from every entity
    const rows = count(db, 'SELECT count(*) FROM conn_version');
    expect(storedVersions(db)).toBe(entities + rows);
    expect(count(db, 'SELECT count(*) FROM conn_version v JOIN conn_entity e ON e.id = v.id')).toBe(0);
    expectReconstructed(
      db,
      ids,
      polls.map((p) => p.answer),
    );
    const check = checkStore(db);
    expect(check.damage).toEqual([]);
    expect(check.checked['conn_version']).toBe(entities + rows);
  } finally {
    db.close();
  }
}, 120_000);

it('reads a store whose versions are all rows, with ids equal to entity ids, and goes on writing', async () => {
  const t = await freshPgTarget({ persistent: true, migrated: true });
  onTestFinished(() => t.drop());
  const polls = generateConnectionPolls({ connections: 120, churn: 0.1, polls: 12, seed: 22 });
  const answers = polls.map((p) => p.answer);
  const ids: bigint[] = [];
  let writer = createHistoryWriter(openDatabase(t.target), { batchFrames: 3 });
  for (const p of polls.slice(0, 6)) {
    ids.push(writer.writePoll(okRecord('ListKafkaConnections', p.answer, { at: p.at, request: LIST_REQUEST })));
  }
  writer.close(); // and its database
  let db = openDatabase(t.target);
  try {
    // the layout before drizzle/pg/0010: every version a row; entity 7 and version 7 both exist
    db.sqlite
      .prepare(
        `INSERT INTO conn_version (cluster_id, id, entity, packed)
           SELECT cluster_id, id, id, first_version FROM conn_entity WHERE first_version IS NOT NULL`,
      )
      .run();
    db.sqlite.prepare('UPDATE conn_entity SET first_version = NULL').run();
    const before = storedVersions(db);
    expect(count(db, 'SELECT count(*) FROM conn_version v JOIN conn_entity e ON e.id = v.id')).toBeGreaterThan(0);
    db.close();
    db = openDatabase(t.target);
    expectReconstructed(db, ids, answers.slice(0, 6));

    writer = createHistoryWriter(db, { batchFrames: 3 });
    for (const p of polls.slice(6)) {
      ids.push(writer.writePoll(okRecord('ListKafkaConnections', p.answer, { at: p.at, request: LIST_REQUEST })));
    }
    writer.close();
    db = openDatabase(t.target);
    // the new connections fold, under ids above both tables' largest before
    const folded = count(db, 'SELECT count(*) FROM conn_entity WHERE first_version IS NOT NULL');
    expect(folded).toBeGreaterThan(0);
    expect(storedVersions(db)).toBeGreaterThan(before);
    expectReconstructed(db, ids, answers);
    expect(checkStore(db).damage).toEqual([]);
  } finally {
    db.close();
  }
}, 120_000);

it('names a first version whose record is damaged, and reads every other version', async () => {
  const t = await freshPgTarget({ persistent: true, migrated: true });
  onTestFinished(() => t.drop());
  const polls = generateConnectionPolls({ connections: 40, churn: 0, polls: 3, seed: 23 });
  const writer = createHistoryWriter(openDatabase(t.target), { batchFrames: 2 });
  for (const p of polls)
    writer.writePoll(okRecord('ListKafkaConnections', p.answer, { at: p.at, request: LIST_REQUEST }));
  writer.close();
  const db = openDatabase(t.target);
  try {
    const victim = count(db, 'SELECT min(id) FROM conn_entity');
    // a record cut short, and one whose varints never end
    db.sqlite.prepare(`UPDATE conn_entity SET first_version = decode('ff', 'hex') WHERE id = ?`).run(victim);
    db.sqlite
      .prepare(`UPDATE conn_entity SET first_version = decode(repeat('ff', 4000), 'hex') WHERE id = ?`)
      .run(victim + 1);
    const check = checkStore(db);
    expect(check.damage.filter((d) => d.table === 'conn_version').map((d) => d.item)).toEqual([
      `version ${victim} of connection ${victim}`,
      `version ${victim + 1} of connection ${victim + 1}`,
    ]);
    expect(check.checked['conn_version']).toBe(count(db, 'SELECT count(*) FROM conn_entity'));
  } finally {
    db.close();
  }
}, 120_000);
