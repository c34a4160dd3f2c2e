/** The typed errors of the history store. */

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
