/**
 * One connection of the bridge worker to its engine: a client of a `pg` Pool (a PostgreSQL
 * server) or an in-process PGlite (PostgreSQL compiled to WebAssembly, for tests without a
 * server). Rows come back as arrays; int8 and numeric stay text, bytea bytes: the calling thread
 * converts them (to number, or bigint under `safeIntegers`).
 */
import { createRequire } from 'node:module';
import { BASE64_COLUMN, PG_TYPE, type BridgeEngine, type BridgeField } from './bridge-protocol.ts';
import { revivePoolConfig, type PgPoolConfigData } from './pool-config.ts';
import { checkPgVersion, migratePostgres, type PgClient } from './migrate.ts';

/** A result as the bridge posts it. */
export interface EngineResult {
  readonly rows: unknown[][];
  readonly fields: BridgeField[];
  readonly rowCount: number;
}

/** A statement with its parameters. */
export interface EngineStatement {
  readonly sql: string;
  readonly params: readonly unknown[];
}

/** One open connection. */
export interface EngineConnection {
  query(sql: string, params: readonly unknown[]): Promise<EngineResult>;
  exec(sql: string): Promise<void>;
  /**
   * Runs statements of an open transaction in order, then the script `then` (COMMIT) when they
   * all succeeded; their results. The first failure is thrown with its `index`; no statement
   * after it is applied. On a server they go out together (one round trip, pipelined): those
   * after a failure meet an aborted transaction, and `then` ends it as ROLLBACK. `before`: a
   * script run first (BEGIN); its failure is thrown marked `before`.
   */
  pipeline(statements: readonly EngineStatement[], then?: string, before?: string): Promise<EngineResult[]>;
  migrate(folder: string, readonly: boolean, label: string): Promise<{ applied: number; supported: number }>;
  /** true once the connection failed (the next request opens a new one) */
  broken(): boolean;
  close(): Promise<void>;
}

/** A result's columns named BASE64_COLUMN, base64 text (translate.ts), as the bytes they are: the rows are changed in place. */
function resultOf(
  rows: unknown[][],
  fields: readonly { name: string; dataTypeID: number }[],
  rowCount: number,
): EngineResult {
  const out: BridgeField[] = [];
  fields.forEach((f, i) => {
    if (f.name !== BASE64_COLUMN || f.dataTypeID !== PG_TYPE.text) {
      out.push({ name: f.name, type: f.dataTypeID });
      return;
    }
    out.push({ name: f.name, type: PG_TYPE.bytea });
    for (const row of rows) {
      const v = row[i];
      if (typeof v === 'string') row[i] = Buffer.from(v, 'base64');
    }
  });
  return { rows, fields: out, rowCount };
}

/** Bytes arrive from the calling thread as Uint8Array; pg sends a Buffer as bytea. */
function toDriver(params: readonly unknown[]): unknown[] {
  return params.map((p) =>
    p instanceof Uint8Array && !Buffer.isBuffer(p) ? Buffer.from(p.buffer, p.byteOffset, p.length) : p,
  );
}

/**
 * Whether an error means the connection is gone: a server error of class 08 (connection
 * exception) or 57P01-57P03 (terminated by an administrator, a crash or a shutdown), or an error
 * without an SQLSTATE (a socket reset, "Connection terminated"). The client's own 'error' event
 * can come after the failed query, so the query's error is judged by itself.
 */
export function losesConnection(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return true;
  return code.startsWith('08') || /^57P0[123]$/.test(code);
}

