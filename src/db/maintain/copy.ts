/**
 * Copying a recording from one store to another (SQLite or PostgreSQL, either way) by recording
 * it again: every poll is read back as the record it was written from and written through the
 * target's HistoryWriter, in id order, a batch of polls per write transaction; then the rollups
 * and the maintenance log. Resumable: a copy stopped at any point (a signal, SIGKILL) and run
 * again skips, per cluster, the polls the target already holds, after checking that they are the
 * beginning of the source's; a target holding another recording of a cluster is refused.
 */
import { PollWriteError } from '../errors.ts';
import { readMaintenanceLog, recordMaintenance, type MaintenanceEntry } from './maintenance-log.ts';
import type { FlightrecDb } from '../engines/open.ts';
import { recordedPolls, type RecordedPoll, type RecordedPolls } from '../read/recorded-polls.ts';
import { createRollupStore, EVENTS_PROGRESS, type RollupStore } from '../rollups/rollup-store.ts';
import { createHistoryWriter, type FlightrecWriter } from '../write/writer.ts';

/** Options of startHistoryCopy. */
export interface CopyOptions {
  /** polls per write transaction (default 64) */
  readonly batchPolls?: number;
  /** fewer polls in a transaction when their answers add up to this many bytes (default 16 MiB): bounded memory */
  readonly batchBytes?: number;
}

/** A copy that refuses to go on (the target holds another recording): nothing was written. */
export class CopyConflictError extends Error {
  override readonly name = 'CopyConflictError';
}

/** What finish() copied besides the polls. */
export interface CopyExtras {
  /** rollup rows written (buckets, groups' rows, shadow and Iceberg rows, events, state intervals) */
  readonly rollupRows: number;
  /** maintenance log entries added */
  readonly logEntries: number;
}

/** A copy in progress: `step()` until it returns 0, then `finish()`, then `close()`. */
export interface HistoryCopy {
  /** the source's clusters, by name */
  readonly clusters: readonly string[];
  /** polls this run copies (the source's, up to its newest poll when the copy started, less those already there) */
  readonly total: number;
  /** polls the target already held from an earlier run */
  readonly skipped: number;
  /** polls copied so far by this run */
  readonly copied: number;
  /** polls that kept their source id (all of them when the target was empty) */
  readonly idsKept: number;
  /** Copies the next batch of polls in one write transaction; returns how many (0: all are copied). */
  step(): number;
  /** Copies the rollups and the maintenance log (each write idempotent: a rerun writes the same rows). */
  finish(): CopyExtras;
  /** Closes the target (sealing open connection batches when the copy did not fail). The source is the caller's. */
  close(): void;
}

/** A poll's identity across stores (ids differ between stores; these never do). */
type PollKey = [operation: string, target: string, round: string, attempt: bigint, startedAt: bigint, slice: string];

const KEY_COLUMNS = "operation, target, round, attempt, started_at, coalesce(slice, '')";
const DAY_NS = 86_400_000_000_000n;
const MAX_TIME = 2n ** 63n - 1n;

const sameKey = (a: PollKey | undefined, b: PollKey | undefined): boolean =>
  a !== undefined && b !== undefined && a.every((v, i) => v === b[i]);

/** The id of a cluster in a store, or undefined. */
function clusterIdOf(db: FlightrecDb, name: string): bigint | undefined {
  return db.sqlite.prepare('SELECT id FROM cluster WHERE name = ?').pluck().safeIntegers().get(name) as
    bigint | undefined;
}

/** The key of a poll by id. */
function keyOf(db: FlightrecDb, id: bigint): PollKey | undefined {
  return db.sqlite.prepare(`SELECT ${KEY_COLUMNS} FROM poll WHERE id = ?`).raw().safeIntegers().get(id) as
    PollKey | undefined;
}

/** The id and key of a cluster's `offset`-th poll (0: the oldest) with id <= upTo. */
function nthPoll(
  db: FlightrecDb,
  clusterId: bigint,
  upTo: bigint,
  offset: bigint,
): { id: bigint; key: PollKey } | undefined {
  const row = db.sqlite
    .prepare(`SELECT id, ${KEY_COLUMNS} FROM poll WHERE cluster_id = ? AND id <= ? ORDER BY id LIMIT 1 OFFSET ?`)
    .raw()
    .safeIntegers()
    .get(clusterId, upTo, offset) as [bigint, ...PollKey] | undefined;
  return row === undefined ? undefined : { id: row[0], key: row.slice(1) as PollKey };
}

/** How far the target holds a source cluster: the source id up to which its polls are there. */
interface Resume {
  readonly held: bigint;
  readonly upTo: bigint;
}

/**
 * Checks that the target's polls of `cluster` are the source's first ones and returns how far
 * they reach; throws CopyConflictError when they are not.
 */
