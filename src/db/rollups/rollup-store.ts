/**
 * Storage of rollups: raw history summarised per bucket (5 minutes, 1 hour), the timeline's
 * events and the state intervals kept after raw pruning, and how far each is summarised. The
 * aggregation itself lives in src/report; this module only writes and reads rows. Counter
 * increases are decimal TEXT (exact for any uint64 sum); lags and offsets are int64 INTEGERs read
 * as bigint.
 */
import type { SqlStatement } from '../sql-session.ts';
import { HistoryQueryError } from '../errors.ts';
import { ROLLUP_TABLE_NAMES } from './rollup-tables.ts';
import type { FlightrecDb } from '../engines/open.ts';

/** The timeline events' progress is kept under this resolution. */
export const EVENTS_PROGRESS = 0;

/** One summarised bucket of one resolution. */
export interface RollupBucket {
  readonly start: bigint;
  /** successful connection polls in the bucket, and the first and last of them */
  readonly connPolls: number;
  readonly firstPoll: bigint | undefined;
  readonly lastPoll: bigint | undefined;
}

/** A connection group: the key of a connection rollup row. */
export interface RollupGroupKey {
  readonly nodeId: number;
  readonly listener: string;
  readonly principal: string;
  readonly clientId: string;
  /** `name version`, empty when unknown */
  readonly software: string;
}

/** One connection group in one bucket. */
export interface RollupConnRow extends RollupGroupKey {
  readonly start: bigint;
  readonly openMin: number;
  readonly openMax: number;
  readonly openLast: number;
  readonly openSum: number;
  readonly opened: number;
  readonly closed: number;
  readonly authFailures: number;
  readonly resets: number;
  readonly produceBytes: bigint;
  readonly produceBatches: bigint;
  readonly fetchBytes: bigint;
  readonly requests: bigint;
}

/** One shadow partition in one bucket. */
export interface RollupShadowRow {
  readonly start: bigint;
  readonly link: string;
  readonly topic: string;
  readonly partition: number;
  readonly lagMin: bigint;
  readonly lagMax: bigint;
  readonly lagLast: bigint;
  readonly shadowLast: bigint;
  readonly sourceLast: bigint;
  readonly progress: bigint;
  readonly state: string;
}

/** One Iceberg topic in one bucket. */
export interface RollupIcebergRow {
  readonly start: bigint;
  readonly topic: string;
  readonly lagMin: bigint;
  readonly lagMax: bigint;
  readonly lagLast: bigint;
  readonly partitions: number;
}

/** Everything one rollUp step writes for one resolution. */
export interface RollupBatch {
  readonly buckets: readonly RollupBucket[];
  readonly conns: readonly RollupConnRow[];
  readonly shadow: readonly RollupShadowRow[];
  readonly iceberg: readonly RollupIcebergRow[];
}

/** A kept timeline event: its key, its end, and the whole event as JSON. */
export interface StoredEvent {
  readonly kind: string;
  readonly entity: string;
  readonly start: bigint;
  readonly end: bigint | null;
  readonly body: string;
}

/** A state interval (upgrade, shadow link). */
export interface StateInterval {
  /** `upgrade` or `link/NAME` */
  readonly entity: string;
  readonly start: bigint;
  readonly end: bigint | null;
  readonly state: string;
}

/** What the rollups hold at one resolution. */
export interface RollupCoverage {
  /** bucket width in seconds */
  readonly resolution: number;
  /** the first bucket's start, undefined when none is stored */
  readonly first: bigint | undefined;
  /** the earliest connection poll summarised: raw history starting after it was pruned */
  readonly firstPoll: bigint | undefined;
  /** summarised up to (excluded) */
  readonly until: bigint;
}

