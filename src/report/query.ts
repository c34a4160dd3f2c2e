/**
 * `query RESOURCE`: the state of a resource as of an instant, or every sample in a time range,
 * filtered, ordered and limited. Pure over the history reader; returns data for the renderers
 * and the TUI.
 */
import type { OperationName } from '../api/schema/operations.ts';
import { RESOURCES, type PollRow, type ResourceName } from '../api/schema/resources.ts';
import {
  compileFilter,
  compileOrderBy,
  toSqlPrefilter,
  type CompiledFilter,
  type Dialect,
  type SqlColumnMap,
  type SqlPrefilter,
} from '../filter/index.ts';
import { freshnessOf, type Freshness } from './freshness.ts';
import { pinnedUid } from './pinned-key.ts';

/** The part of the history reader that query and diff use (the store's HistoryReader satisfies it). */
export interface ReportReader {
  /** the latest successful poll(s) at or before `at` (newest as `poll`, all oldest first as `polls`), and the rows */
  stateAt(
    resource: ResourceName,
    at: bigint,
    opts?: { cluster?: string; prefilter?: SqlPrefilter; source?: OperationName },
  ): { poll: PollRow | undefined; polls?: readonly PollRow[]; rows: object[] };
  /**
   * the samples in the range with their polls: one per entity per round where several operations
   * report the resource; with `source`, every row of that operation's successful polls
   */
  samples(
    resource: ResourceName,
    opts: { since: bigint; until: bigint; cluster?: string; prefilter?: SqlPrefilter; source?: OperationName },
  ): Iterable<{ poll: PollRow; row: object }>;
  /** recorded polls, successful or not */
  polls(opts: {
    cluster?: string;
    operation?: OperationName;
    since?: bigint;
    until?: bigint;
    limit?: number;
  }): PollRow[];
  /** the newest polls of one operation at or before `until`, newest first (the store offers it; freshness falls back to `polls`) */
  recentPolls?(opts: { cluster?: string; operation: OperationName; until: bigint; limit: number }): PollRow[];
  /** the SQL columns a pre-filter may use for this resource, when the store offers them */
  sqlColumns?(resource: ResourceName): SqlColumnMap | undefined;
  /** every sample of one entity in the range, in poll time order (the store offers it; a range query pinned to one connection reads it) */
  entityHistory?(
    resource: ResourceName,
    key: Record<string, unknown>,
    q: { since: bigint; until: bigint; cluster?: string },
  ): Iterable<{ poll: PollRow; row: object }>;
}

/** Options of runQuery: `at`, or `since` and `until` (ns since the epoch). */
export interface QueryOptions {
  readonly resource: ResourceName;
  readonly at?: bigint;
  readonly since?: bigint;
  readonly until?: bigint;
  readonly filter?: string;
  /** `extended` (default) or `server` */
  readonly dialect?: Dialect;
  readonly orderBy?: string;
  readonly limit?: number;
  readonly cluster?: string;
  /** only the raw samples of this operation (one of the resource's sources, see sourceProblem) */
  readonly source?: OperationName;
}

/** One row with the poll that observed it. */
export interface QuerySample {
  readonly poll: PollRow;
  readonly row: object;
}

/** What a query found. */
export interface QueryResult {
  readonly resource: ResourceName;
  /** `at`: one state; `range`: every sample between since and until */
  readonly mode: 'at' | 'range';
  readonly at?: bigint;
  readonly since?: bigint;
  readonly until?: bigint;
  /** the poll that answered an `at` query; undefined when nothing was observed at or before `at` */
  readonly poll?: PollRow;
  /** the normalised filter and order_by ('' when none) */
  readonly filter: string;
  readonly orderBy: string;
  /** the operation whose raw samples were read (undefined: all of the resource's, merged per round) */
  readonly source?: OperationName;
  /** the rows shown (after the limit) */
  readonly rows: object[];
  /** in range mode, the rows with their polls, parallel to `rows` */
  readonly samples?: QuerySample[];
  /** rows (or samples) that matched, before the limit */
  readonly total: number;
  /** `at` queries: polls that failed after the answering poll, up to `at` (the answer may be stale) */
  readonly failures?: number;
  readonly lastFailure?: PollRow;
  /** `at` queries of a resource: when the answer was observed and whether it is stale at `at` */
  readonly freshness?: Freshness;
}

/** Options that contradict each other (both `at` and a range, since after until, a bad limit). */
export class QueryOptionsError extends Error {
  override readonly name = 'QueryOptionsError';
}

/**
 * Why `source` cannot select the raw samples of `resource` (undefined when it can): it must be
 * one of the operations that report the resource.
 */
export function sourceProblem(resource: ResourceName, source: string): string | undefined {
  const ops: readonly string[] = RESOURCES[resource].operations;
  if (ops.includes(source)) return undefined;
  if (ops.length === 0) return `${resource} has no source operation: its rows are the polls themselves`;
  return `${resource} is reported by ${ops.join(', ')}, not ${JSON.stringify(source)}`;
}

/** Compiles the filter, and the SQL pre-filter when the reader offers columns for the resource. */
export function prepareFilter(
  reader: Pick<ReportReader, 'sqlColumns'>,
  resource: ResourceName,
  expr: string,
  dialect: Dialect,
): { filter: CompiledFilter; prefilter: SqlPrefilter | undefined } {
  const filter = compileFilter(expr, { resource, dialect });
  if (filter.ast === undefined) return { filter, prefilter: undefined };
  const columns = reader.sqlColumns?.(resource);
  if (columns === undefined) return { filter, prefilter: undefined };
  const prefilter = toSqlPrefilter(filter, columns);
  return { filter, prefilter: prefilter.where === 'TRUE' ? undefined : prefilter };
}

