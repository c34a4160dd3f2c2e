/**
 * PostgreSQL keeps a connection's uid in its packed entity record only (drizzle/pg/0008): the
 * index over flightrec_entity_uid(packed) finds it by the key uidKey makes, for any uid, never
 * fails on a damaged record, and a store written before the migration is found the same way.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { KafkaConnection } from '../../src/api/schema/connection.ts';
import { describe, expect, it, onTestFinished } from 'vitest';
import { packEntity, packVersion, uidKey } from '../../src/db/connections/packed.ts';
import { uidMatch } from '../../src/db/connections/uid-match.ts';
import { FIELDS } from '../../src/db/connections/slow.ts';
import { createHistoryReader, createHistoryWriter, openDatabase } from '../../src/db/index.ts';
import { cloneConnection, generateConnectionPolls } from '../helpers/connection-answers.ts';
import { LIST_REQUEST, okRecord } from './fixtures.ts';
import { migratePostgres, pgMigrationsFolder, pgRows, type PgClient } from '../../src/db/engines/pg/migrate.ts';
import { freshPgTarget } from '../helpers/pg.ts';

const UIDS = [
  '0b9e6f4c-7a1d-4f0e-9c55-2d8f3e1a6b70',
  '',
  'x',
  'é€😀 mixed',
  'nul\u0000inside',
  'lone \ud800 high',
  'lone \udc00 low and a pair 😀',
  'a'.repeat(5000),
];

function entity(id: number, uid: string): Buffer {
  return packEntity({
    id,
    uid,
    nodeId: 2,
    shardId: 1,
    listener: 7,
    ipAddress: '10.0.0.9',
    port: 51234,
    tls: true,
    openTime: 1_767_225_600_000_000_000n,
  });
}

describe('the uid in the packed entity record (PostgreSQL)', () => {
  it('flightrec_entity_uid gives what uidKey makes, for every kind of uid and id', async () => {
    const t = await freshPgTarget({ migrated: true });
    const db = openDatabase(t.target);
    try {
      const q = db.sqlite.prepare<[Buffer], Buffer | null>('SELECT flightrec_entity_uid(?)').pluck();
      for (const uid of UIDS) {
        for (const id of [1, 127, 128, 2 ** 31, Number.MAX_SAFE_INTEGER]) {
          expect(Buffer.from(q.get(entity(id, uid))!).equals(uidKey(uid)), `${id} ${JSON.stringify(uid)}`).toBe(true);
        }
      }
      expect(new Set(UIDS.map((u) => uidKey(u).toString('hex'))).size).toBe(UIDS.length);
    } finally {
      db.close();
      await t.drop();
    }
  });

  it('gives NULL, never an error, for a record cut short or holding an impossible length', async () => {
    const t = await freshPgTarget({ migrated: true });
    const db = openDatabase(t.target);
    try {
      const q = db.sqlite.prepare<[Buffer], Buffer | null>('SELECT flightrec_entity_uid(?)').pluck();
      const whole = entity(300, 'lone \ud800 and more text');
      const id = 2; // the id varint of 300
      const field = uidKey('lone \ud800 and more text').length;
      for (let n = 0; n < whole.length; n++) {
        const got = q.get(whole.subarray(0, n));
        if (n < id + field) expect(got, `cut at ${n}`).toBeNull();
        else expect(Buffer.from(got!).equals(uidKey('lone \ud800 and more text'))).toBe(true);
      }
      expect(q.get(Buffer.alloc(40, 0xff))).toBeNull(); // a varint that never ends
      expect(q.get(Buffer.from([1, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]))).toBeNull(); // a length past 2^28
      expect(q.get(Buffer.from([1, 200, 1, 65]))).toBeNull(); // 100 bytes promised, 1 there
    } finally {
      db.close();
      await t.drop();
    }
  });
});

/** The store's match of a uid on PostgreSQL (uid-match.ts), with numbered parameters: $1 the uid's key. */
const BY_RECORD = uidMatch(false).where.replace('?', '$1').replace('?', '$1');