function resumeOf(from: FlightrecDb, to: FlightrecDb, cluster: string, upTo: bigint): Resume {
  const tid = clusterIdOf(to, cluster);
  if (tid === undefined) return { held: 0n, upTo: 0n };
  const [n, oldest, newest] = to.sqlite
    .prepare('SELECT count(*), min(id), max(id) FROM poll WHERE cluster_id = ?')
    .raw()
    .safeIntegers()
    .get(tid) as [bigint, bigint | null, bigint | null];
  if (n === 0n || oldest === null || newest === null) return { held: 0n, upTo: 0n };
  const sid = clusterIdOf(from, cluster);
  const first = sid === undefined ? undefined : nthPoll(from, sid, upTo, 0n);
  const last = sid === undefined ? undefined : nthPoll(from, sid, upTo, n - 1n);
  if (
    first === undefined ||
    last === undefined ||
    !sameKey(first.key, keyOf(to, oldest)) ||
    !sameKey(last.key, keyOf(to, newest))
  ) {
    throw new CopyConflictError(
      `the target already holds ${n} polls of cluster ${JSON.stringify(cluster)} that are not the beginning of the source's ` +
        '(another recording of that cluster, polls recorded into the target since, or a source pruned since the copy began); ' +
        'nothing was copied: copy into a new database, or into one without that cluster',
    );
  }
  return { held: n, upTo: last.id };
}

/**
 * Starts a copy from `from` (open, read-only is enough) into `to` (open for writing, with keepRawAnswers).
 * Throws CopyConflictError before writing anything when the target holds another recording; the caller closes both then.
 */
export function startHistoryCopy(from: FlightrecDb, to: FlightrecDb, opts: CopyOptions = {}): HistoryCopy {
  if (to.readonly) throw new PollWriteError('-', '-', `database ${to.path} is open read-only`);
  // the writer stores a successful answer's raw body only when keeping them; the copy passes one exactly when the source kept it
  if (!to.keepRawAnswers) throw new Error('startHistoryCopy: open the target with keepRawAnswers');
  const batchPolls = Math.max(1, Math.floor(opts.batchPolls ?? 64));
  const batchBytes = opts.batchBytes ?? 16 * 2 ** 20;
  const source: RecordedPolls = recordedPolls(from);
  const plan = from.sqlite
    .transaction(() => {
      const newest =
        (from.sqlite.prepare('SELECT max(id) FROM poll').pluck().safeIntegers().get() as bigint | null) ?? 0n;
      const clusters = from.sqlite.prepare('SELECT name FROM cluster ORDER BY name').pluck().all() as string[];
      const counts = new Map(
        (
          from.sqlite
            .prepare(
              'SELECT c.name, count(*) FROM poll p JOIN cluster c ON c.id = p.cluster_id WHERE p.id <= ? GROUP BY c.name',
            )
            .raw()
            .safeIntegers()
            .all(newest) as [string, bigint][]
        ).map(([name, n]) => [name, n]),
      );
      const resume = new Map(clusters.map((c) => [c, resumeOf(from, to, c, newest)]));
      return { newest, clusters, counts, resume };
    })
    .deferred();
  let skipped = 0n;
  let total = 0n;
  for (const c of plan.clusters) {
    const r = plan.resume.get(c)!;
    skipped += r.held;
    total += (plan.counts.get(c) ?? 0n) - r.held;
  }
  // the copy starts after the oldest point any cluster has reached
  let cursor = [...plan.resume.values()].reduce((min, r) => (r.upTo < min ? r.upTo : min), plan.newest);
  const targetMaxId = to.sqlite.prepare('SELECT max(id) FROM poll').pluck().safeIntegers();
  // an engine numbering poll ids by day (PostgreSQL) keeps no id of a later day, and moves its sequence past the kept ones
  const dayIds = to.engine.pollIds;
  const writer: FlightrecWriter = createHistoryWriter(to);
  let copied = 0;
  let idsKept = 0;
  let failed = false;

  const writeBatch = to.sqlite.transaction((polls: readonly RecordedPoll[]): void => {
    // read under the write lock: a collector recording into the target meanwhile has ids too
    let targetMax = (targetMaxId.get() as bigint | null) ?? 0n;
    // no id of a later day than the server's (a source whose clock ran ahead) is kept
    const idLimit = dayIds?.nextDayFirstId() ?? MAX_TIME;
    let kept = 0;
    for (const p of polls) {
      // a poll keeps its id unless the target already uses one as high (another recording there)
      const keep = p.id > targetMax && p.id < idLimit;
      const id = writer.writePoll(keep ? { ...p.record, id: p.id } : p.record);
      if (id === p.id && keep) kept++;
      if (id > targetMax) targetMax = id;
    }
    // the target's next poll ids (flightrec_poll_id() on PostgreSQL) go past the ids just kept
    if (kept > 0) dayIds?.advancePastKept();
    idsKept += kept;
  });
  /** Not yet in the target: past the point its cluster's polls reach there. */
  const missing = (p: RecordedPoll): boolean => p.id > (plan.resume.get(p.record.cluster)?.upTo ?? 0n);

  const step = (): number => {
    while (cursor < plan.newest) {
      const page = source.page(cursor, plan.newest, batchPolls, batchBytes);
      if (page.length === 0) break;
      const todo = page.filter(missing);
      if (todo.length > 0) {
        try {
          writeBatch.immediate(todo);
        } catch (err) {
          failed = true;
          throw err;
        }
      }
      cursor = page.at(-1)!.id;
      copied += todo.length;
      if (todo.length > 0) return todo.length;
    }
    cursor = plan.newest;
    return 0;
  };

  const finish = (): CopyExtras => {
    const src = createRollupStore(from);
    const dst = createRollupStore(to);
    let rollupRows = 0;
    for (const cluster of plan.clusters) rollupRows += copyRollups(src, dst, to, cluster);
    const logEntries = copyLog(from, to);
    // the target's planner learns the copied tables' sizes now, not at autovacuum's next visit
    if (copied > 0) to.engine.refreshStatistics();
    return { rollupRows, logEntries };
  };

  return {
    clusters: plan.clusters,
    total: Number(total),
    skipped: Number(skipped),
    get copied() {
      return copied;
    },
    get idsKept() {
      return idsKept;
    },
    step,
    finish,
    close: () => {
      if (failed) to.close();
      else writer.close();
    },
  };
}

