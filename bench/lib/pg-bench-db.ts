// A fresh PostgreSQL database for a bench: `flightrec_b_<random>` on the server named by
// FLIGHTREC_BENCH_PG (default postgres://postgres@127.0.0.1:5432/postgres), dropped at the end.
// When no server answers, `openBenchServer` says why instead of failing, so that `npm run bench`
// reports the PostgreSQL figures as skipped. FLIGHTREC_BENCH_KEEP_DB=1 keeps the database (its
// URL is printed on stderr) for profiling a reader against it; drop it by hand afterwards.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { reportFigure } from './figures.ts';

/** The server the PostgreSQL benches use. */
export const BENCH_PG_URL = process.env.FLIGHTREC_BENCH_PG ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A database made for one bench run. */
export interface BenchDatabase {
  /** flightrec_b_<random> */
  readonly name: string;
  /** the URL of the new database (the server URL with its path replaced) */
  readonly url: string;
  /** Runs one statement on the new database (a connection of its own), returning its rows. */
  query<R extends object>(sql: string, params?: readonly unknown[]): Promise<R[]>;
  /** Drops the database (connections still open to it are ended). */
  drop(): Promise<void>;
}

/** The URL of database `name` on the server of `serverUrl`. */
export function databaseUrl(serverUrl: string, name: string): string {
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Creates a fresh database on the bench server; `{ skipped }` with the reason when no server answers. */
export async function openBenchServer(): Promise<BenchDatabase | { skipped: string }> {
  const server = BENCH_PG_URL;
  const shown = (() => {
    const u = new URL(server);
    u.password = '';
    return u.toString();
  })();
  try {
    await withClient(server, (c) => c.query('SELECT 1'));
  } catch (err) {
    return {
      skipped: `no PostgreSQL server answers at ${shown} (${err instanceof Error ? err.message : String(err)})`,
    };
  }
  const name = `flightrec_b_${randomBytes(5).toString('hex')}`;
  await withClient(server, (c) => c.query(`CREATE DATABASE ${name}`));
  const url = databaseUrl(server, name);
  return {
    name,
    url,
    query: <R extends object>(sql: string, params: readonly unknown[] = []) =>
      withClient(url, async (c) => (await c.query<R>(sql, [...params])).rows),
    drop: async () => {
      if (process.env.FLIGHTREC_BENCH_KEEP_DB === '1') {
        process.stderr.write(`kept (FLIGHTREC_BENCH_KEEP_DB=1): ${url}\n`);
        return;
      }
      await withClient(server, async (c) => void (await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)));
    },
  };
}

/** Reports a bench's figures as skipped: one figure `<prefix>.skipped` (value 1, no goal) with the reason. */
export function reportSkipped(prefix: string, reason: string): void {
  process.stderr.write(`skipped: ${reason}\n`);
  reportFigure({ name: `${prefix}.skipped`, value: 1, unit: 'flag', note: `skipped: ${reason}` });
}

/** Linux's USER_HZ, the unit of /proc/<pid>/stat times (100 on every mainstream build). */
const CLOCK_TICKS = 100;

/** CPU time (user + system) of a process so far, in ms, from /proc/<pid>/stat; undefined when gone. */
export function processCpuMs(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // the fields after the command name (which may hold spaces and parentheses); utime and stime are the 14th and 15th
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}
