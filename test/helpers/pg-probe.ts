/**
 * Which PostgreSQL the tests of the PostgreSQL engine use, chosen once per `vitest` run by the
 * global setup (test/global-setup.ts): `FLIGHTREC_TEST_PG` when set (a server URL, or `pglite` to
 * force PGlite); otherwise a server answering on 127.0.0.1:5432 that lets its user create
 * databases (each test makes a fresh `flightrec_t_` one), found with a short time-out; otherwise
 * PGlite, in-process.
 */
import { userInfo } from 'node:os';
import pg from 'pg';

/** The variable that names the server, or `pglite`. */
export const TEST_PG_ENV = 'FLIGHTREC_TEST_PG';

/** Where the probe looks when the variable is not set. */
export const LOCAL_PG = { host: '127.0.0.1', port: 5432 } as const;

/** How long a connection attempt of the probe may take. */
const PROBE_TIMEOUT_MS = 1500;

/** What the tests will use, and the one line that says so. */
export interface PgChoice {
  /** the server URL, or undefined for PGlite */
  readonly url?: string;
  /** `PostgreSQL tests: ...` */
  readonly line: string;
}

/** `url` without its password, for printing. */
export function urlWithoutPassword(url: string): string {
  try {
    const u = new URL(url);
    u.password = '';
    return u.toString();
  } catch {
    return '(a URL that does not parse)';
  }
}

/** The users to try on the local server: PGUSER, `postgres`, the user running the tests. */
function candidateUsers(env: Readonly<Record<string, string | undefined>>): string[] {
  let me: string | undefined;
  try {
    me = userInfo().username;
  } catch {
    me = undefined;
  }
  return [...new Set([env.PGUSER, 'postgres', me].filter((u): u is string => u !== undefined && u !== ''))];
}

/** True when `url` answers and its user may create databases (false for anything else, within the time-out). */
export async function probePg(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: PROBE_TIMEOUT_MS });
  // a refused or dropped connection is an answer of the probe, never an unhandled error
  client.on('error', () => undefined);
  try {
    await client.connect();
    const r = await client.query<{ ok: boolean }>(
      'SELECT (rolcreatedb OR rolsuper) AS ok FROM pg_roles WHERE rolname = current_user',
    );
    return r.rows[0]?.ok === true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Chooses the PostgreSQL of this run; `probe` is injected for tests. */
export async function choosePg(
  env: Readonly<Record<string, string | undefined>>,
  probe: (url: string) => Promise<boolean> = probePg,
): Promise<PgChoice> {
  const given = env[TEST_PG_ENV]?.trim();
  if (given !== undefined && given !== '') {
    if (given.toLowerCase() === 'pglite')
      return { line: `PostgreSQL tests: PGlite, in-process (${TEST_PG_ENV}=pglite)` };
    return { url: given, line: `PostgreSQL tests: ${urlWithoutPassword(given)} (${TEST_PG_ENV})` };
  }
  const where = `${LOCAL_PG.host}:${LOCAL_PG.port}`;
  for (const user of candidateUsers(env)) {
    const url = `postgres://${encodeURIComponent(user)}@${where}/postgres`;
    if (await probe(url)) return { url, line: `PostgreSQL tests: ${url} (found on ${where})` };
  }
  return {
    line:
      `PostgreSQL tests: PGlite, in-process (no server on ${where} that lets its user create databases; ` +
      `set ${TEST_PG_ENV}=postgres://USER@HOST:PORT/DATABASE to name one); the tests that need a server are skipped`,
  };
}
