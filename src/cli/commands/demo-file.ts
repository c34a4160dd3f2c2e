/**
 * The demo's database file: it may replace only an earlier demo recording (a database the demo
 * marked as its own), never a real recording or any other file, unless `--force`.
 */
import { rmSync, statSync } from 'node:fs';
import { openDatabase, readSqliteFileAsIs, type SqlSession } from '../../db/index.ts';
import { UsageError } from '../context.ts';

/** The `meta` key the demo writes into its databases. */
export const DEMO_MARK = 'demo_recording';
/** The first poll of a demo recorded before the mark existed (the simulator's default start). */
const LEGACY_DEMO_START_NS = 1_767_225_600_000_000_000n;
/** ... and its last poll, 25 minutes later. */
const LEGACY_DEMO_END_NS = LEGACY_DEMO_START_NS + 25n * 60_000_000_000n;

/** What is at the path the demo is about to record into. */
export type DemoTarget = 'absent' | 'demo' | 'other' | 'directory';

/** True when the SQLite file at `path` is a recording the demo made (marked, or an old unmarked demo). */
function isDemoRecording(path: string): boolean {
  try {
    return readSqliteFileAsIs(path, isDemoStore);
  } catch {
    return false;
  }
}

/** True when the store read is a recording the demo made (marked, or an old unmarked demo). */
function isDemoStore(sqlite: SqlSession): boolean {
  const tables = new Set(
    sqlite.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).pluck().all() as string[],
  );
  if (tables.has('meta')) {
    const mark = sqlite.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(DEMO_MARK);
    if (mark !== undefined) return true;
  }
  if (!tables.has('cluster') || !tables.has('poll')) return false;
  // demos of earlier versions: one cluster named sim, 25 minutes from the simulator's default start
  const clusters = sqlite.prepare('SELECT name FROM cluster').pluck().all() as string[];
  if (clusters.length !== 1 || clusters[0] !== 'sim') return false;
  const span = sqlite
    .prepare('SELECT min(scheduled_at) AS first, max(scheduled_at) AS last FROM poll')
    .safeIntegers(true)
    .get() as {
    first: bigint | null;
    last: bigint | null;
  };
  return span.first === LEGACY_DEMO_START_NS && span.last === LEGACY_DEMO_END_NS;
}

/** Classifies the path the demo would write. */
export function demoTarget(path: string): DemoTarget {
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    return 'absent';
  }
  if (isDir) return 'directory';
  return isDemoRecording(path) ? 'demo' : 'other';
}

/** Refuses (exit 2) to record over a directory, or over a file that is not a demo recording unless `force`. */
export function checkDemoTarget(path: string, shown: string, force: boolean): DemoTarget {
  const target = demoTarget(path);
  if (target === 'directory')
    throw new UsageError(
      `--out ${shown} is a directory: give a file name, e.g. --out ${shown.replace(/\/+$/, '')}/flightrec-demo.db`,
    );
  if (target === 'other' && !force) {
    throw new UsageError(
      `${shown} exists and is not a demo recording; the demo replaces only its own recordings.\n` +
        `Choose another --out, or add --force to replace it (its contents are lost).`,
    );
  }
  return target;
}

/** Removes a database and its WAL side files. */
export function removeDatabase(path: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${path}${suffix}`, { force: true });
}

/** Creates a fresh database at `path` and marks it as a demo recording, so the next run may replace it. */
export function createDemoDatabase(path: string): void {
  removeDatabase(path);
  const db = openDatabase(path);
  try {
    db.sqlite.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, 1)').run(DEMO_MARK);
  } finally {
    db.close();
  }
}