/** A copy of the migrations folder holding those before the one whose tag starts with `tag`. */
function migrationsBefore(tag: string): string {
  const older = mkdtempSync(join(tmpdir(), 'flightrec-pg-older-'));
  onTestFinished(() => rmSync(older, { recursive: true, force: true }));
  cpSync(pgMigrationsFolder(), older, { recursive: true });
  const journalPath = join(older, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { tag: string }[] };
  const upTo = journal.entries.findIndex((e) => e.tag.startsWith(tag));
  expect(upTo).toBeGreaterThan(0);
  journal.entries = journal.entries.slice(0, upTo);
  writeFileSync(journalPath, JSON.stringify(journal));
  return older;
}

/** A raw client of a test target (a server database, or a PGlite directory). */
async function rawClient(target: string): Promise<{ client: PgClient; end(): Promise<void> }> {
  if (target.startsWith('pglite://')) {
    const lite = new PGlite(target.slice('pglite://'.length));
    return { client: lite, end: () => lite.close() };
  }
  const c = new pg.Client({ connectionString: target });
  await c.connect();
  return { client: c, end: () => c.end() };
}

describe('a PostgreSQL store written before drizzle/pg/0008', () => {
  it('keeps its entities, found by uid through the new index; its psql view takes the uid from the record', async () => {
    const t = await freshPgTarget({ persistent: true });
    onTestFinished(() => t.drop());
    const older = migrationsBefore('0008_'); // up to 0007, as an earlier flightrec applied them
    const { client, end } = await rawClient(t.target);
    try {
      await migratePostgres(client, older);
      await pgRows(client, `INSERT INTO cluster (id, name) VALUES (1, 'c1')`);
      for (const [i, uid] of UIDS.entries()) {
        await pgRows(
          client,
          `INSERT INTO conn_entity (id, cluster_id, uid, first_poll, last_poll, packed) VALUES ($1, 1, $2, 10, 20, $3)`,
          [i + 1, uid.replaceAll('\u0000', '').replace(/[\ud800-\udfff]/g, '?'), entity(i + 1, uid)],
        );
      }
      await migratePostgres(client);
      for (const [i, uid] of UIDS.entries()) {
        const rows = await pgRows<{ id: unknown }>(client, `SELECT id FROM conn_entity WHERE ${BY_RECORD}`, [
          uidKey(uid),
        ]);
        expect(
          rows.map((r) => Number(r.id)),
          JSON.stringify(uid),
        ).toEqual([i + 1]);
      }
      const columns = await pgRows(
        client,
        `SELECT column_name FROM information_schema.columns WHERE table_name = 'conn_entity' AND column_name = 'uid'`,
      );
      expect(columns).toEqual([]);
      const view = await pgRows<{ uid: string }>(client, 'SELECT uid FROM connection_v LIMIT 1');
      expect(view).toEqual([]);
    } finally {
      await end();
    }
  }, 60_000);
});

