/**
 * Opening the history database: file creation with mode 0600, a schema-version check that
 * refuses (and never touches) a database written by a newer flightrec, pragmas, and the
 * committed drizzle migrations applied at start-up; a writer leaves WAL mode when it closes last.
 */
import { accessSync, closeSync, chmodSync, constants, existsSync, openSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { DatabaseOpenError, DatabaseVersionError } from './errors.ts';
import { migrationsFolder } from './migrations-folder.ts';
import { openPostgres } from './pg/open-postgres.ts';
import { bridgeEngineOf } from './pg/open-target.ts';
import { displayDbTarget, parseDbTarget, redactSecrets } from './pg/target.ts';

export { migrationsFolder };

/** Options of openDatabase. */
export interface OpenOptions {
  /** open for reading only: no migration, no write; fails when the file is missing */
  readonly readonly?: boolean;
  /** keep the raw body (gzip'd) of successful answers too, not only of failed ones */
  readonly keepRawAnswers?: boolean;
  /** milliseconds to wait for a lock held by another connection (default 5000) */
  readonly busyTimeoutMs?: number;
  /** PostgreSQL: a file holding the password (when the URL has none) */
  readonly passwordFile?: string;
}

/** An open history database. */
export interface FlightrecDb {
  /** the database as it may be printed: the file, or the URL without its password */
  readonly path: string;
  /** what opens it again (a worker's own connection); may hold a password: never print it */
  readonly target: string;
  /** which engine holds the history */
  readonly dialect: 'sqlite' | 'postgres';
  /**
   * The connection: better-sqlite3's (hot paths use its prepared statements), or on PostgreSQL a
   * synchronous bridge with the same API (src/db/pg/sync-database.ts).
   */
  readonly sqlite: Database.Database;
  readonly readonly: boolean;
  readonly keepRawAnswers: boolean;
  /** the schema version of this flightrec (= number of committed migrations) */
  readonly schemaVersion: number;
  close(): void;
}

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

/**
 * Opens (creating with mode 0600 and migrating, unless read-only) a history database: an SQLite
 * file, or a PostgreSQL database given as a postgres:// URL.
 */
export function openDatabase(path: string, opts: OpenOptions = {}): FlightrecDb {
  const target = parseDbTarget(path, opts.passwordFile === undefined ? {} : { passwordFile: opts.passwordFile });
  if (target.kind !== 'sqlite') {
    const shown = displayDbTarget(target);
    const readonly = opts.readonly ?? false;
    const opened = openPostgres({
      engine: bridgeEngineOf(target),
      shown,
      readonly,
      redact: (m) => redactSecrets(m, target),
    });
    return {
      path: shown,
      target: path,
      dialect: 'postgres',
      sqlite: opened.sqlite,
      readonly,
      keepRawAnswers: opts.keepRawAnswers ?? false,
      schemaVersion: opened.schemaVersion,
      close: () => {
        opened.handle.close();
      },
    };
  }
  return openSqlite(path, opts);
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
    dialect: 'sqlite',
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