/** Runs a query; throws FilterError for an invalid filter or order_by, QueryOptionsError for bad options. */
export function runQuery(reader: ReportReader, opts: QueryOptions): QueryResult {
  const ranged = opts.since !== undefined || opts.until !== undefined;
  if (ranged && opts.at !== undefined) throw new QueryOptionsError('use either --at or --since/--until, not both');
  if (ranged && (opts.since === undefined || opts.until === undefined)) {
    throw new QueryOptionsError('a time range needs both since and until');
  }
  if (!ranged && opts.at === undefined)
    throw new QueryOptionsError('a query needs an instant (at) or a range (since, until)');
  if (opts.since !== undefined && opts.until !== undefined && opts.since > opts.until) {
    throw new QueryOptionsError('since is after until');
  }
  if (opts.limit !== undefined && (!Number.isInteger(opts.limit) || opts.limit < 0)) {
    throw new QueryOptionsError(`limit must be a whole number of zero or more, not ${opts.limit}`);
  }
  const dialect = opts.dialect ?? 'extended';
  const { filter, prefilter } = prepareFilter(reader, opts.resource, opts.filter ?? '', dialect);
  const order = compileOrderBy(opts.orderBy ?? '', { resource: opts.resource, dialect });
  const limit = opts.limit ?? Number.POSITIVE_INFINITY;
  const source = opts.source;
  const problem = source === undefined ? undefined : sourceProblem(opts.resource, source);
  if (problem !== undefined) throw new QueryOptionsError(problem);
  const base = {
    resource: opts.resource,
    filter: filter.normalized,
    orderBy: order.normalized,
    ...(source === undefined ? {} : { source }),
  };

  if (opts.resource === 'polls') {
    const polls = reader.polls({ cluster: opts.cluster, since: opts.since, until: opts.until ?? opts.at });
    const rows: object[] = polls.filter((p) => filter.matches(p)).sort(order.compare);
    return ranged
      ? { ...base, mode: 'range', since: opts.since, until: opts.until, rows: rows.slice(0, limit), total: rows.length }
      : { ...base, mode: 'at', at: opts.at, rows: rows.slice(0, limit), total: rows.length };
  }

  if (!ranged) {
    const at = opts.at as bigint;
    const state = reader.stateAt(opts.resource, at, { cluster: opts.cluster, prefilter, source });
    const rows = state.rows.filter((r) => filter.matches(r)).sort(order.compare);
    const since = state.polls?.[0]?.startTime ?? state.poll?.startTime;
    const failed = failuresSince(reader, opts.resource, at, opts.cluster, since);
    const freshness = freshnessOf(
      reader,
      state.polls ?? (state.poll === undefined ? [] : [state.poll]),
      at,
      opts.cluster,
    );
    return {
      ...base,
      mode: 'at',
      at,
      poll: state.poll,
      rows: rows.slice(0, limit),
      total: rows.length,
      ...failed,
      freshness,
    };
  }

  const since = opts.since as bigint;
  const until = opts.until as bigint;
  // a filter naming one connection (uid = "…") reads its history, not every sample of the range;
  // the same samples in the same order, and the whole filter still checks each
  const uid = opts.resource === 'connections' ? pinnedUid(filter.ast) : undefined;
  const read =
    uid !== undefined && source === undefined && reader.entityHistory !== undefined
      ? reader.entityHistory('connections', { uid }, { since, until, cluster: opts.cluster })
      : reader.samples(opts.resource, { since, until, cluster: opts.cluster, prefilter, source });
  const samples: QuerySample[] = [];
  for (const s of read) {
    if (filter.matches(s.row)) samples.push(s);
  }
  const byTime = (a: QuerySample, b: QuerySample): number =>
    a.poll.startTime < b.poll.startTime ? -1 : a.poll.startTime > b.poll.startTime ? 1 : 0;
  samples.sort(
    order.keys.length === 0
      ? (a, b) => byTime(a, b) || order.compare(a.row, b.row)
      : (a, b) => order.compare(a.row, b.row) || byTime(a, b),
  );
  const shown = samples.slice(0, limit);
  return { ...base, mode: 'range', since, until, rows: shown.map((s) => s.row), samples: shown, total: samples.length };
}

/**
 * Polls of a resource's operations that failed between `since` and `at` without a later
 * success of the same operation and target: while there are any, the state at `at` is unknown.
 */
export function failuresSince(
  reader: Pick<ReportReader, 'polls'>,
  resource: ResourceName,
  at: bigint,
  cluster: string | undefined,
  since: bigint | undefined,
): { failures: number; lastFailure?: PollRow } {
  const ops: readonly string[] = RESOURCES[resource].operations;
  const recent = reader
    .polls({ cluster, since, until: at })
    .filter((p) => ops.includes(p.operation) && p.startTime <= at);
  const target = (p: PollRow): string => `${p.operation}\u0000${p.target}`;
  const lastOk = new Map<string, bigint>();
  for (const p of recent) {
    const seen = lastOk.get(target(p));
    if (p.outcome === 'ok' && (seen === undefined || p.startTime > seen)) lastOk.set(target(p), p.startTime);
  }
  let failures = 0;
  let lastFailure: PollRow | undefined;
  for (const p of recent) {
    if (p.outcome === 'ok' || (lastOk.get(target(p)) ?? p.startTime) > p.startTime) continue;
    failures++;
    if (lastFailure === undefined || p.startTime > lastFailure.startTime) lastFailure = p;
  }
  return lastFailure === undefined ? { failures } : { failures, lastFailure };
}
