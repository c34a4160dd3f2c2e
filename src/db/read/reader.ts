/**
 * The HistoryReader: the only door through which report and TUI read history. Every method
 * reads inside one read transaction, so a reader never sees a half-written poll.
 */
import { gunzipSync } from 'node:zlib';
import { parseJsonLossless } from '../../api/codec/lossless-json.ts';
import type { OperationName, RequestOf, ResponseOf } from '../../api/schema/operations.ts';
import { RESOURCES, type PollRow, type ResourceName } from '../../api/schema/resources.ts';
import { decodeRequest } from '../../api/wire/answers.ts';
import { CONNECTION_LAYOUTS } from '../connections/layouts.ts';
import { ConnPartsLoader } from '../connections/parts.ts';
import { ConnReader, type Prefilter } from '../connections/reader.ts';
import { CounterVersionLoader, type CounterVersion } from '../connections/counter-versions.ts';
import { NarrowFrameReader, type NarrowFrame } from '../connections/narrow-frames.ts';
import { ConnCounterReader, type CounterFrame, type TotalCounter } from './counter-frames.ts';
import { Resolver } from '../encoding/dictionary.ts';
import { keyedPolls } from './entity-polls.ts';
import { mergedSamples, ROUND_MARGIN_NS } from './merged-samples.ts';
import { damaged, decoding, HistoryQueryError, type DamageSite } from '../errors.ts';
import type { FlightrecDb } from '../engines/open.ts';
import type { PollFailure } from '../poll-record.ts';
import { PollQueries, type PollInfo } from './poll-rows.ts';
import { RecentPolls } from './recent-polls.ts';
import { createRollupStore, type RollupReader } from '../rollups/rollup-store.ts';
import { ResourceRows, sourceOf, type SourcedRow } from './resource-rows.ts';
import { mergedPerRound, roundsOf, roundWinners } from './sample-rounds.ts';
import { SmallReader } from './small-reader.ts';
import { PollDetailsAhead } from './poll-details-ahead.ts';
import type { ExpectedPoll } from './small-rows-ahead.ts';
import { sqlColumns } from './sql-columns.ts';
import { WindowPolls } from './window-polls.ts';
import type { SqlColumnMap } from './sql-column-types.ts';
import { bigOf, parseExtra, withExtras } from '../encoding/sql-values.ts';

/** Options of stateAt and samples. */
export interface ReadOptions {
  readonly cluster?: string;
  /** a row predicate (a compiled filter): rows are exactly its matches, checked after the SQL pre-filter */
  readonly filter?: { matches(row: object): boolean };
  /** the SQL pre-filter the caller derived (`toSqlPrefilter(filter, reader.sqlColumns(resource))`): a superset */
  readonly prefilter?: Prefilter;
  /**
   * the raw history of one of the resource's operations: its samples only, none merged with
   * another operation's (default: every operation, one sample per entity per round, see sample-rounds.ts)
   */
  readonly source?: OperationName;
}

/** The state of a resource as of T. */
export interface StateAt {
  /** the newest poll the rows come from (undefined when nothing was recorded yet) */
  readonly poll: PollRow | undefined;
  /** every poll the rows come from, oldest first */
  readonly polls: readonly PollRow[];
  readonly rows: object[];
}

/** The connections as of T, as their narrow versions (HistoryReader.connectionVersionsAt). */
export interface ConnectionVersionsAt {
  /** the newest poll they come from (undefined when no connections were recorded yet) */
  readonly poll: PollRow | undefined;
  readonly versions: readonly CounterVersion[];
}

/** One sample: a row and the poll that saw it. */
export interface Sample {
  readonly poll: PollRow;
  readonly row: object;
}

/** A poll as recorded: the request, and the answer or the failure (with the raw body when kept). */
export interface ReconstructedPoll<N extends OperationName = OperationName> {
  readonly poll: PollRow;
  readonly operation: N;
  readonly request: RequestOf<N>;
  readonly answer?: ResponseOf<N>;
  readonly failure?: PollFailure;
  readonly raw?: Uint8Array;
}

