/** The typed errors of the history store. */

/** A `--db` value that cannot be used (malformed URL, unknown parameter, unusable password file). */
export class DbTargetError extends Error {
  override readonly name = 'DbTargetError';
}

/** An error of PostgreSQL or of the connection to it, with the server's SQLSTATE when it gave one. */
export class PgError extends Error {
  override readonly name = 'PgError';
  /** SQLSTATE (e.g. 23505), or undefined for a connection failure */
  readonly code: string | undefined;
  readonly connection: boolean;
  constructor(message: string, code: string | undefined, connection: boolean) {
    super(message);
    this.code = code;
    this.connection = connection;
  }
}

/** A database written by a newer flightrec (or not yet migrated, when opened read-only). */
export class DatabaseVersionError extends Error {
  override readonly name = 'DatabaseVersionError';
  readonly path: string;
  /** schema version found in the file */
  readonly found: number;
  /** schema version this flightrec writes */
  readonly supported: number;

  constructor(path: string, found: number, supported: number, message: string) {
    super(message);
    this.path = path;
    this.found = found;
    this.supported = supported;
  }
}

/** A database file that cannot be opened: missing, unreadable, not SQLite, or corrupt. */
export class DatabaseOpenError extends Error {
  override readonly name = 'DatabaseOpenError';
  readonly path: string;

  constructor(path: string, reason: string, options?: { cause?: unknown }) {
    super(`cannot open history database ${path}: ${reason}`, options);
    this.path = path;
  }
}

/** A poll record the store cannot write (the transaction is rolled back; nothing is stored). */
export class PollWriteError extends Error {
  override readonly name = 'PollWriteError';
  readonly cluster: string;
  readonly operation: string;

  constructor(cluster: string, operation: string, reason: string, options?: { cause?: unknown }) {
    super(`cannot store ${operation} poll of cluster ${cluster}: ${reason}`, options);
    this.cluster = cluster;
    this.operation = operation;
  }
}

/** A reader question the store cannot answer as asked (unknown poll, ambiguous cluster, bad key). */
export class HistoryQueryError extends Error {
  override readonly name = 'HistoryQueryError';
}

/** Where damaged stored data was found, as far as the reader knows it. */
export interface DamageSite {
  /** the table holding the damaged value (conn_chunk, conn_frame, str, ...) */
  readonly table?: string;
  /** the poll being read */
  readonly poll?: number;
  /** the stored entity (a connection id, a version id, a dictionary id, a batch) */
  readonly entity?: string;
}

/**
 * Stored bytes that do not decode (a value running past its blob, a count larger than its data,
 * a missing dictionary entry, a page SQLite calls malformed): the database is damaged. The
 * message names what is damaged and how to go on.
 */
export class CorruptDataError extends Error {
  override readonly name = 'CorruptDataError';
  readonly site: DamageSite;
  /** what is wrong, without the location */
  readonly reason: string;

  constructor(reason: string, site: DamageSite = {}, options?: { cause?: unknown }) {
    super(corruptMessage(reason, site), options);
    this.reason = reason;
    this.site = site;
  }

  /** The same damage with more of its location filled in (what the caller knows and the thrower did not). */
  within(site: DamageSite): CorruptDataError {
    const merged: DamageSite = { ...site, ...definedOf(this.site) };
    if (merged.table === this.site.table && merged.poll === this.site.poll && merged.entity === this.site.entity)
      return this;
    return new CorruptDataError(this.reason, merged, { cause: this.cause ?? this });
  }
}

function definedOf(site: DamageSite): DamageSite {
  const out: { table?: string; poll?: number; entity?: string } = {};
  if (site.table !== undefined) out.table = site.table;
  if (site.poll !== undefined) out.poll = site.poll;
  if (site.entity !== undefined) out.entity = site.entity;
  return out;
}

function corruptMessage(reason: string, site: DamageSite): string {
  const where = [
    site.table === undefined ? undefined : `table ${site.table}`,
    site.poll === undefined ? undefined : `poll ${site.poll}`,
    site.entity,
  ].filter((x) => x !== undefined);
  return (
    `the history database is damaged${where.length > 0 ? ` (${where.join(', ')})` : ''}: ${reason}. ` +
    'Run `flightrec db check` to list every damaged range; read around it (--since/--until, --at) or restore the file from a backup'
  );
}

/** PostgreSQL's SQLSTATEs for damaged data: data_corrupted, index_corrupted. */
const PG_CORRUPT_CODES: ReadonlySet<string> = new Set(['XX001', 'XX002']);

/** SQLite result codes that say the file itself is damaged. */
const CORRUPT_CODES = /^SQLITE_(CORRUPT|NOTADB)/;

/**
 * What a failure while reading stored data means: a CorruptDataError at `site` (one already
 * typed gains the location) unless it is not about the data (a query the store cannot answer,
 * a database that cannot be opened, a busy or failing disk: those are passed on unchanged).
 */
export function damaged(err: unknown, site: DamageSite = {}): unknown {
  if (err instanceof CorruptDataError) return err.within(site);
  if (err instanceof HistoryQueryError || err instanceof DatabaseOpenError || err instanceof DatabaseVersionError)
    return err;
  const code = (err as { code?: unknown } | undefined)?.code;
  const text = err instanceof Error ? err.message : String(err);
  if (err instanceof PgError) {
    // data_corrupted and index_corrupted are damage; a lost connection, a time-out or a refused
    // permission is not about the data, whatever step of a read it interrupted
    if (!PG_CORRUPT_CODES.has(String(code))) return err;
    return new CorruptDataError(`PostgreSQL reports damaged data (${text})`, site, { cause: err });
  }
  if (typeof code === 'string' && code.startsWith('SQLITE_')) {
    if (!CORRUPT_CODES.test(code)) return err;
    return new CorruptDataError(`SQLite reports a malformed page (${text})`, site, { cause: err });
  }
  // anything else thrown while decoding stored bytes (a count out of range, a missing id, bad JSON) is damage
  return new CorruptDataError(text, site, { cause: err });
}

/** Runs a decoding step; a failure is rethrown as damaged(err, site) says. */
export function decoding<T>(site: DamageSite, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw damaged(err, site);
  }
}
