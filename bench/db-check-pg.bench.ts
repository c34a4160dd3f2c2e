// `db check` on PostgreSQL against SQLite: the store bench's data (bench/store.bench.ts and
// bench/store-pg.bench.ts: a deterministic world of 10,000 connections with 2 % churn per poll, one
// poll a minute, DB_CHECK_POLLS polls, default 100) written into a fresh PostgreSQL database and
// into an SQLite file, then the whole command `node bin/flightrec.js --db TARGET db check` timed on
// each, the two alternating (A B, B A, …: bench/lib/alternation.ts) so that a change of load on the
// shared machine falls on both. Goal: PostgreSQL at most twice SQLite's wall time (medians).
//
// Needs `npm run build` (the bench runs dist/ as a user would). The server is FLIGHTREC_BENCH_PG
// (default postgres://postgres@127.0.0.1:5432/postgres): a database flightrec_b_<random> is made
// there and dropped at the end. Without a server the figures are reported as skipped.
// Run: node scripts/bench.mjs bench/db-check-pg.bench.ts   (DB_CHECK_RUNS overrides the 5 runs each)
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConnectionWorld } from '../test/helpers/connection-answers.ts';
import { alternate, runOnce, type Command } from './lib/alternation.ts';
import { reportFigure, round } from './lib/figures.ts';
import { writeMorePolls } from './lib/list-poll.ts';
import { openBenchServer, reportSkipped } from './lib/pg-bench-db.ts';

const CONNECTIONS = 10_000;
const POLLS = Number(process.env.DB_CHECK_POLLS ?? 100);
if (!(POLLS >= 10)) throw new Error('DB_CHECK_POLLS must be at least 10');
const RUNS = Number(process.env.DB_CHECK_RUNS ?? 5);
if (!(RUNS >= 1)) throw new Error('DB_CHECK_RUNS must be at least 1');
const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const log = (s: string): void => void process.stderr.write(`${s}\n`);

const check = (db: string): Command => ({
  cmd: process.execPath,
  args: [join(root, 'bin/flightrec.js'), '--db', db, 'db', 'check'],
  cwd: root,
});

async function main(): Promise<void> {
  const opened = await openBenchServer();
  if ('skipped' in opened) {
    reportSkipped('db_check', opened.skipped);
    return;
  }
  const server = opened;
  const dir = mkdtempSync(join(tmpdir(), 'flightrec-db-check-'));
  try {
    const file = join(dir, 'store.db');
    const world = (): ConnectionWorld => new ConnectionWorld({ connections: CONNECTIONS, churn: 0.02, seed: 42 });
    const t0 = performance.now();
    const samples = writeMorePolls(file, world(), POLLS);
    writeMorePolls(server.url, world(), POLLS);
    await server.query('VACUUM (ANALYZE)');
    log(`wrote ${POLLS} polls (${samples} samples) into each store in ${round((performance.now() - t0) / 1000, 1)} s`);
    // both stores check clean: a damaged one would time another path
    for (const db of [file, server.url]) {
      const out = runOnce(check(db)).out;
      if (!/no damage found/.test(out)) throw new Error(`db check of ${db} found damage: ${out.slice(0, 500)}`);
    }
    const load0 = loadavg()[0]!.toFixed(1);
    const t = alternate(check(file), check(server.url), RUNS, true);
    const load1 = loadavg()[0]!.toFixed(1);
    const how = `node bin/flightrec.js --db TARGET db check, ${RUNS} runs each alternating with the other engine, medians of wall time; ${POLLS} polls of ${CONNECTIONS} connections (the store bench's world); load average ${load0} → ${load1}`;
    const span = (x: { median: number; min: number; max: number }): string =>
      `${round(x.median, 0)} ms (min ${round(x.min, 0)}, max ${round(x.max, 0)})`;
    reportFigure({
      name: 'db_check.sqlite_ms',
      value: round(t.a.wall.median, 1),
      unit: 'ms',
      note: `${how}; CPU ${span(t.a.cpu)}`,
    });
    reportFigure({
      name: 'db_check.pg_ms',
      value: round(t.b.wall.median, 1),
      unit: 'ms',
      note: `CPU of the command ${span(t.b.cpu)} (the PostgreSQL server's own CPU not included); wall ${span(t.b.wall)}`,
    });
    reportFigure({
      name: 'db_check.pg_over_sqlite_ratio',
      value: round(t.b.wall.median / t.a.wall.median, 2),
      unit: 'x',
      goal: { op: '<=', value: 2 },
      note: 'db_check.pg_ms over db_check.sqlite_ms (wall, medians of the alternated runs)',
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.drop();
  }
}

await main();