/** The read side of the history store: reads only (maintenance is `HistoryMaintenance`, writing `HistoryWriter`). */
export interface HistoryReader {
  /** Names of the recorded clusters. */
  clusters(): string[];
  /** Polls (ok or not) in a time range, oldest first. */
  polls(q: { cluster?: string; operation?: OperationName; since?: bigint; until?: bigint; limit?: number }): PollRow[];
  /** The newest polls (ok or not) of one operation at or before `until`, newest first, at most `limit` (up to 1000). */
  recentPolls(q: { cluster?: string; operation: OperationName; until: bigint; limit: number }): PollRow[];
  /** The newest poll (ok or not) of each operation at or before `until`, in the order asked (undefined where none): one read for all. */
  newestPolls(q: { cluster?: string; operations: readonly OperationName[]; until: bigint }): (PollRow | undefined)[];
  /** The rows of a resource from the latest successful poll(s) at or before `at`. */
  stateAt(resource: ResourceName, at: bigint, opts?: ReadOptions): StateAt;
  /**
   * The connections of stateAt('connections', at) as their narrow versions (the slow fields of
   * connections/counter-versions.ts only: no counters, no idle durations), one per uid as stateAt
   * keeps them; `poll` is stateAt's. For what needs no other field, such as counting the open
   * connections of many clusters.
   */
  connectionVersionsAt(at: bigint, opts?: { cluster?: string }): ConnectionVersionsAt;
  /**
   * Every sample of a resource in a time range, in poll time order: one per entity per round
   * where several operations report the resource (the most detailed answer, sample-rounds.ts).
   */
  samples(resource: ResourceName, q: ReadOptions & { since: bigint; until: bigint }): Iterable<Sample>;
  /**
   * Every successful ListKafkaConnections poll in a time range, lean, in poll time order: per row
   * its narrow version (the slow fields of connections/counter-versions.ts, one shared object per
   * version), idle duration and in-flight requests; no counters, no full rows. For scans over many
   * polls (the timeline).
   */
  connectionFrames(q: { cluster?: string; since: bigint; until: bigint }): Iterable<NarrowFrame>;
  /**
   * Every successful ListKafkaConnections poll in a time range, narrow, in poll time order: per
   * row its version (slow fields) and the cumulative totals asked for, exact; no full rows. For
   * counter trends.
   */
  connectionCounters(q: {
    cluster?: string;
    since: bigint;
    until: bigint;
    counters: readonly TotalCounter[];
  }): Iterable<CounterFrame>;
  /** Every sample of one entity (key fields by wire name, e.g. `{ uid }`), in poll time order, one per round. */
  entityHistory(
    resource: ResourceName,
    key: Record<string, unknown>,
    q?: { since?: bigint; until?: bigint; cluster?: string; source?: OperationName },
  ): Sample[];
  /** A poll's complete answer (or failure) exactly as decoded at write time. */
  reconstructAnswer(pollId: bigint): ReconstructedPoll;
  /** SQL column map for the filter engine's pre-filter translator. */
  sqlColumns(resource: ResourceName): SqlColumnMap;
  /** The rollups: history summarised before raw pruning, and the timeline events kept with them. */
  rollups(): RollupReader;
  /**
   * Runs `fn` with every read it makes in one read transaction: one snapshot of the store for all
   * of them (a collector writing meanwhile is not half seen), and on PostgreSQL one BEGIN and
   * COMMIT for all instead of one each. For a command's many reads (the timeline); what `fn`
   * throws is passed on as it is.
   */
  consistent<T>(fn: () => T): T;
  /**
   * Announces the polls whose answers are read next, in order (reconstructAnswer), inside the read
   * transaction (consistent) that reads them: their stored rows and details are then read for many
   * polls per statement (small-rows-ahead.ts, poll-details-ahead.ts); the answers are the same.
   */
  readAhead(polls: readonly ExpectedPoll[]): void;
  /**
   * Reads ahead, for the rest of the read transaction (consistent) it is called in, the stored
   * rows of every successful poll of the small operations (all but ListKafkaConnections) in each
   * cluster's time range: one statement per table for all of them, where reading each cluster's
   * windows made some per cluster, resource and batch (on PostgreSQL each a round trip). For a
   * reader of many clusters (fleet); outside a read transaction, and on SQLite (no round trips
   * to save), it does nothing. The answers are the same.
   */
  readAheadWindows(
    ranges: readonly { readonly cluster: string; readonly since: bigint; readonly until: bigint }[],
  ): void;
}