/** The read side of the rollups (empty for a database written before they existed). */
export interface RollupReader {
  /** What is summarised, per resolution, finest first. */
  coverage(cluster: string | undefined): RollupCoverage[];
  /** Buckets whose start lies in [since, until). */
  buckets(cluster: string | undefined, resolution: number, since: bigint, until: bigint): RollupBucket[];
  /** Connection group rows of the buckets starting in [since, until), oldest first. */
  conns(cluster: string | undefined, resolution: number, since: bigint, until: bigint): RollupConnRow[];
  /** Shadow partition rows of the buckets starting in [since, until), oldest first. */
  shadow(cluster: string | undefined, resolution: number, since: bigint, until: bigint): RollupShadowRow[];
  /** Iceberg topic rows of the buckets starting in [since, until), oldest first. */
  iceberg(cluster: string | undefined, resolution: number, since: bigint, until: bigint): RollupIcebergRow[];
  /** Kept events overlapping [since, until], by start. */
  events(cluster: string | undefined, since: bigint, until: bigint): StoredEvent[];
  /** State intervals overlapping [since, until], by entity and start. */
  states(cluster: string | undefined, since: bigint, until: bigint): StateInterval[];
}

/** The read and write sides of the rollups (writing needs a writable database). */
export interface RollupStore extends RollupReader {
  /** How far `resolution` is summarised (undefined: not yet). */
  progress(cluster: string, resolution: number): bigint | undefined;
  /**
   * Writes the buckets of one step (replacing any with the same key) and moves the progress to `until`, in one
   * transaction.
   */
  writeBuckets(cluster: string, resolution: number, until: bigint, batch: RollupBatch): void;
  /** Writes events (replacing those with the same kind, entity and start) and moves the events' progress to `until`. */
  writeEvents(cluster: string, until: bigint, events: readonly StoredEvent[], replaced: readonly StoredEvent[]): void;
  /** Writes state intervals (replacing those with the same entity and start). */
  writeStates(cluster: string, states: readonly StateInterval[]): void;
}

const TABLES = ROLLUP_TABLE_NAMES;

type Row = Record<string, unknown>;

const big = (v: unknown): bigint => (typeof v === 'bigint' ? v : BigInt(v as number | string));
const num = (v: unknown): number => Number(v);
const optBig = (v: unknown): bigint | undefined => (v === null || v === undefined ? undefined : big(v));

