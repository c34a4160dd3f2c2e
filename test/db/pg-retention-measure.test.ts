/**
 * A measurement, not a check of speed (it runs only with FLIGHTREC_PG_RETENTION_MEASURE=1 and a
 * server): one past UTC day of 60 polls of 10,000 connections is pruned on two copies of the
 * same recording, once by dropping the day's partitions and once by the row-deleting steps, and
 * the times and database sizes are printed. It checks only that both removed the same polls.
 *
 *   FLIGHTREC_PG_RETENTION_MEASURE=1 FLIGHTREC_TEST_PG=postgres://postgres@127.0.0.1:5432/postgres \
 *     npx vitest run test/db/pg-retention-measure.test.ts
 */
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createHistoryWriter, openDatabase, RetentionPruner, type FlightrecDb } from '../../src/db/index.ts';
import { dayPartitionStatements } from '../../src/db/engines/pg/partition-retention.ts';
import { generateConnectionPolls } from '../helpers/connection-answers.ts';
import { databaseUrl, dropTestDatabase, freshPgTarget, pgAvailable, TEST_DB_PREFIX } from '../helpers/pg.ts';
import { LIST_REQUEST, okRecord } from './fixtures.ts';

const S = 1_000_000_000n;
const DAY = 86_400n * S;
const POLLS = 60;
const CONNECTIONS = 10_000;
const D = Math.floor(Date.now() / 86_400_000) - 3;
const cutoff = BigInt(D + 1) * DAY + 3600n * S;

const wanted = process.env.FLIGHTREC_PG_RETENTION_MEASURE === '1' && pgAvailable().url !== undefined;

/** 60 polls on day D (six sealed batches of ten), two on D + 1 after the cut-off (the newest, kept). */
function record(target: string): void {
  const db = openDatabase(target);
  for (const d of [D, D + 1]) for (const sql of dayPartitionStatements(d)) db.sqlite.exec(sql);
  const writer = createHistoryWriter(db, { batchFrames: 10 });
  const polls = generateConnectionPolls({ connections: CONNECTIONS, churn: 0.01, polls: POLLS + 2, seed: 5 });
  polls.forEach((p, i) => {
    const day = i < POLLS ? D : D + 1;
    const at = i < POLLS ? BigInt(D) * DAY + BigInt(i) * 600n * S : cutoff + BigInt(i) * S;
    const id = (BigInt(day) << 32n) + BigInt(i + 1);
    writer.writePoll({
      ...okRecord('ListKafkaConnections', p.answer, { at, request: LIST_REQUEST, cluster: 'm' }),
      id,
    });
  });
  writer.close();
}

/** CREATE DATABASE `to` TEMPLATE `from`, waiting for the template's last connection to go. */
async function copyDatabase(server: string, from: string, to: string): Promise<void> {
  const client = new pg.Client({ connectionString: server });
  await client.connect();
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await client.query(`CREATE DATABASE "${to}" TEMPLATE "${from}"`);
        return;
      } catch (err) {
        if ((err as { code?: string }).code !== '55006' || attempt >= 50) throw err;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  } finally {
    await client.end();
  }
}

const size = (db: FlightrecDb): number =>
  Number(db.sqlite.prepare('SELECT pg_database_size(current_database())').pluck().get());
const polls = (db: FlightrecDb): number => Number(db.sqlite.prepare('SELECT count(*) FROM poll').pluck().get());
const mb = (n: number): string => `${(n / 1e6).toFixed(1)} MB`;

describe.skipIf(!wanted)('pruning one day of 60 polls of 10,000 connections on PostgreSQL', () => {
  it('by partition drop and by row deletion (times printed)', async () => {
    const source = (await freshPgTarget({ migrated: true })).target;
    const w0 = performance.now();
    record(source);
    const out: string[] = [`recording: ${(performance.now() - w0).toFixed(0)} ms`];
    // the second copy: the same files (CREATE DATABASE ... TEMPLATE), dropped after the test
    const server = pgAvailable().url!;
    const copy = `${TEST_DB_PREFIX}${randomBytes(6).toString('hex')}`;
    await copyDatabase(server, new URL(source).pathname.slice(1), copy);
    const targets = [source, databaseUrl(server, copy)];
    onTestFinished(() => dropTestDatabase(server, copy));
    const left: number[] = [];
    for (const [i, t] of targets.entries()) {
      const db = openDatabase(t);
      const pruner = new RetentionPruner(db);
      const before = size(db);
      const t0 = performance.now();
      let how: string;
      if (i === 0) {
        const r = pruner.dropPartitions(cutoff);
        how =
          `partition drop (${r.days.map((d) => d.partitions.length).join('+')} partitions, ${r.batches} batches: ` +
          `${(performance.now() - t0).toFixed(0)} ms) then steps`;
      } else how = 'row deletion (steps of 256 polls)';
      for (let more = true; more;) more = pruner.step('m', cutoff, 256).more;
      const pruneMs = performance.now() - t0;
      const t1 = performance.now();
      for (let more = true; more;) more = pruner.cleanup('m', 4096).more;
      const cleanupMs = performance.now() - t1;
      out.push(
        `${how}: ${pruneMs.toFixed(0)} ms; then cleanup (identities, versions): ${cleanupMs.toFixed(0)} ms; ` +
          `database ${mb(before)} -> ${mb(size(db))}`,
      );
      left.push(polls(db));
      if (i === 0) {
        const bytes = (sql: string): string => mb(Number(db.sqlite.prepare(sql).pluck().get()));
        out.push(
          `left after the drop: conn_chunk ${bytes("SELECT pg_total_relation_size('conn_chunk')")}, ` +
            `conn_entity ${bytes("SELECT pg_total_relation_size('conn_entity')")}, ` +
            `conn_version ${bytes("SELECT pg_total_relation_size('conn_version')")}`,
        );
      }
      db.close();
    }
    console.log(out.join('\n'));
    expect(left).toEqual([2, 2]);
  }, 900_000);
});
