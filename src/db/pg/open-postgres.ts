/**
 * Opening a history database on PostgreSQL (a server, or PGlite in-process): a synchronous
 * bridge handle, the version check and (for writing) the migrations under their lock. The store's
 * code then runs on it as on SQLite.
 */
import type Database from 'better-sqlite3';
import { DatabaseOpenError, DatabaseVersionError } from '../errors.ts';
import type { BridgeEngine } from './bridge-protocol.ts';
import { pgMigrationsFolder } from './migrations-folder.ts';
import { PgError, PgSyncDatabase } from './sync-database.ts';

/** What openPostgres needs: the engine, how to show the target, and the open options. */
export interface PgOpenRequest {
  readonly engine: BridgeEngine;
  /** the target as it may be printed (no password) */
  readonly shown: string;
  readonly readonly: boolean;
  readonly redact: (message: string) => string;
}

/** The opened handle, typed as the better-sqlite3 subset the store uses (see sync-database.ts). */
export interface PgOpened {
  readonly handle: PgSyncDatabase;
  readonly sqlite: Database.Database;
  readonly schemaVersion: number;
}

/** Opens and (unless read-only) migrates a PostgreSQL history database. */
export function openPostgres(req: PgOpenRequest): PgOpened {
  const handle = new PgSyncDatabase({ engine: req.engine, readonly: req.readonly, redact: req.redact });
  try {
    const { applied, supported } = handle.migrate(pgMigrationsFolder());
    if (req.readonly && applied === 0) {
      throw new DatabaseOpenError(
        req.shown,
        'the database holds no flightrec history; record into it with flightrec collect',
      );
    }
    if (req.readonly && applied < supported) {
      throw new DatabaseVersionError(
        req.shown,
        applied,
        supported,
        `history database ${req.shown} has schema version ${applied}, older than this flightrec's ${supported}; ` +
          'open it once for writing (for example with `flightrec collect`) to upgrade it.',
      );
    }
    // The bridge implements the part of better-sqlite3's API the store calls; its statements
    // convert PostgreSQL's values to what better-sqlite3 returns. One cast, here, for the typing.
    return { handle, sqlite: handle as unknown as Database.Database, schemaVersion: supported };
  } catch (err) {
    handle.close();
    if (err instanceof DatabaseOpenError || err instanceof DatabaseVersionError) throw err;
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof PgError && /newer flightrec/.test(message)) {
      throw new DatabaseVersionError(req.shown, 0, 0, `history database ${req.shown} was ${message}`);
    }
    throw new DatabaseOpenError(req.shown, req.redact(message), { cause: err });
  }
}
