/**
 * PostgreSQL never updates a row in place: the space of what a batch seal rewrites (every seen
 * connection's last_poll, the cleared head frames) must be reused by the next seals, not added to
 * the tables seal after seal. Sizes are compared between seals of the same recording, so they do
 * not depend on the machine.
 */
import pg from 'pg';
import { expect, it } from 'vitest';
import { createHistoryWriter, openDatabase } from '../../src/db/index.ts';
import { framePartitionOf } from '../../src/db/sealed-space.ts';
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
    // no churn: every seal updates the same 1,500 rows and clears heads of the same size
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
      // seven seals later: the same rows, the same size (before, conn_entity grew by a copy of its
      // 1,500 rows per seal, and the frames by the four cleared heads of each batch)
      expect(late.entity).toBeLessThanOrEqual(early.entity * 1.2);
      expect(late.frames).toBeLessThanOrEqual(early.frames * 1.2 + 65_536);
      writer.close();
    } finally {
      await client.end();
      await t.drop();
    }
  });
});
