/**
 * The SQLite engine: a history database in one file. Opening creates it with mode 0600, checks
 * the schema version (refusing, and never touching, a database written by a newer flightrec),
 * sets the pragmas and applies the committed drizzle migrations; a writer leaves WAL mode when it
 * closes last. Its session's methods are the SQLite side of what the engines do differently.
 */
import { accessSync, closeSync, chmodSync, constants, existsSync, openSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { DatabaseOpenError, DatabaseVersionError } from '../errors.ts';
import { CHUNK_GROUP_BYTES } from '../connections/chunk.ts';
import { migrationsFolder } from '../schema/migrations-folder.ts';
import type { SqlSession } from '../sql-session.ts';
import { checkpointInThread } from './sqlite-checkpoint.ts';
import type { EngineSession, FlightrecDb, OpenOptions, StoreEngine, WalCheckpoint } from './store-engine.ts';

interface Journal {
  readonly entries: readonly { readonly idx: number; readonly when: number; readonly tag: string }[];
}

function readJournal(): Journal {
  return JSON.parse(readFileSync(join(migrationsFolder(), 'meta', '_journal.json'), 'utf8')) as Journal;
}

interface FoundVersion {
  readonly empty: boolean;
  readonly flightrec: boolean;
  readonly userVersion: number;
  readonly applied: number;
  readonly lastWhen: number;
}

function inspect(sqlite: Database.Database): FoundVersion {
  const tables = sqlite.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).pluck().all() as string[];
  const userVersion = Number(sqlite.pragma('user_version', { simple: true }));
  const others = tables.filter((t) => t !== '__drizzle_migrations');
  if (!tables.includes('__drizzle_migrations')) {
    return { empty: others.length === 0, flightrec: false, userVersion, applied: 0, lastWhen: 0 };
  }
  const row = sqlite.prepare('SELECT count(*) AS n, max(created_at) AS last FROM __drizzle_migrations').get() as {
    n: number;
    last: number | null;
  };
  return {
    empty: others.length === 0 && row.n === 0,
    flightrec: tables.includes('poll'),
    userVersion,
    applied: row.n,
    lastWhen: Number(row.last ?? 0),
  };
}

function checkVersion(path: string, found: FoundVersion, journal: Journal, readonly: boolean): void {
  if (readonly && found.empty && found.applied === 0) {
    // a file of 0 bytes (or an SQLite file with no table) is no history: say so, not "schema version 0"
    throw new DatabaseOpenError(
      path,
      `the file is empty${fileSize(path) === 0 ? ' (0 bytes)' : ''}: it holds no flightrec history; record into it with flightrec collect, or give the --db of a recording`,
    );
  }
  const supported = journal.entries.length;
  const ourLast = journal.entries.at(-1)?.when ?? 0;
  const foundVersion = Math.max(found.userVersion, found.applied);
  const newer = foundVersion > supported || found.lastWhen > ourLast;
  if (!found.empty && !found.flightrec && !(newer && found.applied > 0)) {
    throw new DatabaseOpenError(path, 'the file is an SQLite database but not a flightrec history (left untouched)');
  }
  if (newer) {
    throw new DatabaseVersionError(
      path,
      foundVersion,
      supported,
      `history database ${path} was written by a newer flightrec (schema version ${foundVersion}, this flightrec supports up to ${supported}); ` +
        'upgrade flightrec to read it. The file was not modified.',
    );
  }
  if (readonly && foundVersion < supported) {
    throw new DatabaseVersionError(
      path,
      foundVersion,
      supported,
      `history database ${path} has schema version ${foundVersion}, older than this flightrec's ${supported}; ` +
        'open it once for writing (for example with `flightrec collect`) to upgrade it.',
    );
  }
}

/** How to go on with a file SQLite cannot read. */
const DAMAGED_HINT = '; restore it from a backup, or save what is readable with `sqlite3 FILE .recover | sqlite3 NEW`';
function fileSize(path: string): number | undefined {
  try {
    return statSync(path).size;
  } catch {
    return undefined;
  }
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    if (code === 'SQLITE_NOTADB')
      return `not an SQLite database (or encrypted, or its first page is damaged)${DAMAGED_HINT}`;
    if (typeof code === 'string' && code.startsWith('SQLITE_CORRUPT'))
      return `the file is damaged or truncated (SQLite: ${err.message})${DAMAGED_HINT}`;
    return err.message;
  }
  return String(err);
}

