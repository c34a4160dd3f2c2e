/**
 * Which polls feed a resource as of T, and the resource rows each poll yields: the glue
 * between the stored answers and the flat rows of `src/api/schema/resources.ts`.
 */
import type { KafkaConnection } from '../../api/schema/connection.ts';
import type { OperationName } from '../../api/schema/operations.ts';
import { RESOURCES, type ResourceName } from '../../api/schema/resources.ts';
import type { ConnReader, Prefilter } from '../connections/reader.ts';
import { HistoryQueryError } from '../errors.ts';
import type { PollInfo, PollQueries } from './poll-rows.ts';
import { mergedPerRound, roundsOf, wins } from './sample-rounds.ts';
import {
  icebergPartitionRows,
  shadowPartitionRows,
  shadowTaskRows,
  shadowTopicRow,
  type SmallReader,
} from './small-reader.ts';

/** One row with the poll it came from. */
export interface SourcedRow {
  readonly poll: PollInfo;
  readonly row: object;
  /** identity of the row within its resource, for de-duplication across polls */
  readonly key: string;
}

/**
 * The operation a read keeps (undefined: all of the resource's); one that does not feed the
 * resource is a HistoryQueryError naming those that do.
 */
export function sourceOf(resource: ResourceName, source: OperationName | undefined): OperationName | undefined {
  if (source === undefined) return undefined;
  const ops: readonly OperationName[] = RESOURCES[resource].operations;
  if (ops.includes(source)) return source;
  const names = ops.length === 0 ? 'none: its rows are the polls themselves' : ops.join(', ');
  throw new HistoryQueryError(`${resource} is not reported by ${source}; its sources are ${names}`);
}

/** Builds resource rows from stored polls. */
export class ResourceRows {
  readonly #polls: PollQueries;
  readonly #conns: ConnReader;
  readonly #small: SmallReader;
  readonly #request: (poll: number) => Record<string, unknown>;
  readonly #requests: ((polls: readonly number[]) => ReadonlyMap<number, Record<string, unknown>>) | undefined;

  /** `requests`: the requests of many polls in one read (else `request`, one read each) */
  constructor(
    polls: PollQueries,
    conns: ConnReader,
    small: SmallReader,
    request: (poll: number) => Record<string, unknown>,
    requests?: (polls: readonly number[]) => ReadonlyMap<number, Record<string, unknown>>,
  ) {
    this.#polls = polls;
    this.#conns = conns;
    this.#small = small;
    this.#request = request;
    this.#requests = requests;
  }

  /** The rows a successful poll contributes to a resource (`reuse` keeps a batch decoded for scans). */
  rowsOf(resource: ResourceName, p: PollInfo, pre?: Prefilter, reuse = false): SourcedRow[] {
    const op = p.row.operation as OperationName;
    if (!p.ok || !(RESOURCES[resource].operations as readonly string[]).includes(op)) return [];
    if (op === 'ListKafkaConnections') {
      const f = this.#conns.frame(p.id);
      if (f === undefined) return [];
      return this.#conns.rows(f, pre, reuse).map((row: KafkaConnection) => ({ poll: p, row, key: row.uid }));
    }
    const answer = this.#small.answer(op, p.id, p.extra);
    const out = (rows: readonly object[], key: (r: Record<string, unknown>) => string): SourcedRow[] =>
      rows.map((row) => ({ poll: p, row, key: key(row as Record<string, unknown>) }));
    switch (resource) {
      case 'shadow-links': {
        const link = (answer as { shadowLink: { name: string } }).shadowLink;
        return out([link], (r) => String(r.name));
      }
      case 'shadow-tasks':
        return out(shadowTaskRows((answer as { shadowLink: Parameters<typeof shadowTaskRows>[0] }).shadowLink), (r) =>
          [r.shadowLinkName, r.name, r.brokerId, r.shard].join('\u0000'),
        );
      case 'shadow-topics':
      case 'shadow-partitions': {
        const topics = this.#small.topicsOf(p.id);
        const link = this.linkOf(p, topics[0]?.link);
        if (resource === 'shadow-topics') {
          return out(
            topics.map((t) => shadowTopicRow(link, t.topic)),
            (r) => `${String(r.shadowLinkName)}\u0000${String(r.name)}`,
          );
        }
        return out(
          topics.flatMap((t) => shadowPartitionRows(link, t.topic)),
          (r) => [r.shadowLinkName, r.topicName, r.partitionId].join('\u0000'),
        );
      }
      case 'upgrade':
        return out([answer], () => '');
      case 'upgrade-members':
        return out((answer as { members: object[] }).members, (r) => String(r.nodeId));
      case 'iceberg-topics':
        return out((answer as { topics: object[] }).topics, (r) => String(r.topic));
      case 'iceberg-partitions':
        return out(
          icebergPartitionRows(answer as Parameters<typeof icebergPartitionRows>[0]),
          (r) => `${String(r.topic)}\u0000${String(r.partition)}`,
        );
      default:
        return [];
    }
  }