/** The polls of a scan as the read-ahead of their rows takes them. */
function expected(polls: readonly PollInfo[]): ExpectedPoll[] {
  return polls.map((p) => ({ id: p.id, operation: p.row.operation }));
}

/** The SQL pre-filter of a read (none when it keeps every row). */
function prefilterOf(o: ReadOptions): Prefilter | undefined {
  return o.prefilter === undefined || o.prefilter.where === 'TRUE' ? undefined : o.prefilter;
}

const MAX_TIME = 2n ** 63n - 1n;
/** Largest raw body a poll_raw row may inflate to (a larger one is damage, not an answer). */
const MAX_RAW_BYTES = 2 ** 30;
/** Lean connection frames read per read transaction. */
const FRAMES_PER_READ = 32;
const MIN_TIME = -(2n ** 63n);

/** Creates the reader of an open database (read-only or not). */
export function createHistoryReader(db: FlightrecDb): HistoryReader {
  const sqlite = db.sqlite;
  const typed = CONNECTION_LAYOUTS[db.engine.connectionLayout].typedColumns;
  const resolver = new Resolver(sqlite);
  const parts = new ConnPartsLoader(db, resolver);
  const conns = new ConnReader(db, parts);
  // the narrow versions, one cache for the lean frames, fleet's open connections and counter trends
  const narrowVersions = new CounterVersionLoader(db, resolver);
  const lean = new NarrowFrameReader(sqlite, narrowVersions, (stmt, ...args) => db.engine.prefetch(stmt, ...args));
  const counters = new ConnCounterReader(sqlite, conns, narrowVersions);
  const small = new SmallReader(sqlite, resolver);
  const pq = new PollQueries(sqlite);
  const recent = new RecentPolls(sqlite);
  const details = new PollDetailsAhead(sqlite, pq);
  const windows = new WindowPolls(sqlite);
  const clusterIds = new Map<string, number>();
  const q = {
    generation: sqlite.prepare(`SELECT value FROM meta WHERE key = 'prune_generation'`).pluck(),
    clusters: sqlite.prepare('SELECT name FROM cluster ORDER BY name').pluck(),
    clusterId: sqlite.prepare('SELECT id FROM cluster WHERE name = ?').pluck(),
    request: sqlite.prepare('SELECT request FROM poll WHERE id = ?').pluck(),
    requests: sqlite.prepare<[string], { id: number; request: string }>(
      'SELECT id, request FROM poll WHERE id IN (SELECT value FROM json_each(?))',
    ),
    pollDetail: sqlite.prepare('SELECT details, path, request FROM poll WHERE id = ?'),
    raw: sqlite.prepare('SELECT body FROM poll_raw WHERE poll_id = ?').pluck(),
  };
  const requestOf = (poll: number): Record<string, unknown> => {
    const text = q.request.get(poll) as string | undefined;
    return text === undefined ? {} : (parseJsonLossless(text) as Record<string, unknown>);
  };
  const requestsOf = (polls: readonly number[]): Map<number, Record<string, unknown>> =>
    new Map(
      q.requests
        .all(JSON.stringify(polls))
        .map((r) => [Number(r.id), parseJsonLossless(r.request) as Record<string, unknown>]),
    );
  const rows = new ResourceRows(pq, conns, small, requestOf, requestsOf);
  let generation: number | undefined;
  /** Drops the caches when a prune (by this process or another) removed rows they may name. */
  const fresh = (): void => {
    const gen = (q.generation.get() as number | undefined) ?? 0;
    if (generation !== undefined && gen !== generation) {
      resolver.reset();
      small.ahead.forget();
      details.forget();
      clusterIds.clear();
      parts.reset();
      lean.reset();
      counters.reset();
    }
    generation = gen;
  };
  let rollupStore: RollupReader | undefined;
  /**
   * Runs `fn` in a read transaction (the running one, if any), after the prune check. The poll
   * ranges it reads are remembered until it ends: one snapshot, the same polls (a timeline's
   * reads of each resource filter the window's polls read first instead of reading them again).
   */
  const consistent = <T>(fn: () => T): T =>
    sqlite.inTransaction
      ? fn()
      : sqlite
          .transaction(() => {
            fresh();
            pq.rememberRanges(true);
            try {
              return fn();
            } finally {
              pq.rememberRanges(false);
              // rows read ahead for this transaction's snapshot only
              small.ahead.unpin();
              details.unpin();
              lean.unpin();
            }
          })
          .deferred();
  /** consistent, and damaged stored data becomes a CorruptDataError naming `site` (see errors.ts). */
  const read = <T>(fn: () => T, site: DamageSite = {}): T => {
    try {
      return consistent(fn);
    } catch (err) {
      throw damaged(err, site);
    }
  };

  const clusterId = (name: string | undefined): number | undefined => {
    if (name !== undefined) {
      // a recorded cluster keeps its id (the cache goes with a prune, see fresh): one read per name, not per read
      const id = clusterIds.get(name) ?? (q.clusterId.get(name) as number | undefined);
      if (id === undefined) throw new HistoryQueryError(`no cluster named ${JSON.stringify(name)} is recorded`);
      clusterIds.set(name, id);
      return id;
    }
    const all = q.clusters.all() as string[];
    if (all.length === 0) return undefined;
    if (all.length > 1) throw new HistoryQueryError(`several clusters are recorded (${all.join(', ')}): name one`);
    return q.clusterId.get(all[0]) as number;
  };

  const reconstruct = (id: number): ReconstructedPoll => {
    const info = details.info(id) ?? pq.byId(id);
    if (info === undefined) throw new HistoryQueryError(`no poll with id ${id}`);
    const op = info.row.operation as OperationName;
    const detail =
      details.detail(id) ?? (q.pollDetail.get(id) as { details: string | null; path: string | null; request: string });
    const request = decodeRequest(op, parseJsonLossless(detail.request));
    const gz = details.knownWithoutRaw(id) ? undefined : (q.raw.get(id) as Buffer | undefined);
    const raw =
      gz === undefined
        ? undefined
        : decoding(
            { table: 'poll_raw', poll: id },
            () => new Uint8Array(gunzipSync(gz, { maxOutputLength: MAX_RAW_BYTES })),
          );
    const base = { poll: info.row, operation: op, request, ...(raw === undefined ? {} : { raw }) };
    if (!info.ok) {
      const failure: PollFailure = {
        ok: false,
        code: info.row.outcome,
        kind: info.kind,
        ...(info.row.httpStatus !== 0 ? { httpStatus: info.row.httpStatus } : {}),
        message: info.row.message,
        ...(detail.details === null ? {} : { details: parseJsonLossless(detail.details) as unknown[] }),
        ...(detail.path === null ? {} : { path: detail.path }),
        ...(raw === undefined ? {} : { raw }),
        bytes: Number(info.row.bytes),
      };
      return { ...base, failure };
    }
    if (op === 'ListKafkaConnections') {
      const f = conns.frame(id);
      if (f === undefined) throw new HistoryQueryError(`poll ${id} has no stored connections`);
      const extra = parseExtra(info.extra);
      const answer: ResponseOf<'ListKafkaConnections'> = {
        connections: conns.rows(f),
        totalSize: bigOf(extra, 'conn_frame.total_size') ?? f.totalSize,
      };
      return { ...base, answer: withExtras(answer, extra, '') };
    }
    return { ...base, answer: small.answer(op, id, info.extra) };
  };

  return {
    consistent,

    clusters: () => read(() => q.clusters.all() as string[]),

    polls: (o) =>
      read(() => {
        const cid = o.cluster === undefined ? undefined : clusterId(o.cluster);
        return pq
          .range({
            clusterId: cid,
            operation: o.operation,
            since: o.since ?? MIN_TIME,
            until: o.until ?? MAX_TIME,
            limit: o.limit ?? -1,
          })
          .map((p) => p.row);
      }),

    recentPolls: (o) =>
      read(() => {
        const cid = clusterId(o.cluster);
        return cid === undefined ? [] : recent.newest(cid, o.operation, o.until, o.limit);
      }),

    newestPolls: (o) =>
      read(() => {
        const cid = clusterId(o.cluster);
        return cid === undefined ? o.operations.map(() => undefined) : recent.newestOfEach(cid, o.operations, o.until);
      }),

    stateAt: (resource, at, opts = {}) =>
      read(() => {
        const cid = clusterId(opts.cluster);
        if (cid === undefined) return { poll: undefined, polls: [], rows: [] };
        if (resource === 'polls') {
          const latest: PollInfo[] = [];
          for (const p of pq.range({ clusterId: cid, since: MIN_TIME, until: at, limit: -1 })) latest.push(p);
          const byTarget = new Map<string, PollInfo>();
          for (const p of latest) byTarget.set(`${p.row.operation}\u0000${p.row.target}`, p);
          const polls = [...byTarget.values()].map((p) => p.row);
          return { poll: polls.at(-1), polls, rows: polls };
        }
        const s = rows.stateAt(resource, cid, at, prefilterOf(opts), sourceOf(resource, opts.source));
        const polls = s.polls.map((p) => p.row);
        return {
          poll: polls.at(-1),
          polls,
          rows: opts.filter === undefined ? s.rows : s.rows.filter((r) => opts.filter!.matches(r)),
        };
      }),

    connectionVersionsAt: (at, opts = {}) =>
      read(() => {
        const cid = clusterId(opts.cluster);
        if (cid === undefined) return { poll: undefined, versions: [] };
        const polls = rows.feeding('connections', cid, at);
        // a fan-out round's frames in one statement, and their versions in one more
        const ofPolls = lean.versionsOf(polls.map((p) => p.id));
        // one per uid, the last listed winning, in the order of first listing (stateAt's rule)
        const byUid = new Map<string, CounterVersion>();
        for (const versions of ofPolls) for (const v of versions ?? []) byUid.set(v.uid, v);
        return { poll: polls.at(-1)?.row, versions: [...byUid.values()] };
      }),

    *samples(resource, o) {
      const cid = read(() => clusterId(o.cluster));
      const source = sourceOf(resource, o.source);
      if (cid === undefined) return;
      const pre = prefilterOf(o);
      const keep = (r: SourcedRow): boolean => o.filter === undefined || o.filter.matches(r.row);
      if (source === undefined && mergedPerRound(resource)) {
        const margin = (t: bigint, by: bigint): bigint =>
          t + by < MIN_TIME ? MIN_TIME : t + by > MAX_TIME ? MAX_TIME : t + by;
        const polls = read(() =>
          pq.range({
            clusterId: cid,
            since: margin(o.since, -ROUND_MARGIN_NS),
            until: margin(o.until, ROUND_MARGIN_NS),
            limit: -1,
          }),
        ).filter((p) => p.ok && (RESOURCES[resource].operations as readonly string[]).includes(p.row.operation));
        small.ahead.expect(expected(polls));
        const load = (own: readonly PollInfo[]): SourcedRow[][] =>
          own.map((p) => read(() => rows.rowsOf(resource, p), { poll: p.id }));
        for (const r of mergedSamples(polls, o, load)) if (keep(r)) yield { poll: r.poll.row, row: r.row };
        return;
      }
      const polls = read(() =>
        pq.range({ clusterId: cid, operation: source, since: o.since, until: o.until, limit: -1 }),
      );
      const ops: readonly string[] = RESOURCES[resource].operations;
      small.ahead.expect(expected(polls.filter((p) => p.ok && ops.includes(p.row.operation))));
      for (const p of polls) {
        if (resource === 'polls') {
          yield { poll: p.row, row: p.row };
          continue;
        }
        const got = read(() => rows.rowsOf(resource, p, pre, true), { poll: p.id });
        for (const r of got) if (keep(r)) yield { poll: p.row, row: r.row };
      }
    },

    *connectionFrames(o) {
      const cid = read(() => clusterId(o.cluster));
      if (cid === undefined) return;
      const polls = read(() =>
        pq.range({ clusterId: cid, operation: 'ListKafkaConnections', since: o.since, until: o.until, limit: -1 }),
      ).filter((p) => p.ok);
      // a few frames per read transaction (none held open across a yield): their frames in one
      // statement, the versions not loaded yet in one more
      for (let i = 0; i < polls.length; i += FRAMES_PER_READ) {
        const frames = read(() => lean.framesOf(polls.slice(i, i + FRAMES_PER_READ).map((p) => p.row)));
        yield* frames;
      }
    },

    *connectionCounters(o) {
      const cid = read(() => clusterId(o.cluster));
      if (cid === undefined) return;
      const { polls, last } = read(() => {
        const ok = pq
          .range({ clusterId: cid, operation: 'ListKafkaConnections', since: o.since, until: o.until, limit: -1 })
          .filter((p) => p.ok);
        // the last frame asked for: its sealed batch is decoded only up to it
        const end = ok.at(-1);
        return { polls: ok, last: end === undefined ? undefined : counters.placeOf(end.id) };
      });
      // a few frames per read transaction (none held open across a yield)
      for (let i = 0; i < polls.length; i += FRAMES_PER_READ) {
        const frames = read(() =>
          polls
            .slice(i, i + FRAMES_PER_READ)
            .map((p) => decoding({ poll: p.id }, () => counters.frameOf(p.row, p.id, o.counters, last))),
        );
        for (const f of frames) if (f !== undefined) yield f;
      }
    },

    entityHistory: (resource, key, o = {}) =>
      read(() => {
        const source = sourceOf(resource, o.source);
        const cid = clusterId(o.cluster);
        if (cid === undefined) return [];
        const since = o.since ?? MIN_TIME;
        const until = o.until ?? MAX_TIME;
        const inRange = (p: PollInfo | undefined): p is PollInfo =>
          p !== undefined && p.clusterId === cid && p.row.startTime >= since && p.row.startTime <= until;
        const order = (a: Sample, b: Sample): number =>
          a.poll.startTime < b.poll.startTime
            ? -1
            : a.poll.startTime > b.poll.startTime
              ? 1
              : Number(a.poll.id - b.poll.id);
        if (resource === 'connections') {
          if (typeof key.uid !== 'string') throw new HistoryQueryError('a connection is identified by { uid }');
          const got = conns.history(cid, key.uid, 0, Number.MAX_SAFE_INTEGER);
          const infos = pq.byIds([...new Set(got.map((g) => g.poll))]);
          return got
            .map((g) => ({ info: infos.get(g.poll), row: g.row }))
            .filter((g): g is { info: PollInfo; row: typeof g.row } => inRange(g.info))
            .map((g) => ({ poll: g.info.row, row: g.row as object }))
            .sort(order);
        }
        if (resource === 'polls') {
          const p = pq.byId(Number(key.id));
          return inRange(p) ? [{ poll: p.row, row: p.row }] : [];
        }
        const infos = pq.byIds(keyedPolls(sqlite, resource, key));
        const want = Object.entries(key).map(([k, v]) => [k, String(v)] as const);
        const found: SourcedRow[] = [];
        for (const info of infos.values()) {
          if (!inRange(info) || (source !== undefined && info.row.operation !== source)) continue;
          for (const r of rows.rowsOf(resource, info)) {
            const row = r.row as Record<string, unknown>;
            if (want.every(([k, v]) => String(row[k]) === v)) found.push(r);
          }
        }
        let kept = found;
        if (source === undefined && mergedPerRound(resource)) {
          // one sample per round: the rounds of the polls that saw the entity
          const polls = [...new Set(found.map((r) => r.poll))];
          const rounds = new Map(roundsOf(polls.map((p) => p.row)).map((r, i) => [polls[i] as PollInfo, r]));
          kept = roundWinners(found, (r) => ({ poll: r.poll.row, round: rounds.get(r.poll) as number }));
        }
        return kept.map((r) => ({ poll: r.poll.row, row: r.row })).sort(order);
      }),

    readAhead: (polls) => {
      small.ahead.expect(polls);
      details.read(polls.map((p) => p.id));
    },
    readAheadWindows: (ranges) => {
      // on SQLite a statement is no round trip: reading ahead saved nothing there (measured) and held the rows longer
      if (db.engine.name === 'sqlite' || !sqlite.inTransaction || ranges.length === 0) return;
      read(() => {
        const byId = ranges.map((r) => ({ clusterId: clusterId(r.cluster) as number, since: r.since, until: r.until }));
        const polls = windows.smallPolls(byId);
        small.ahead.pin(polls);
        // the timelines reconstruct the Iceberg answers (their catalog state): what that reads besides the rows
        details.pin(polls.filter((p) => p.operation === 'GetIcebergStatus').map((p) => p.id));
        // and their connection frames (the timelines' and the open connections' lean reads)
        lean.pin(windows.connectionPolls(byId));
      });
    },
    reconstructAnswer: (pollId) => read(() => reconstruct(Number(pollId)), { poll: Number(pollId) }),
    sqlColumns: (resource) => sqlColumns(resource, typed),
    rollups: () => (rollupStore ??= createRollupStore(db)),
  };
}