/** Why a read-only open failed; names the WAL trap (no -shm file, and no right to create one) when that is it. */
function describeReadFailure(path: string, err: unknown): string {
  const code = (err as { code?: unknown } | undefined)?.code;
  if (code !== 'SQLITE_CANTOPEN' && code !== 'SQLITE_READONLY_DIRECTORY') return describe(err);
  const dir = dirname(path);
  try {
    accessSync(dir, constants.W_OK);
    return describe(err);
  } catch {
    return (
      `it is in WAL mode (its last writer is still running or did not close it cleanly) and SQLite must create ${path}-shm to read it, ` +
      `but ${dir} is not writable; copy ${path} (and ${path}-wal if there is one) to a writable directory and read the copy`
    );
  }
}

/**
 * Switches a closing writer's database back to a rollback journal when no other connection has it
 * open, so that it can be read where no -shm file can be created (a read-only directory, mount or
 * copy). The next writer switches it to WAL again.
 */
function leaveWalMode(sqlite: Database.Database): void {
  try {
    sqlite.pragma('busy_timeout = 0');
    sqlite.pragma('journal_mode = DELETE');
  } catch {
    // another connection has it open: it stays in WAL, which its own last close checkpoints
  }
}

function openSqlite(path: string, opts: OpenOptions): FlightrecDb {
  const readonly = opts.readonly ?? false;
  const journal = readJournal();
  if (path !== ':memory:' && !existsSync(path)) {
    if (readonly) throw new DatabaseOpenError(path, 'no such file');
    try {
      closeSync(openSync(path, 'wx', 0o600));
      chmodSync(path, 0o600);
    } catch (err) {
      throw new DatabaseOpenError(path, describe(err), { cause: err });
    }
  }
  let sqlite: Database.Database;
  try {
    sqlite = new Database(path, { readonly, fileMustExist: path !== ':memory:' });
  } catch (err) {
    throw new DatabaseOpenError(path, describe(err), { cause: err });
  }
  try {
    sqlite.pragma(`busy_timeout = ${Math.max(0, Math.floor(opts.busyTimeoutMs ?? 5000))}`);
    let found: FoundVersion;
    try {
      found = inspect(sqlite);
    } catch (err) {
      throw new DatabaseOpenError(path, readonly ? describeReadFailure(path, err) : describe(err), { cause: err });
    }
    checkVersion(path, found, journal, readonly);
    sqlite.pragma('cache_size = -65536');
    sqlite.pragma('foreign_keys = ON');
    if (readonly) {
      sqlite.pragma('query_only = ON');
    } else {
      sqlite.pragma('journal_mode = WAL');
      sqlite.pragma('synchronous = NORMAL');
      if (found.applied < journal.entries.length) {
        migrate(drizzle(sqlite), { migrationsFolder: migrationsFolder() });
      }
      if (found.userVersion !== journal.entries.length) sqlite.pragma(`user_version = ${journal.entries.length}`);
    }
  } catch (err) {
    sqlite.close();
    if (err instanceof DatabaseOpenError || err instanceof DatabaseVersionError) throw err;
    throw new DatabaseOpenError(path, describe(err), { cause: err });
  }
  return {
    path,
    target: path,
    engine: sqliteSession(sqlite, path),
    sqlite,
    readonly,
    keepRawAnswers: opts.keepRawAnswers ?? false,
    schemaVersion: journal.entries.length,
    close: () => {
      if (!sqlite.open) return;
      if (!readonly && path !== ':memory:') leaveWalMode(sqlite);
      sqlite.close();
    },
  };
}

/** Bytes of the pages in use: (page_count - freelist_count) x page_size, as this connection sees them. */
function usedPageBytes(sqlite: Database.Database): number {
  const pages = Number(sqlite.pragma('page_count', { simple: true }));
  const free = Number(sqlite.pragma('freelist_count', { simple: true }));
  return (pages - free) * Number(sqlite.pragma('page_size', { simple: true }));
}

/**
 * Each table's pages with its indexes, from dbstat; undefined when this SQLite build has no
 * dbstat table (SQLITE_ENABLE_DBSTAT_VTAB; better-sqlite3's own build has it).
 */
