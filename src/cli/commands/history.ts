/**
 * Opening the history for a report command: read-only, the file checked first (a missing file
 * is named with what was typed), the cluster resolved (the only one, or `--cluster`).
 */
import {
  createHistoryReader,
  DatabaseOpenError,
  DatabaseVersionError,
  openDatabase,
  type FlightrecDb,
  type HistoryReader,
} from '../../db/index.ts';
import { DbTargetError } from '../../db/errors.ts';
import { sanitizeForTerminal } from '../../api/safe-text.ts';
import { ClusterPatternError, matchClusters } from '../../report/cluster-match.ts';
import type { CliIo } from '../context.ts';
import { dbOpenTarget, dbShown, openOptionsOf, typedDb, type TypedDb } from '../db-target.ts';
import { RuntimeError, UsageError } from '../errors.ts';
import { requireDatabase } from './missing-db.ts';

/** The global options a report command reads. */
export interface HistoryGlobals {
  db: string;
  dbPasswordFile?: string;
  cluster?: string;
  output?: string;
  color?: boolean;
}

/**
 * The page cache of a report command's connection, KiB. A report reads each page of what it asks
 * about about once (frames, sealed batches' chunks in order, version records by id), so 2 MiB
 * serves it as well as the store's default 64 MiB, and SQLite recycles its pages instead of
 * allocating a fresh one per page read: fresh memory the kernel must fault in and zero, costly on
 * a virtual machine (docs/performance.md, "What you wait for": timeline CPU -9 %, peak -28 MiB).
 */
export const REPORT_CACHE_KIB = 2048;

/**
 * Opens the history read-only, with the report commands' page cache (the store's own errors name
 * the file and the cause: exit 1).
 */
export function openHistoryReadOnly(path: string, typed?: TypedDb): FlightrecDb {
  if (typed !== undefined) requireDatabase(path, typed.given, typed.cwd);
  try {
    const db = openDatabase(path, { readonly: true, ...openOptionsOf(typed) });
    db.engine.cacheKiB(REPORT_CACHE_KIB);
    return db;
  } catch (err) {
    // a bad --db URL or password file is a usage error (exit 2), said as it is
    if (err instanceof DatabaseOpenError || err instanceof DatabaseVersionError || err instanceof DbTargetError)
      throw err;
    throw new RuntimeError(`cannot open the history database: ${err instanceof Error ? err.message : String(err)}`, {
      cause: err,
    });
  }
}

/** Opens the history read-only, resolves the cluster, runs `fn` and closes the database. */
export function withHistory<T>(
  g: HistoryGlobals,
  io: CliIo,
  fn: (reader: HistoryReader, cluster: string | undefined) => T,
): T {
  const path = dbOpenTarget(g.db, io.cwd);
  const shown = dbShown(g.db, io.cwd);
  const db = openHistoryReadOnly(path, typedDb(g, io.cwd));
  try {
    const reader = createHistoryReader(db);
    const clusters = reader.clusters();
    let cluster = g.cluster;
    if (cluster !== undefined && clusters.length > 0 && !clusters.includes(cluster)) {
      throw new UsageError(`no cluster ${JSON.stringify(cluster)} in ${shown}; recorded: ${clusters.join(', ')}`);
    }
    if (cluster === undefined && clusters.length > 1) {
      throw new UsageError(`${shown} holds several clusters (${clusters.join(', ')}): choose one with --cluster`);
    }
    cluster ??= clusters[0];
    return fn(reader, cluster);
  } finally {
    db.close();
  }
}

/**
 * Opens the history read-only and runs `fn` over the clusters a `--cluster` glob names (`*`,
 * `prod-*`): every recorded cluster matching, in name order. A glob matching none is a usage
 * error listing the recorded clusters. Only call it when `isClusterGlob(g.cluster)`.
 */
export function withClusterSet<T>(
  g: HistoryGlobals & { cluster: string },
  io: CliIo,
  fn: (reader: HistoryReader, clusters: readonly string[]) => T,
): T {
  const path = dbOpenTarget(g.db, io.cwd);
  const shown = dbShown(g.db, io.cwd);
  const db = openHistoryReadOnly(path, typedDb(g, io.cwd));
  try {
    const reader = createHistoryReader(db);
    const recorded = reader.clusters();
    let clusters: string[];
    try {
      clusters = matchClusters(g.cluster, recorded);
    } catch (err) {
      if (err instanceof ClusterPatternError) throw new UsageError(`--cluster: ${err.message}`, { cause: err });
      throw err;
    }
    if (clusters.length === 0) {
      const names = recorded.length === 0 ? 'none' : recorded.map((c) => JSON.stringify(c)).join(', ');
      throw new UsageError(
        sanitizeForTerminal(
          `no recorded cluster matches --cluster ${JSON.stringify(g.cluster)} in ${shown}; recorded: ${names}`,
        ),
      );
    }
    return fn(reader, clusters);
  } finally {
    db.close();
  }
}
