/**
 * The connection stream counter trends read, one frame per successful poll (fan-out rounds
 * merged): each row's slow fields and, column by column, the cumulative totals asked for. From
 * the store's narrow read when the source has it (no full rows built), else from full rows.
 */
import type { KafkaConnection } from '../../api/schema/connection.ts';
import type { PollRow } from '../../api/schema/resources.ts';
import { framesOf, mergeRounds, padFrames, roundPicks } from '../timeline/frames.ts';
import { pollTime, type Frame } from '../timeline/types.ts';
import type { KeyFacts } from './group-keys.ts';

/** A cumulative counter of `totalRequestStatistics`. */
export type TotalCounter = 'fetchBytes' | 'produceBatchCount' | 'produceBytes' | 'requestCount';

/** The slow fields of a connection counter trends read. */
export type CounterFacts = KeyFacts & Readonly<Pick<KafkaConnection, 'openTime' | 'closeTime'>>;

/** One poll of connections as the store's narrow read yields it (HistoryReader.connectionCounters). */
export interface StoredCounterFrame {
  readonly poll: PollRow;
  readonly versions: readonly CounterFacts[];
  /** per counter asked for, each row's value, exact: a number below 2^51, else a bigint */
  readonly totals: readonly ArrayLike<number | bigint>[];
}

/** The narrow read of the store: every successful ListKafkaConnections poll of a window, with the totals asked for. */
export type CounterFramesRead = (q: {
  cluster?: string;
  since: bigint;
  until: bigint;
  counters: readonly TotalCounter[];
}) => Iterable<StoredCounterFrame>;

/** One poll of connections: `rows` the slow fields, `totals[k][i]` row i's value of the k-th counter. */
export interface CounterFrame extends Frame<CounterFacts> {
  /** exact: numbers below 2^51, bigints beyond (or bigints throughout) */
  readonly totals: readonly ArrayLike<number | bigint>[];
}

/** What the frames are read from: full samples, and the narrow read when the store has it. */
export interface CounterSource {
  samples(
    resource: 'connections',
    q: { since: bigint; until: bigint; cluster?: string },
  ): Iterable<{
    poll: PollRow;
    row: object;
  }>;
  readonly connectionCounters?: CounterFramesRead;
}

/**
 * One frame per poll of `okPolls` (the successful connection polls of the window, sorted), the
 * calls of a fan-out round merged into one (as mergeFanout does with full rows).
 */
export function counterFrames(
  source: CounterSource,
  window: { since: bigint; until: bigint; cluster?: string },
  okPolls: readonly PollRow[],
  counters: readonly TotalCounter[],
): Generator<CounterFrame> {
  const frames =
    source.connectionCounters !== undefined
      ? padFrames(
          mapFrames(source.connectionCounters({ ...window, counters }), (f) => ({
            poll: f.poll,
            time: pollTime(f.poll),
            rows: f.versions as CounterFacts[],
            totals: f.totals,
          })),
          okPolls,
          (poll) => emptyFrame(poll, counters.length),
        )
      : mapFrames(framesOf<KafkaConnection>(source.samples('connections', window), okPolls), (f) => ({
          poll: f.poll,
          time: f.time,
          rows: f.rows,
          totals: counters.map((k) => f.rows.map((r) => r.totalRequestStatistics[k])),
        }));
  return mergeRounds<CounterFrame>(frames, (head, slices) => {
    const { picks, poll } = roundPicks(head, slices);
    return {
      poll,
      time: head.time,
      rows: picks.map(([f, i]) => f.rows[i]!),
      totals: counters.map((_, k) => picks.map(([f, i]) => f.totals[k]![i]!)),
    };
  });
}

function emptyFrame(poll: PollRow, counters: number): CounterFrame {
  return { poll, time: pollTime(poll), rows: [], totals: Array.from({ length: counters }, () => []) };
}

function* mapFrames<A, B>(frames: Iterable<A>, fn: (a: A) => B): Generator<B> {
  for (const f of frames) yield fn(f);
}