describe('a PostgreSQL store written before drizzle/pg/0009', () => {
  it('keeps its versions: the psql view takes the first poll from the record, the uid index is rebuilt', async () => {
    const t = await freshPgTarget({ persistent: true });
    onTestFinished(() => t.drop());
    const older = migrationsBefore('0009_');
    const { client, end } = await rawClient(t.target);
    try {
      await migratePostgres(client, older);
      await pgRows(client, `INSERT INTO cluster (id, name) VALUES (1, 'c1')`);
      await pgRows(
        client,
        `INSERT INTO conn_entity (id, cluster_id, first_poll, last_poll, packed) VALUES (1, 1, $1, $1, $2)`,
        [String(2n ** 40n + 3n), entity(1, UIDS[0]!)],
      );
      const stored = FIELDS.map((f) => (f.kind === 'time' ? 0n : f.kind === 'inline' ? '' : 0));
      for (const [id, from] of [
        [7, 2n ** 40n + 3n],
        [9, 2n ** 40n + 12n],
      ] as const) {
        const packed = packVersion({ id, entity: 1, fromPoll: Number(from), stored, unknown: undefined });
        await pgRows(
          client,
          `INSERT INTO conn_version (cluster_id, id, entity, from_poll, packed) VALUES (1, $1, 1, $2, $3)`,
          [id, String(from), packed],
        );
      }
      await migratePostgres(client);
      const columns = await pgRows(
        client,
        `SELECT column_name FROM information_schema.columns WHERE table_name = 'conn_version' AND column_name = 'from_poll'`,
      );
      expect(columns).toEqual([]);
      const view = await pgRows<{ version: unknown; from_poll: unknown }>(
        client,
        'SELECT version, from_poll FROM connection_v ORDER BY version',
      );
      expect(view.map((r) => [Number(r.version), String(r.from_poll)])).toEqual([
        [7, String(2n ** 40n + 3n)],
        [9, String(2n ** 40n + 12n)],
      ]);
      const found = await pgRows<{ id: unknown }>(client, `SELECT id FROM conn_entity WHERE ${BY_RECORD}`, [
        uidKey(UIDS[0]!),
      ]);
      expect(found.map((r) => Number(r.id))).toEqual([1]);
    } finally {
      await end();
    }
  }, 60_000);
});

describe('two uids with one hash (PostgreSQL)', () => {
  it('are two connections: the index finds the hash, the lookup compares the uids', async () => {
    const t = await freshPgTarget({ persistent: true, migrated: true });
    onTestFinished(() => t.drop());
    // a pair of short ASCII uids whose keys (a length byte, then the bytes) share flightrec_uid_hash
    const db = openDatabase(t.target);
    let pair: string[];
    try {
      const row = db.sqlite
        .prepare<[], { a: string; b: string }>(
          `SELECT min(u) AS a, max(u) AS b FROM (
             SELECT 'u' || n AS u FROM generate_series(1, 300000) n) x
           GROUP BY flightrec_uid_hash(set_byte('\\x00'::bytea, 0, 2 * length(u)) || convert_to(u, 'UTF8'))
           HAVING count(*) > 1 LIMIT 1`,
        )
        .get();
      expect(row, 'no two of 300,000 uids share a 32-bit hash').toBeDefined();
      pair = [row!.a, row!.b];
      const hash = db.sqlite.prepare<[Buffer], number>('SELECT flightrec_uid_hash(?)').pluck();
      expect(hash.get(uidKey(pair[0]!))).toBe(hash.get(uidKey(pair[1]!)));

      const base = generateConnectionPolls({ connections: 2, polls: 1, seed: 3 })[0]!.answer;
      const writer = createHistoryWriter(db);
      for (let i = 0; i < 3; i++) {
        const connections = pair.map((uid, k) => ({ ...cloneConnection(base.connections[k]!), uid }));
        // the second uid's connection leaves after the first poll and comes back, new, in the third
        const listed = i === 1 ? connections.slice(0, 1) : connections;
        writer.writePoll(
          okRecord(
            'ListKafkaConnections',
            { connections: listed, totalSize: BigInt(listed.length) },
            { at: 1_767_225_600_000_000_000n + BigInt(i) * 60_000_000_000n, request: LIST_REQUEST },
          ),
        );
      }
      writer.close();
    } finally {
      db.close();
    }
    const ro = openDatabase(t.target, { readonly: true });
    try {
      const reader = createHistoryReader(ro);
      expect(reader.entityHistory('connections', { uid: pair[0]! }).map((s) => (s.row as KafkaConnection).uid)).toEqual(
        [pair[0], pair[0], pair[0]],
      );
      expect(reader.entityHistory('connections', { uid: pair[1]! }).map((s) => (s.row as KafkaConnection).uid)).toEqual(
        [pair[1], pair[1]],
      );
    } finally {
      ro.close();
    }
  }, 120_000);
});