  /** The link a shadow-topic-carrying poll is about. */
  linkOf(p: PollInfo, fromRows?: string, request?: Record<string, unknown>): string {
    if (fromRows !== undefined) return fromRows;
    const req = request ?? this.#request(p.id);
    return String(req.shadowLinkName ?? req.name ?? p.row.target.split('/')[0] ?? '');
  }

  /** The latest successful polls feeding a resource as of `at` on a cluster (of `source` only, when given). */
  feeding(resource: ResourceName, clusterId: number, at: bigint, source?: OperationName): PollInfo[] {
    const ops = source === undefined ? RESOURCES[resource].operations : [source];
    const out: PollInfo[] = [];
    for (const op of ops) {
      for (const last of this.#polls.latestOkByTarget(clusterId, op, at)) {
        if (op === 'ListKafkaConnections') out.push(...this.#polls.roundOf(last, at));
        else out.push(last);
      }
    }
    return out.sort((a, b) =>
      a.row.startTime < b.row.startTime ? -1 : a.row.startTime > b.row.startTime ? 1 : a.id - b.id,
    );
  }

  /**
   * The state of a resource as of `at`: rows of the feeding polls, one per key. Where several
   * operations report the resource, the row of the newest round wins, and within a round the
   * most detailed answer (sample-rounds.ts); a row older than the newest round that listed its
   * whole link (GetShadowLink, ListShadowTopics) is dropped: the link may no longer have the topic.
   */
  stateAt(
    resource: ResourceName,
    clusterId: number,
    at: bigint,
    pre?: Prefilter,
    source?: OperationName,
  ): { polls: PollInfo[]; rows: object[] } {
    const polls = this.feeding(resource, clusterId, at, source);
    // the small answers' rows of every feeding poll in one statement per table, not one per table and poll
    this.#small.ahead.expect(polls.map((p) => ({ id: p.id, operation: p.row.operation })));
    if (resource === 'connections' && polls.length === 1) {
      // one call (no fan-out): its rows, unless a uid repeats (then the general path dedupes)
      const f = this.#conns.frame(polls[0]!.id);
      if (f === undefined) return { polls, rows: [] };
      if (!f.dupUids) return { polls, rows: this.#conns.rows(f, pre) };
    }
    if (source !== undefined || !mergedPerRound(resource)) {
      const byKey = new Map<string, object>();
      for (const p of polls) for (const r of this.rowsOf(resource, p, pre)) byKey.set(r.key, r.row);
      return { polls, rows: [...byKey.values()] };
    }
    const rounds = new Map(roundsOf(polls.map((p) => p.row)).map((r, i) => [polls[i] as PollInfo, r]));
    const round = (p: PollInfo): number => rounds.get(p) as number;
    const linkWide = new Map<string, number>();
    const linkPolls = polls.filter((p) => p.row.operation !== 'GetShadowTopic');
    // their requests name the links: one read for all of them
    const requests =
      linkPolls.length > 1 && this.#requests !== undefined ? this.#requests(linkPolls.map((p) => p.id)) : undefined;
    for (const p of linkPolls) {
      const link = this.linkOf(p, undefined, requests?.get(p.id));
      linkWide.set(link, Math.max(linkWide.get(link) ?? -1, round(p)));
    }
    const byKey = new Map<string, SourcedRow>();
    for (const p of polls) {
      for (const r of this.rowsOf(resource, p, pre)) {
        const link = String((r.row as { shadowLinkName: string }).shadowLinkName);
        if ((linkWide.get(link) ?? -1) > round(p)) continue;
        const cur = byKey.get(r.key);
        const newer = cur === undefined || round(p) > round(cur.poll);
        if (newer || (round(p) === round(cur.poll) && wins(p.row, cur.poll.row))) byKey.set(r.key, r);
      }
    }
    return { polls, rows: [...byKey.values()].map((r) => r.row) };
  }
}