/** Opens the rollup store of a database. */
export function createRollupStore(db: FlightrecDb): RollupStore {
  const sqlite = db.sqlite;
  let present: boolean | undefined;
  const exists = (): boolean => {
    present ??=
      Number(
        sqlite
          .prepare(
            `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN (${TABLES.map(() => '?').join(', ')})`,
          )
          .pluck()
          .get(...TABLES),
      ) === TABLES.length;
    return present;
  };
  const stmts = new Map<string, SqlStatement>();
  const prep = (text: string): SqlStatement => {
    let s = stmts.get(text);
    if (s === undefined) stmts.set(text, (s = sqlite.prepare(text).safeIntegers()));
    return s;
  };
  const all = (text: string, ...params: unknown[]): Row[] => prep(text).all(...params) as Row[];
  const read = <T>(fn: () => T): T => (sqlite.inTransaction ? fn() : sqlite.transaction(fn).deferred());

  const clusterId = (name: string | undefined): number | undefined => {
    if (name !== undefined) {
      const id = prep('SELECT id FROM cluster WHERE name = ?').get(name) as Row | undefined;
      return id === undefined ? undefined : num(id.id);
    }
    const ids = all('SELECT id FROM cluster');
    return ids.length === 1 ? num((ids[0] as Row).id) : undefined;
  };
  const requireCluster = (name: string): number => {
    const id = clusterId(name);
    if (id === undefined) throw new HistoryQueryError(`rollups: no cluster named ${JSON.stringify(name)} is recorded`);
    return id;
  };
  const writable = (what: string): void => {
    if (db.readonly)
      throw new HistoryQueryError(`rollups: ${what} needs the database open for writing (${db.path} is read-only)`);
    if (!exists())
      throw new HistoryQueryError(`rollups: ${db.path} has no rollup tables (open it for writing once to migrate it)`);
  };
  /** Rows of a ranged table read, empty without the tables or the cluster. */
  const ranged = <T>(cluster: string | undefined, fn: (cid: number) => T[]): T[] => {
    if (!exists()) return [];
    return read(() => {
      const cid = clusterId(cluster);
      return cid === undefined ? [] : fn(cid);
    });
  };
  const setProgress = (cid: number, resolution: number, until: bigint): void => {
    prep(
      `INSERT INTO rollup_progress (cluster_id, resolution, until) VALUES (?, ?, ?)
       ON CONFLICT (cluster_id, resolution) DO UPDATE SET until = excluded.until`,
    ).run(cid, resolution, until);
  };
  const groupIds = new Map<string, number>();
  const groupId = (cid: number, g: RollupGroupKey): number => {
    const k = JSON.stringify([cid, g.nodeId, g.listener, g.principal, g.clientId, g.software]);
    let id = groupIds.get(k);
    if (id !== undefined) return id;
    const params = [cid, g.nodeId, g.listener, g.principal, g.clientId, g.software];
    const where =
      'cluster_id = ? AND node_id = ? AND listener = ? AND principal = ? AND client_id = ? AND software = ?';
    const found = prep(`SELECT id FROM rollup_group WHERE ${where}`).get(...params) as Row | undefined;
    id =
      found !== undefined
        ? num(found.id)
        : num(
            prep(
              `INSERT INTO rollup_group (cluster_id, node_id, listener, principal, client_id, software)
                 VALUES (?, ?, ?, ?, ?, ?)`,
            ).run(...params).lastInsertRowid,
          );
    groupIds.set(k, id);
    return id;
  };

  return {
    coverage: (cluster) => {
      if (!exists()) return [];
      return read(() => {
        const cid = clusterId(cluster);
        if (cid === undefined) return [];
        return all(
          'SELECT resolution, until FROM rollup_progress WHERE cluster_id = ? AND resolution > 0 ORDER BY resolution',
          cid,
        ).map((r) => {
          const first = prep(
            'SELECT min(start) AS s, min(first_poll) AS p FROM rollup_bucket WHERE cluster_id = ? AND resolution = ?',
          ).get(cid, r.resolution) as Row;
          return {
            resolution: num(r.resolution),
            first: optBig(first.s),
            firstPoll: optBig(first.p),
            until: big(r.until),
          };
        });
      });
    },

    buckets: (cluster, resolution, since, until) =>
      ranged(cluster, (cid) =>
        all(
          `SELECT * FROM rollup_bucket
             WHERE cluster_id = ? AND resolution = ? AND start >= ? AND start < ? ORDER BY start`,
          cid,
          resolution,
          since,
          until,
        ).map((r) => ({
          start: big(r.start),
          connPolls: num(r.conn_polls),
          firstPoll: optBig(r.first_poll),
          lastPoll: optBig(r.last_poll),
        })),
      ),

    conns: (cluster, resolution, since, until) =>
      ranged(cluster, (cid) =>
        all(
          `SELECT c.*, g.node_id, g.listener, g.principal, g.client_id, g.software
           FROM rollup_conn c JOIN rollup_group g ON g.id = c.group_id
           WHERE c.cluster_id = ? AND c.resolution = ? AND c.start >= ? AND c.start < ? ORDER BY c.start, c.group_id`,
          cid,
          resolution,
          since,
          until,
        ).map((r) => ({
          start: big(r.start),
          nodeId: num(r.node_id),
          listener: String(r.listener),
          principal: String(r.principal),
          clientId: String(r.client_id),
          software: String(r.software),
          openMin: num(r.open_min),
          openMax: num(r.open_max),
          openLast: num(r.open_last),
          openSum: num(r.open_sum),
          opened: num(r.opened),
          closed: num(r.closed),
          authFailures: num(r.auth_failures),
          resets: num(r.resets),
          produceBytes: BigInt(String(r.produce_bytes)),
          produceBatches: BigInt(String(r.produce_batches)),
          fetchBytes: BigInt(String(r.fetch_bytes)),
          requests: BigInt(String(r.requests)),
        })),
      ),

    shadow: (cluster, resolution, since, until) =>
      ranged(cluster, (cid) =>
        all(
          `SELECT * FROM rollup_shadow WHERE cluster_id = ? AND resolution = ? AND start >= ? AND start < ?
             ORDER BY start, link, topic, partition`,
          cid,
          resolution,
          since,
          until,
        ).map((r) => ({
          start: big(r.start),
          link: String(r.link),
          topic: String(r.topic),
          partition: num(r.partition),
          lagMin: big(r.lag_min),
          lagMax: big(r.lag_max),
          lagLast: big(r.lag_last),
          shadowLast: big(r.shadow_last),
          sourceLast: big(r.source_last),
          progress: big(r.progress),
          state: String(r.state),
        })),
      ),

    iceberg: (cluster, resolution, since, until) =>
      ranged(cluster, (cid) =>
        all(
          `SELECT * FROM rollup_iceberg
             WHERE cluster_id = ? AND resolution = ? AND start >= ? AND start < ? ORDER BY start, topic`,
          cid,
          resolution,
          since,
          until,
        ).map((r) => ({
          start: big(r.start),
          topic: String(r.topic),
          lagMin: big(r.lag_min),
          lagMax: big(r.lag_max),
          lagLast: big(r.lag_last),
          partitions: num(r.partitions),
        })),
      ),

    events: (cluster, since, until) =>
      ranged(cluster, (cid) =>
        all(
          `SELECT * FROM rollup_event WHERE cluster_id = ? AND start <= ? AND ("end" IS NULL OR "end" >= ?)
             ORDER BY start, kind, entity`,
          cid,
          until,
          since,
        ).map((r) => ({
          kind: String(r.kind),
          entity: String(r.entity),
          start: big(r.start),
          end: optBig(r.end) ?? null,
          body: String(r.body),
        })),
      ),

    states: (cluster, since, until) =>
      ranged(cluster, (cid) =>
        all(
          `SELECT * FROM rollup_state
             WHERE cluster_id = ? AND start <= ? AND ("end" IS NULL OR "end" >= ?) ORDER BY entity, start`,
          cid,
          until,
          since,
        ).map((r) => ({
          entity: String(r.entity),
          start: big(r.start),
          end: optBig(r.end) ?? null,
          state: String(r.state),
        })),
      ),

    progress: (cluster, resolution) => {
      if (!exists()) return undefined;
      return read(() => {
        const cid = clusterId(cluster);
        if (cid === undefined) return undefined;
        const r = prep('SELECT until FROM rollup_progress WHERE cluster_id = ? AND resolution = ?').get(
          cid,
          resolution,
        ) as Row | undefined;
        return r === undefined ? undefined : big(r.until);
      });
    },

    writeBuckets: (cluster, resolution, until, batch) => {
      writable('writing rollups');
      sqlite
        .transaction(() => {
          const cid = requireCluster(cluster);
          for (const b of batch.buckets) {
            prep(
              `INSERT INTO rollup_bucket (cluster_id, resolution, start, conn_polls, first_poll, last_poll)
               VALUES (?, ?, ?, ?, ?, ?)
               ON CONFLICT (cluster_id, resolution, start) DO UPDATE SET conn_polls = excluded.conn_polls, first_poll = excluded.first_poll, last_poll = excluded.last_poll`,
            ).run(cid, resolution, b.start, b.connPolls, b.firstPoll ?? null, b.lastPoll ?? null);
          }
          for (const c of batch.conns) {
            prep(
              `INSERT INTO rollup_conn (cluster_id, resolution, start, group_id, open_min, open_max, open_last, open_sum, opened, closed, auth_failures, resets, produce_bytes, produce_batches, fetch_bytes, requests)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
               ON CONFLICT (cluster_id, resolution, start, group_id) DO UPDATE SET open_min = excluded.open_min, open_max = excluded.open_max, open_last = excluded.open_last, open_sum = excluded.open_sum, opened = excluded.opened, closed = excluded.closed, auth_failures = excluded.auth_failures, resets = excluded.resets, produce_bytes = excluded.produce_bytes, produce_batches = excluded.produce_batches, fetch_bytes = excluded.fetch_bytes, requests = excluded.requests`,
            ).run(
              cid,
              resolution,
              c.start,
              groupId(cid, c),
              c.openMin,
              c.openMax,
              c.openLast,
              c.openSum,
              c.opened,
              c.closed,
              c.authFailures,
              c.resets,
              String(c.produceBytes),
              String(c.produceBatches),
              String(c.fetchBytes),
              String(c.requests),
            );
          }
          for (const s of batch.shadow) {
            prep(
              `INSERT INTO rollup_shadow (cluster_id, resolution, start, link, topic, partition, lag_min, lag_max, lag_last, shadow_last, source_last, progress, state)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
               ON CONFLICT (cluster_id, resolution, start, link, topic, partition) DO UPDATE SET lag_min = excluded.lag_min, lag_max = excluded.lag_max, lag_last = excluded.lag_last, shadow_last = excluded.shadow_last, source_last = excluded.source_last, progress = excluded.progress, state = excluded.state`,
            ).run(
              cid,
              resolution,
              s.start,
              s.link,
              s.topic,
              s.partition,
              s.lagMin,
              s.lagMax,
              s.lagLast,
              s.shadowLast,
              s.sourceLast,
              s.progress,
              s.state,
            );
          }
          for (const i of batch.iceberg) {
            prep(
              `INSERT INTO rollup_iceberg (cluster_id, resolution, start, topic, lag_min, lag_max, lag_last, partitions)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?)
               ON CONFLICT (cluster_id, resolution, start, topic) DO UPDATE SET lag_min = excluded.lag_min, lag_max = excluded.lag_max, lag_last = excluded.lag_last, partitions = excluded.partitions`,
            ).run(cid, resolution, i.start, i.topic, i.lagMin, i.lagMax, i.lagLast, i.partitions);
          }
          setProgress(cid, resolution, until);
        })
        .immediate();
    },

    writeEvents: (cluster, until, events, replaced) => {
      writable('writing timeline events');
      sqlite
        .transaction(() => {
          const cid = requireCluster(cluster);
          for (const e of replaced)
            prep('DELETE FROM rollup_event WHERE cluster_id = ? AND kind = ? AND entity = ? AND start = ?').run(
              cid,
              e.kind,
              e.entity,
              e.start,
            );
          for (const e of events) {
            prep(
              `INSERT INTO rollup_event (cluster_id, kind, entity, start, "end", body)
               VALUES (?, ?, ?, ?, ?, ?)
               ON CONFLICT (cluster_id, kind, entity, start) DO UPDATE SET "end" = excluded."end", body = excluded.body`,
            ).run(cid, e.kind, e.entity, e.start, e.end, e.body);
          }
          setProgress(cid, EVENTS_PROGRESS, until);
        })
        .immediate();
    },

    writeStates: (cluster, states) => {
      writable('writing state intervals');
      sqlite
        .transaction(() => {
          const cid = requireCluster(cluster);
          for (const s of states) {
            prep(
              `INSERT INTO rollup_state (cluster_id, entity, start, "end", state)
               VALUES (?, ?, ?, ?, ?)
               ON CONFLICT (cluster_id, entity, start) DO UPDATE SET "end" = excluded."end", state = excluded.state`,
            ).run(cid, s.entity, s.start, s.end, s.state);
          }
        })
        .immediate();
    },
  };
}