function dbstatBytes(sqlite: Database.Database): Map<string, number> | undefined {
  let rows: { tbl: string; bytes: number }[];
  try {
    rows = sqlite
      .prepare(
        'SELECT m.tbl_name AS tbl, sum(s.pgsize) AS bytes FROM dbstat s JOIN sqlite_master m ON m.name = s.name GROUP BY m.tbl_name',
      )
      .all() as { tbl: string; bytes: number }[];
  } catch (err) {
    if (err instanceof Error && /no such table: dbstat/i.test(err.message)) return undefined;
    throw err;
  }
  return new Map(rows.map((r) => [r.tbl, Number(r.bytes)]));
}

/** A PASSIVE WAL checkpoint: the frames no reader needs are written back; never waits, never throws. */
function passiveCheckpoint(sqlite: Database.Database): WalCheckpoint | undefined {
  try {
    const [r] = sqlite.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
    // -1: not in WAL mode (an in-memory database)
    return r === undefined || r.log < 0 ? undefined : { frames: r.log, checkpointed: Math.max(0, r.checkpointed) };
  } catch {
    // a checkpoint SQLite cannot do now is done by a later one
    return undefined;
  }
}

/** The SQLite side of what the engines do differently, on the connection `sqlite` to the file `path`. */
function sqliteSession(sqlite: Database.Database, path: string): EngineSession {
  return {
    name: 'sqlite',
    label: 'SQLite',
    connectionLayout: 'typed-columns',
    chunkGroupBytes: CHUNK_GROUP_BYTES,
    usedBytes: () => usedPageBytes(sqlite),
    storeBytes: () => {
      if (path === ':memory:' || path === '') {
        return (
          Number(sqlite.pragma('page_count', { simple: true })) * Number(sqlite.pragma('page_size', { simple: true }))
        );
      }
      const size = (p: string): number => statSync(p, { throwIfNoEntry: false })?.size ?? 0;
      return size(path) + size(`${path}-wal`);
    },
    tableBytes: () => dbstatBytes(sqlite),
    // every row of a file is its cluster's by its foreign keys
    scopeCluster: () => undefined,
    // better-sqlite3 reads in this thread: nothing to post ahead
    prefetches: false,
    prefetch: () => false,
    afterSeal: () => void passiveCheckpoint(sqlite),
    passiveCheckpoint: () => passiveCheckpoint(sqlite),
    // a file's other connections see its WAL; an in-memory database has none (and no other connection)
    ...(path === ':memory:' || path === '' ? {} : { checkpointInBackground: () => checkpointInThread(path) }),
    // WAL checkpoints go with batch seals (already the slow polls), not into ordinary commits;
    // the automatic one stays as a safety net at 32 MiB
    deferCheckpoints: () => void sqlite.pragma('wal_autocheckpoint = 8192'),
    checkpoint: () => void sqlite.pragma('wal_checkpoint(TRUNCATE)'),
    vacuum: () => {
      sqlite.exec('VACUUM');
      sqlite.pragma('wal_checkpoint(TRUNCATE)');
    },
    refreshStatistics: () => undefined,
    cacheKiB: (kib) => void sqlite.pragma(`cache_size = -${Math.max(0, Math.floor(kib))}`),
    integrityCheck: () => ({
      problems: (sqlite.prepare('PRAGMA integrity_check(100)').pluck().all() as string[]).filter((m) => m !== 'ok'),
    }),
  };
}

/** The SQLite engine: any `--db` no other engine claims is a file. */
export const sqliteEngine: StoreEngine = {
  name: 'sqlite',
  label: 'SQLite',
  file: true,
  claims: () => true,
  shown: (text) => text,
  redact: (message) => message,
  databaseName: () => undefined,
  access: () => undefined,
  writesFromOwnThread: () => false,
  open: openSqlite,
};

/**
 * Reads a SQLite file as it is: read-only, no migration and no version check (a file that may
 * be no recording, or one of an earlier version: the demo asks whether a file is its own).
 */
export function readSqliteFileAsIs<T>(path: string, read: (sqlite: SqlSession) => T): T {
  const sqlite = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return read(sqlite);
  } finally {
    sqlite.close();
  }
}
