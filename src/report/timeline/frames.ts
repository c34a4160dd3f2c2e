/**
 * Turns the reader's sample stream (every row of every successful poll, in poll-time order)
 * into frames, one per poll, including the polls whose answer held no row at all.
 */
import type { PollRow } from '../../api/schema/resources.ts';
import { pollTime, type Frame } from './types.ts';

/** Orders polls by time, then id. */
export function comparePolls(a: PollRow, b: PollRow): number {
  const ta = pollTime(a);
  const tb = pollTime(b);
  if (ta !== tb) return ta < tb ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * Yields one frame per successful poll of `okPolls` (sorted), with the rows the sample stream
 * holds for it; polls without samples become empty frames, in their place.
 */
export function framesOf<R>(
  samples: Iterable<{ poll: PollRow; row: object }>,
  okPolls: readonly PollRow[],
): Generator<Frame<R>> {
  return padFrames(groupSamples<R>(samples), okPolls, (poll) => ({ poll, time: pollTime(poll), rows: [] }));
}

/** Groups a sample stream into one frame per run of samples of the same poll. */
function* groupSamples<R>(samples: Iterable<{ poll: PollRow; row: object }>): Generator<Frame<R>> {
  let current: PollRow | undefined;
  let rows: R[] = [];
  for (const s of samples) {
    if (current !== undefined && s.poll.id === current.id) {
      rows.push(s.row as R);
      continue;
    }
    if (current !== undefined) yield { poll: current, time: pollTime(current), rows };
    current = s.poll;
    rows = [s.row as R];
  }
  if (current !== undefined) yield { poll: current, time: pollTime(current), rows };
}

/**
 * Yields the frames with an `empty` one for each poll of `okPolls` (sorted) that has none, in
 * its place: the frames of a stream that skips polls without rows, one per successful poll.
 */
export function* padFrames<F extends { readonly poll: PollRow }>(
  frames: Iterable<F>,
  okPolls: readonly PollRow[],
  empty: (poll: PollRow) => F,
): Generator<F> {
  const index = new Map<bigint, number>();
  okPolls.forEach((p, i) => index.set(p.id, i));
  let next = 0;
  for (const f of frames) {
    const at = index.get(f.poll.id);
    if (at !== undefined) {
      while (next < at) yield empty(okPolls[next++] as PollRow);
      next = Math.max(next, at + 1);
    }
    yield f;
  }
  while (next < okPolls.length) yield empty(okPolls[next++] as PollRow);
}

/**
 * Merges the calls of one ListKafkaConnections round into one frame. When an answer is
 * truncated the collector asks again per broker (and per shard): those calls (fanoutCalls > 1)
 * continue the round of the call before them. The merged frame lists each connection once
 * (see roundPicks); it is complete when it lists as many distinct connections as the first
 * call said matched.
 */
export function mergeFanout<R extends { uid: string }>(frames: Iterable<Frame<R>>): Generator<Frame<R>> {
  return mergeRounds(frames, (head, slices) => {
    const { picks, poll } = roundPicks(head, slices);
    return { poll, time: head.time, rows: picks.map(([f, i]) => f.rows[i] as R) };
  });
}

/**
 * Yields each frame, except that a truncated frame followed by slices (frames with
 * fanoutCalls > 1) is replaced by `merge` of it and its slices.
 */
export function* mergeRounds<F extends Frame<unknown>>(
  frames: Iterable<F>,
  merge: (head: F, slices: readonly F[]) => F,
): Generator<F> {
  let head: F | undefined;
  let slices: F[] = [];
  const flush = (): F | undefined =>
    head === undefined ? undefined : slices.length === 0 ? head : merge(head, slices);
  for (const f of frames) {
    if (head !== undefined && f.poll.fanoutCalls > 1) {
      slices.push(f);
      continue;
    }
    const done = flush();
    if (done !== undefined) yield done;
    slices = [];
    // only a truncated answer is followed by slices: any other frame is complete at once
    if (f.poll.coverage !== 'truncated') {
      head = undefined;
      yield f;
      continue;
    }
    head = f;
  }
  const done = flush();
  if (done !== undefined) yield done;
}

/** Rows a merged round takes from one of its calls: that call's frame and the indexes of the rows taken, ascending. */
export interface RoundPart<F> {
  readonly frame: F;
  readonly rows: readonly number[];
}

/**
 * The rows of a merged round, call by call: each call's rows whose uid no earlier call of the
 * round listed (a truncated broker slice and the shard slices that complete it overlap), then
 * the first call's rows that no slice listed. A uid repeated within one call stays repeated:
 * that is the API contradicting itself, which the timeline reports. The round's poll is complete
 * when it lists as many distinct connections as the first call said matched. One index list per
 * call, no pair per row: a round of a large cluster merges thousands of rows.
 */
export function roundParts<F extends Frame<{ readonly uid: string }>>(
  head: F,
  slices: readonly F[],
): { parts: RoundPart<F>[]; count: number; poll: PollRow } {
  const seen = new Set<string>();
  const parts: RoundPart<F>[] = [];
  let count = 0;
  const take = (f: F): void => {
    const rows = f.rows;
    const taken: number[] = [];
    for (let i = 0; i < rows.length; i++) if (!seen.has(rows[i]!.uid)) taken.push(i);
    // added after the call's pass: a uid repeated within the call stays repeated
    for (const i of taken) seen.add(rows[i]!.uid);
    parts.push({ frame: f, rows: taken });
    count += taken.length;
  };
  for (const s of slices) take(s);
  take(head);
  const coverage = BigInt(seen.size) >= head.poll.totalSize ? 'complete' : 'truncated';
  return { parts, count, poll: { ...head.poll, coverage, rowsReturned: BigInt(count) } };
}

/** roundParts as (frame, row index) pairs, in the same order. */
export function roundPicks<F extends Frame<{ readonly uid: string }>>(
  head: F,
  slices: readonly F[],
): { picks: [F, number][]; poll: PollRow } {
  const { parts, poll } = roundParts(head, slices);
  const picks: [F, number][] = [];
  for (const { frame, rows } of parts) for (const i of rows) picks.push([frame, i]);
  return { picks, poll };
}
