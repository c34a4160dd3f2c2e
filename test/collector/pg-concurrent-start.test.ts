/**
 * Collectors starting at the same instant against one empty PostgreSQL database: each applies
 * the migrations at start-up, under a lock, so all of them come up, without an error, and the
 * schema is migrated once. Real server only (several connections at once).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { createHistoryReader, openDatabase } from '../../src/db/index.ts';
import { startSimServer, type SimServer } from '../../src/sim/index.ts';
import { startFlightrec } from '../helpers/flightrec-process.ts';
import { describeWithServer, freshPgTarget } from '../helpers/pg.ts';

const COLLECTORS = 3;
const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'flightrec-start-'));
const sims: SimServer[] = [];
afterAll(async () => {
  for (const s of sims.splice(0)) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

describeWithServer('collectors starting together on one empty PostgreSQL database', () => {
  it('all come up: the schema is migrated once, under a lock, and each records its cluster', async () => {
    const target = await freshPgTarget();
    const names = Array.from({ length: COLLECTORS }, (_, i) => `c${i}`);
    const configs: string[] = [];
    for (const [i, name] of names.entries()) {
      const sim = await startSimServer({ seed: 60 + i, connections: 10 });
      sims.push(sim);
      const config = join(dir, `${name}.yaml`);
      writeFileSync(
        config,
        `schedules: { iceberg: off, shadow: off }\nclusters:\n  - { name: ${name}, baseUrl: "${sim.baseUrl}" }\n`,
      );
      configs.push(config);
    }
    // every process is started before any of them has opened the database (a process takes a
    // few hundred ms to load): they reach the migrations together
    const runs = configs.map((config) =>
      startFlightrec(['--db', target.target, '--config', config, 'collect', '--once']),
    );
    const exits = await Promise.all(runs.map((r) => r.exit));
    exits.forEach((e, i) => expect(e, runs[i]!.err()).toEqual({ code: 0, signal: null }));
    for (const r of runs) expect(r.err()).not.toMatch(/^error:|flightrec:|warning:/m);

    const store = openDatabase(target.target, { readonly: true });
    try {
      const reader = createHistoryReader(store);
      expect(reader.clusters().sort()).toEqual(names);
      for (const name of names) {
        const polls = reader.polls({ cluster: name });
        expect(polls.map((p) => p.operation).sort(), name).toEqual(['GetUpgradeStatus', 'ListKafkaConnections']);
        expect(polls.every((p) => p.outcome === 'ok')).toBe(true);
      }
    } finally {
      store.close();
    }
    // each migration applied once (a race would apply one twice, or fail on a table already there)
    const journal = JSON.parse(readFileSync(join(ROOT, 'drizzle/pg/meta/_journal.json'), 'utf8')) as {
      entries: { tag: string }[];
    };
    const client = new pg.Client({ connectionString: target.target });
    await client.connect();
    try {
      const rows = await client.query<{ hash: string }>('SELECT hash FROM drizzle.__drizzle_migrations ORDER BY id');
      expect(rows.rows.length).toBe(journal.entries.length);
      expect(new Set(rows.rows.map((r) => r.hash)).size).toBe(journal.entries.length);
    } finally {
      await client.end();
    }
    await target.drop();
  }, 120_000);
});
