/**
 * ListKafkaConnections as the server does it: the server filter dialect, order_by, pageSize
 * (0 means 1000, negative is an error), a memory budget of about 3 KiB per returned connection,
 * totalSize counting every match, first page only.
 */
import type {
  KafkaConnection,
  ListKafkaConnectionsRequest,
  ListKafkaConnectionsResponse,
} from '../api/schema/connection.ts';
import { compileFilter, compileOrderBy, FilterError, type CheckedNode } from '../filter/index.ts';
import { SimError } from './errors.ts';

/** pageSize 0 means this many. */
export const DEFAULT_PAGE_SIZE = 1000;
/** The server's memory estimate per returned connection. */
export const BYTES_PER_CONNECTION = 3 * 1024;
/** The default memory budget of one answer (about 21,800 connections). */
export const DEFAULT_MEMORY_BUDGET = 64 * 1024 * 1024;

/** The listed connections, materialized lazily: rows on demand, or only a count. */
export interface ConnectionSource {
  /** every listed connection at the current time */
  rows(): KafkaConnection[];
  /** the first n rows in the unspecified (stable) order, without building the rest */
  first(n: number): KafkaConnection[];
  /** how many there are */
  count(): number;
}

/** Answers one ListKafkaConnections request. */
export function listConnections(
  source: ConnectionSource,
  req: ListKafkaConnectionsRequest,
  memoryBudget = DEFAULT_MEMORY_BUDGET,
): ListKafkaConnectionsResponse | SimError {
  if (req.pageSize < 0) return new SimError('invalid_argument', `page_size must not be negative: ${req.pageSize}`);
  let matches: ((row: KafkaConnection) => boolean) | undefined;
  let compare: ((a: KafkaConnection, b: KafkaConnection) => number) | undefined;
  try {
    if (req.filter !== '')
      matches = compileFilter(req.filter, { resource: 'connections', dialect: 'server' }).matches as (
        row: KafkaConnection,
      ) => boolean;
    if (req.orderBy.trim() !== '')
      compare = compileOrderBy(req.orderBy, { resource: 'connections', dialect: 'server', tieBreak: false })
        .compare as (a: KafkaConnection, b: KafkaConnection) => number;
  } catch (err) {
    if (err instanceof FilterError) return new SimError('invalid_argument', err.message);
    throw err;
  }
  const limit = Math.min(
    req.pageSize === 0 ? DEFAULT_PAGE_SIZE : req.pageSize,
    Math.max(1, Math.floor(memoryBudget / BYTES_PER_CONNECTION)),
  );
  if (matches === undefined && compare === undefined) {
    const total = source.count();
    return { connections: source.first(Math.min(limit, total)), totalSize: BigInt(total) };
  }
  let rows = source.rows();
  if (matches !== undefined) rows = rows.filter(matches);
  if (compare !== undefined) rows.sort(compare);
  return { connections: rows.length > limit ? rows.slice(0, limit) : rows, totalSize: BigInt(rows.length) };
}

/**
 * The brokers a ListKafkaConnections call reaches: those a top-level `node_id = N` narrows it to,
 * else all of them; undefined for an invalid filter (rejected before any broker is asked).
 */
export function brokersReached(filter: string, brokers: readonly number[]): number[] | undefined {
  let ast: CheckedNode | undefined;
  try {
    ast = compileFilter(filter, { resource: 'connections', dialect: 'server' }).ast;
  } catch (err) {
    if (err instanceof FilterError) return undefined;
    throw err;
  }
  let reached = [...brokers];
  const terms = ast === undefined ? [] : ast.kind === 'and' ? ast.children : [ast];
  for (const term of terms) {
    if (term.kind !== 'restriction' || term.path.text !== 'node_id') continue;
    const test = term.test;
    if (test.kind === 'compare' && test.op === '=' && test.value.kind === 'int') {
      const node = Number(test.value.value);
      reached = reached.filter((b) => b === node);
    }
  }
  return reached;
}