/** Creates the cluster in the target when it has no poll there (its history all pruned, rollups left). */
function ensureCluster(to: FlightrecDb, name: string): void {
  if (clusterIdOf(to, name) !== undefined) return;
  to.sqlite.transaction(() => to.sqlite.prepare('INSERT INTO cluster (name) VALUES (?)').run(name)).immediate();
}

/** Copies one cluster's rollups (a day of buckets per transaction); returns the rows written. */
function copyRollups(src: RollupStore, dst: RollupStore, to: FlightrecDb, cluster: string): number {
  const coverage = src.coverage(cluster);
  const eventsUntil = src.progress(cluster, EVENTS_PROGRESS);
  const states = src.states(cluster, -MAX_TIME, MAX_TIME);
  if (coverage.length === 0 && eventsUntil === undefined && states.length === 0) return 0;
  ensureCluster(to, cluster);
  let rows = 0;
  for (const c of coverage) {
    const windows: [bigint, bigint][] = [];
    for (let since = c.first ?? c.until; since < c.until; since += DAY_NS)
      windows.push([since, since + DAY_NS < c.until ? since + DAY_NS : c.until]);
    windows.push([c.until, MAX_TIME]);
    for (const [since, until] of windows) {
      const batch = {
        buckets: src.buckets(cluster, c.resolution, since, until),
        conns: src.conns(cluster, c.resolution, since, until),
        shadow: src.shadow(cluster, c.resolution, since, until),
        iceberg: src.iceberg(cluster, c.resolution, since, until),
      };
      dst.writeBuckets(cluster, c.resolution, c.until, batch);
      rows += batch.buckets.length + batch.conns.length + batch.shadow.length + batch.iceberg.length;
    }
  }
  if (eventsUntil !== undefined) {
    const events = src.events(cluster, -MAX_TIME, MAX_TIME);
    dst.writeEvents(cluster, eventsUntil, events, []);
    rows += events.length;
  }
  if (states.length > 0) dst.writeStates(cluster, states);
  return rows + states.length;
}

const entryKey = (e: MaintenanceEntry): string =>
  [e.at, e.cluster ?? '', e.action, e.cutoff ?? '', e.polls, e.samples, e.bytes, e.durationMs].join('\u0000');

/** Adds the source's maintenance log entries the target lacks (one transaction); returns how many. */
function copyLog(from: FlightrecDb, to: FlightrecDb): number {
  // LIMIT -1: no limit, on both engines (a larger number overflows PostgreSQL's int4 parameter)
  const all = -1;
  const have = new Map<string, number>();
  for (const e of readMaintenanceLog(to.sqlite, all)) have.set(entryKey(e), (have.get(entryKey(e)) ?? 0) + 1);
  const missing = readMaintenanceLog(from.sqlite, all).filter((e) => {
    const k = entryKey(e);
    const n = have.get(k) ?? 0;
    if (n > 0) have.set(k, n - 1);
    return n === 0;
  });
  if (missing.length > 0)
    to.sqlite.transaction(() => missing.forEach((e) => recordMaintenance(to.sqlite, e))).immediate();
  return missing.length;
}
