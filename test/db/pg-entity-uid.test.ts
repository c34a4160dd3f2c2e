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
import { describe, expect, it, onTestFinished } from 'vitest';
import { packEntity, uidKey } from '../../src/db/connections/packed.ts';
import { openDatabase } from '../../src/db/index.ts';
import { migratePostgres, pgMigrationsFolder, pgRows, type PgClient } from '../../src/db/pg/migrate.ts';
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
    // the migrations up to 0007, as an earlier flightrec applied them
    const older = mkdtempSync(join(tmpdir(), 'flightrec-pg-older-'));
    onTestFinished(() => rmSync(older, { recursive: true, force: true }));
    cpSync(pgMigrationsFolder(), older, { recursive: true });
    const journalPath = join(older, 'meta', '_journal.json');
    const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { tag: string }[] };
    const upTo = journal.entries.findIndex((e) => e.tag.startsWith('0008_'));
    expect(upTo).toBeGreaterThan(0);
    journal.entries = journal.entries.slice(0, upTo);
    writeFileSync(journalPath, JSON.stringify(journal));

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
        const rows = await pgRows<{ id: unknown }>(
          client,
          'SELECT id FROM conn_entity WHERE flightrec_entity_uid(packed) = $1',
          [uidKey(uid)],
        );
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
