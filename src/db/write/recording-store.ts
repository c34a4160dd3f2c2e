/**
 * The store a collector records into: the writer of a database file, plus the two checks a
 * long-running recorder needs. `checkFile` makes sure the path still names the file open
 * (deleting or replacing it would otherwise send every later poll into an unlinked file) and
 * opens a new database there when it does not; `leases` keep one active collector per cluster.
 */
import { statSync } from 'node:fs';
import { DatabaseOpenError, DatabaseVersionError } from '../errors.ts';
import { sqliteLeases } from './lease.ts';
import { openDatabase, type FlightrecDb, type OpenOptions } from '../engines/open.ts';
import {
  StoreLostError,
  type ClusterLeases,
  type FileCheck,
  type HistoryWriter,
  type PollRecord,
  type StoredPoll,
} from '../poll-record.ts';
import { createHistoryWriter, type FlightrecWriter, type HistoryWriterOptions } from './writer.ts';

/** Options of openRecordingStore. */
export interface RecordingStoreOptions
  extends Pick<OpenOptions, 'keepRawAnswers' | 'busyTimeoutMs' | 'passwordFile'>, HistoryWriterOptions {
  /** called with each database the store opens (the first, and any opened after the file was replaced): tools and tests */
  readonly onOpen?: (db: FlightrecDb) => void;
}

/** The recording store: a HistoryWriter with file checks and leases. */
export interface RecordingStore extends HistoryWriter {
  readonly path: string;
  checkFile(): FileCheck;
  readonly leases: ClusterLeases;
}

interface Identity {
  readonly dev: bigint;
  readonly ino: bigint;
}

function identityOf(path: string): Identity | undefined {
  try {
    const st = statSync(path, { bigint: true });
    return { dev: st.dev, ino: st.ino };
  } catch {
    return undefined;
  }
}

/** Opens (creating when needed) the database at `path` for recording. Throws DatabaseOpenError / DatabaseVersionError. */
export function openRecordingStore(path: string, opts: RecordingStoreOptions = {}): RecordingStore {
  const open = (): {
    db: FlightrecDb;
    writer: FlightrecWriter;
    leases: ClusterLeases;
    identity: Identity | undefined;
  } => {
    const db = openDatabase(path, opts);
    try {
      opts.onOpen?.(db);
      return { db, writer: createHistoryWriter(db, opts), leases: sqliteLeases(db.sqlite), identity: identityOf(path) };
    } catch (err) {
      db.close();
      throw err;
    }
  };
  let current = open();
  let closed = false;

  const reopen = (what: string): FileCheck => {
    try {
      // the old file is gone from its path: close it without sealing (nobody can read it any more)
      current.db.close();
    } catch {
      // a connection to an unlinked file may fail to close cleanly; it holds nothing we can save
    }
    try {
      current = open();
    } catch (err) {
      closed = true;
      const why = err instanceof DatabaseOpenError || err instanceof DatabaseVersionError ? err.message : String(err);
      throw new StoreLostError(
        `the database file ${path} ${what} while recording, and no database can be opened there: ${why}`,
        { cause: err },
      );
    }
    return {
      reopened: true,
      message:
        `the database file ${path} ${what} while recording: the polls written to it before are no longer reachable from that path; ` +
        `a new database was started at ${path} and recording goes on there`,
    };
  };

  const leases: ClusterLeases = {
    acquire: (cluster, owner, nowMs, ttlMs) => current.leases.acquire(cluster, owner, nowMs, ttlMs),
    release: (cluster, owner) => current.leases.release(cluster, owner),
  };

  return {
    path,
    leases,
    writePoll: (record: PollRecord): bigint => current.writer.writePoll(record),
    storePoll: (record: PollRecord): StoredPoll => current.writer.storePoll(record),
    checkFile(): FileCheck {
      if (closed) throw new StoreLostError(`the database file ${path} was lost while recording`);
      const now = identityOf(path);
      const was = current.identity;
      if (now !== undefined && was !== undefined && now.dev === was.dev && now.ino === was.ino)
        return { reopened: false };
      if (now === undefined && was === undefined) return { reopened: false };
      return reopen(now === undefined ? 'was deleted' : 'was replaced by another file');
    },
    close(): void {
      if (closed) return;
      closed = true;
      current.writer.close();
    },
  };
}
