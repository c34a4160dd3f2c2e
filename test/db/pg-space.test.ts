/**
 * PostgreSQL never updates a row in place: the space of what the writer rewrites (a connection's
 * last_poll when it ends, the head frames cleared by a seal) must be reused, not added to the
 * tables poll after poll. Sizes are compared within one recording, so they do not depend on the
 * machine.
 */
import pg from 'pg';
import { expect, it } from 'vitest';
import { createHistoryWriter, openDatabase } from '../../src/db/index.ts';
import { CHUNK_GROUP_BYTES, PG_CHUNK_GROUP_BYTES } from '../../src/db/connections/chunk.ts';
import { framePartitionOf } from '../../src/db/engines/pg/partitions.ts';
import { generateConnectionPolls } from '../helpers/connection-answers.ts';
import { describeWithServer, freshPgTarget } from '../helpers/pg.ts';
import { LIST_REQUEST, okRecord } from './fixtures.ts';

const S = 1_000_000_000n;

it('names the conn_frame partition of a poll id by its UTC day', () => {
  const day = Date.UTC(2026, 10, 26) / 86_400_000;
  expect(framePartitionOf((BigInt(day) << 32n) + 7n)).toBe('conn_frame_d20261126');
  expect(framePartitionOf(BigInt(day + 1) << 32n)).toBe('conn_frame_d20261127');
});

describeWithServer('space after batch seals (PostgreSQL)', () => {
  it('keeps conn_entity and the head frames from growing with each seal of the same connections', async () => {
    const t = await freshPgTarget({ migrated: true });
    const db = openDatabase(t.target);
    const writer = createHistoryWriter(db, { batchFrames: 4 });
    // no churn: every seal clears heads of the same size
    const polls = generateConnectionPolls({ connections: 1500, churn: 0, polls: 4 * 9 + 1, seed: 11 });
    const client = new pg.Client({ connectionString: t.target });
    await client.connect();
    const sizes = async () => {
      const r = await client.query<{ entity: string; frames: string }>(
        `SELECT pg_total_relation_size('conn_entity')::text AS entity,
                (SELECT coalesce(sum(pg_total_relation_size(relid)), 0) FROM pg_partition_tree('conn_frame'))::text AS frames`,
      );
      return { entity: Number(r.rows[0]!.entity), frames: Number(r.rows[0]!.frames) };
    };
    try {
      const write = (from: number, to: number): void => {
        for (let i = from; i < to; i++) {
          writer.writePoll(
            okRecord('ListKafkaConnections', polls[i]!.answer, {
              at: BigInt(i + 1) * 60n * S,
              request: LIST_REQUEST,
              cluster: 'c',
            }),
          );
        }
      };
      // the 2nd seal happens as the 9th poll is written, the 9th as the 37th
      write(0, 4 * 2 + 1);
      const early = await sizes();
      write(4 * 2 + 1, 4 * 9 + 1);
      const late = await sizes();
      // seven seals later: the same rows, the same size (once, conn_entity grew by a copy of its
      // 1,500 rows per seal, and the frames by the four cleared heads of each batch)
      expect(late.entity).toBeLessThanOrEqual(early.entity * 1.2);
      expect(late.frames).toBeLessThanOrEqual(early.frames * 1.2 + 65_536);
      writer.close();
    } finally {
      await client.end();
      await t.drop();
    }
  });

  it('keeps conn_entity near the size of its rows when connections come and go', async () => {
    const t = await freshPgTarget({ migrated: true });
    const db = openDatabase(t.target);
    const writer = createHistoryWriter(db, { batchFrames: 4 });
    // 5 % of the connections end at each poll (each row rewritten once, its last_poll set) and as many begin
    const polls = generateConnectionPolls({ connections: 1500, churn: 0.05, polls: 4 * 9 + 1, seed: 12 });
    const client = new pg.Client({ connectionString: t.target });
    await client.connect();
    try {
      polls.forEach((p, i) =>
        writer.writePoll(
          okRecord('ListKafkaConnections', p.answer, {
            at: BigInt(i + 1) * 60n * S,
            request: LIST_REQUEST,
            cluster: 'c',
          }),
        ),
      );
      writer.close();
      // the same rows written once into full pages: what the table would take with no rewrite and no free space
      await client.query('CREATE TABLE packed_entities (LIKE conn_entity) WITH (fillfactor = 100)');
      await client.query('INSERT INTO packed_entities SELECT * FROM conn_entity');
      const r = await client.query<{ table: string; rows: string; packed: string }>(
        `SELECT pg_relation_size('conn_entity')::text AS table, (SELECT count(*) FROM conn_entity)::text AS rows,
                pg_relation_size('packed_entities')::text AS packed`,
      );
      const { table, rows, packed } = r.rows[0]!;
      expect(Number(rows)).toBeGreaterThan(1500 * 2.5); // the churn made about 2,800 more
      // a tenth of each page kept free (fillfactor 90) and the rows that ended rewritten on their own
      // page; half of each page kept free (fillfactor 50, when every seal rewrote every row) fails this
      expect(Number(table)).toBeLessThanOrEqual(Number(packed) * 1.25);
      // chunk groups: PostgreSQL's budget (larger than SQLite's), every row inside its heap page
      const c = await client.query<{ largest: number; toast: string }>(
        `SELECT max(octet_length(data)) AS largest,
                (SELECT pg_relation_size(reltoastrelid)::text FROM pg_class WHERE relname = 'conn_chunk') AS toast
           FROM conn_chunk`,
      );
      expect(c.rows[0]!.largest).toBeGreaterThan(CHUNK_GROUP_BYTES);
      expect(c.rows[0]!.largest).toBeLessThanOrEqual(PG_CHUNK_GROUP_BYTES);
      expect(c.rows[0]!.toast).toBe('0');
    } finally {
      await client.end();
      await t.drop();
    }
  });
});