/** A failure, caught to be read later (an Error, so it can be marked). */
function caught(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/**
 * Undefined when a COMMIT committed; an error when it ended an aborted transaction (PostgreSQL
 * then answers ROLLBACK, without an error: the writes were not kept and must not be taken as kept).
 */
function committed(r: { command?: string } | { command?: string }[]): Error | undefined {
  const last = Array.isArray(r) ? r[r.length - 1] : r;
  return last?.command === 'ROLLBACK' ? rolledBackAtCommit() : undefined;
}

/** The error of a COMMIT that ended an aborted transaction. */
function rolledBackAtCommit(): Error {
  return Object.assign(new Error('the transaction was rolled back at COMMIT: an earlier statement of it failed'), {
    code: '25P02',
  });
}

/** The error of the statement at `index` of a pipeline, marked with it. */
function withIndex(err: unknown, index: number): unknown {
  if (err instanceof Error) Object.assign(err, { index });
  return err;
}

/** Most named statements a connection keeps (the server holds each until the connection ends). */
const MAX_NAMED = 256;
/** A read: a SELECT, or a WITH whose statement is one. */
const READ_TEXT = /^\s*(SELECT|WITH)\b/i;

/**
 * Whether a statement takes a table's columns with `*` (a subquery's own `xN.*` and `count(*)`
 * aside): a named one would fail once a migration changes that table's columns
 * (PostgreSQL's "cached plan must not change result type"), so such a read stays unnamed.
 */
function anyColumns(sql: string): boolean {
  return sql
    .replace(/\bx\d+\.\*/g, '')
    .replace(/count\(\*\)/gi, '')
    .includes('*');
}

/**
 * The `pg` module, loaded as the CommonJS package it is (an `import()` would go through its ES
 * module wrapper and the ES module resolver). As it loads, pg asks whether it runs on Cloudflare
 * Workers: where there is no `navigator` (Node 20; Node 21 and later define one) it constructs a
 * `Response`, which loads Node's bundled fetch (undici, some 50 internal modules): about half of
 * pg's load, in every bridge worker's start. A `navigator` as Node 21's stands there while pg
 * loads, and is taken away after.
 */
function loadPg(): typeof import('pg') {
  const require = createRequire(import.meta.url);
  if ('navigator' in globalThis) return require('pg') as typeof import('pg');
  const userAgent = `Node.js/${process.versions.node.split('.')[0] ?? ''}`;
  Object.defineProperty(globalThis, 'navigator', { value: { userAgent }, configurable: true, writable: true });
  try {
    return require('pg') as typeof import('pg');
  } finally {
    delete (globalThis as { navigator?: unknown }).navigator;
  }
}

async function connectPg(config: PgPoolConfigData): Promise<EngineConnection> {
  const pg = loadPg();
  // pipeline: queries issued without waiting go out together (see `pipeline` below)
  const options: import('pg').PoolConfig & { pipeline: boolean } = {
    ...revivePoolConfig(config),
    max: 1,
    pipeline: true,
  };
  const pool = new pg.Pool(options);
  // an idle client that fails (server restart, network loss) must not crash the worker
  pool.on('error', () => undefined);
  const client = await pool.connect();
  let broken = false;
  client.on('error', () => {
    broken = true;
  });
  const fail = (err: unknown): never => {
    if (losesConnection(err)) broken = true;
    throw err;
  };
  // reads as named statements: parsed and analysed once per connection, not at every round trip
  const named = new Map<string, string>();
  const nameOf = (sql: string): string | undefined => {
    let name = named.get(sql);
    if (name === undefined && named.size < MAX_NAMED && READ_TEXT.test(sql) && !anyColumns(sql)) {
      name = `flightrec_r${named.size}`;
      named.set(sql, name);
    }
    return name;
  };
  const send = (sql: string, params: readonly unknown[]) => {
    const name = nameOf(sql);
    return client.query<unknown[]>({
      text: sql,
      rowMode: 'array',
      values: toDriver(params),
      ...(name === undefined ? {} : { name }),
    });
  };
  const result = (r: import('pg').QueryResult<unknown[]>): EngineResult => resultOf(r.rows, r.fields, r.rowCount ?? 0);
  return {
    async query(sql, params) {
      return result(await send(sql, params).catch(fail));
    },
    async exec(sql) {
      const r: unknown = await client.query(sql).catch(fail);
      const rolledBack = sql === 'COMMIT' ? committed(r as { command?: string }) : undefined;
      if (rolledBack !== undefined) fail(rolledBack);
    },
    async pipeline(statements, then, before) {
      // each with a handler from the start; their failures are read once all have answered
      const began = before === undefined ? undefined : client.query(before).then(() => undefined, caught);
      const sent = statements.map((s) => send(s.sql, s.params));
      const ended = then === undefined ? undefined : client.query(then).then(committed, caught);
      const settled = await Promise.allSettled(sent);
      const endFailure = await ended;
      const beginFailure = await began;
      if (beginFailure !== undefined) fail(Object.assign(beginFailure, { before: true }));
      const first = settled.findIndex((s) => s.status === 'rejected');
      if (first >= 0) fail(withIndex((settled[first] as PromiseRejectedResult).reason, first));
      if (endFailure !== undefined) fail(endFailure);
      return settled.map((s) => result((s as PromiseFulfilledResult<import('pg').QueryResult<unknown[]>>).value));
    },
    migrate: (folder, readonly, label) => migrateOrCheck(client, folder, readonly, label).catch(fail),
    broken: () => broken,
    async close() {
      client.release(broken);
      await pool.end();
    },
  };
}

async function connectPglite(dir: string): Promise<EngineConnection> {
  let PGlite: typeof import('@electric-sql/pglite').PGlite;
  try {
    ({ PGlite } = await import('@electric-sql/pglite'));
  } catch (err) {
    throw new Error(
      'a pglite:// database needs the optional package @electric-sql/pglite (npm install @electric-sql/pglite); use a postgres:// URL otherwise',
      { cause: err },
    );
  }
  const db = dir === 'memory' ? new PGlite() : new PGlite(dir);
  await db.waitReady;
  const asText = { 20: (v: string) => v, 1700: (v: string) => v };
  const query = async (sql: string, params: readonly unknown[]): Promise<EngineResult> => {
    const r = await db.query<unknown[]>(sql, [...params], { rowMode: 'array', parsers: asText });
    return resultOf(r.rows, r.fields, r.affectedRows ?? r.rows.length);
  };
  /**
   * Runs `sql`; a COMMIT of an aborted transaction is an error, as on a server (PGlite gives no
   * command tag to tell: a statement before it fails with 25P02 when the transaction is aborted).
   */
  const exec = async (sql: string): Promise<void> => {
    const aborted =
      sql === 'COMMIT' &&
      (await db.query('SELECT 1').then(
        () => false,
        (err: unknown) => (err as { code?: unknown }).code === '25P02',
      ));
    await db.exec(sql);
    if (aborted) throw rolledBackAtCommit();
  };
  return {
    query,
    exec,
    async pipeline(statements, then, before) {
      // one connection in this process: nothing to gain from sending ahead
      if (before !== undefined)
        await db.exec(before).catch((err: unknown) => Promise.reject(Object.assign(err as object, { before: true })));
      const out: EngineResult[] = [];
      for (const [i, s] of statements.entries()) {
        try {
          out.push(await query(s.sql, s.params));
        } catch (err) {
          throw withIndex(err, i);
        }
      }
      if (then !== undefined) await exec(then);
      return out;
    },
    migrate: (folder, readonly, label) => migrateOrCheck(db, folder, readonly, label),
    broken: () => db.closed,
    async close() {
      if (!db.closed) await db.close();
    },
  };
}

/** Checks the schema version (read-only) or migrates; the version found and this flightrec's. */
async function migrateOrCheck(
  client: PgClient,
  folder: string,
  readonly: boolean,
  label: string,
): Promise<{ applied: number; supported: number }> {
  if (readonly) return checkPgVersion(client, folder, label);
  const { version } = await migratePostgres(client, folder, label);
  return { applied: version, supported: version };
}

/** Opens a connection to the engine. */
export function connectEngine(engine: BridgeEngine): Promise<EngineConnection> {
  return engine.kind === 'pg' ? connectPg(engine.config) : connectPglite(engine.dir);
}
