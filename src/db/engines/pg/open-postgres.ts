/**
 * Opening a history database on PostgreSQL (a server, or PGlite in-process): a synchronous
 * bridge handle, the version check and (for writing) the migrations under their lock. The store's
 * code then runs on it as on SQLite.
 */
import { DatabaseOpenError, DatabaseVersionError } from '../../errors.ts';
import type { BridgeEngine } from './bridge-protocol.ts';
import { pgMigrationsFolder } from './migrate.ts';
import { PgError, PgSyncDatabase } from './sync-database.ts';

/** What openPostgres needs: the engine, how to show the target, and the open options. */
export interface PgOpenRequest {
  readonly engine: BridgeEngine;
  /** the target as it may be printed (no password) */
  readonly shown: string;
  readonly readonly: boolean;
  readonly redact: (message: string) => string;
}

/** The opened handle (a SqlSession, see sync-database.ts). */
export interface PgOpened {
  readonly handle: PgSyncDatabase;
  readonly schemaVersion: number;
}

/** Opens and (unless read-only) migrates a PostgreSQL history database. */
export function openPostgres(req: PgOpenRequest): PgOpened {
  const handle = new PgSyncDatabase({ engine: req.engine, readonly: req.readonly, redact: req.redact });
  try {
    const { applied, supported } = handle.migrate(pgMigrationsFolder(), req.shown);
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
    return { handle, schemaVersion: supported };
  } catch (err) {
    handle.close();
    if (err instanceof DatabaseOpenError || err instanceof DatabaseVersionError) throw err;
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof PgError && /newer flightrec/.test(message)) {
      throw new DatabaseVersionError(req.shown, 0, 0, message);
    }
    throw new DatabaseOpenError(req.shown, req.redact(message), { cause: err });
  }
}
