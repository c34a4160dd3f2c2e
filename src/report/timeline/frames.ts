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
export function* framesOf<R>(samples: Iterable<{ poll: PollRow; row: object }>, okPolls: readonly PollRow[]): Generator<Frame<R>> {
  const index = new Map<bigint, number>();
  okPolls.forEach((p, i) => index.set(p.id, i));
  let next = 0;
  let current: PollRow | undefined;
  let rows: R[] = [];
  const flushEmptyBefore = function* (limit: number): Generator<Frame<R>> {
    while (next < limit) {
      const p = okPolls[next++] as PollRow;
      yield { poll: p, time: pollTime(p), rows: [] };
    }
  };
  for (const s of samples) {
    if (current !== undefined && s.poll.id === current.id) {
      rows.push(s.row as R);
      continue;
    }
    if (current !== undefined) yield { poll: current, time: pollTime(current), rows };
    const at = index.get(s.poll.id);
    if (at !== undefined) {
      yield* flushEmptyBefore(at);
      next = Math.max(next, at + 1);
    }
    current = s.poll;
    rows = [s.row as R];
  }
  if (current !== undefined) yield { poll: current, time: pollTime(current), rows };
  yield* flushEmptyBefore(okPolls.length);
}

/**
 * Merges the calls of one ListKafkaConnections round into one frame. When an answer is
 * truncated the collector asks again per broker (and per shard): those calls (fanoutCalls > 1)
 * continue the round of the call before them. The merged frame holds the slices' rows plus the
 * first call's rows that no slice listed; it is complete when it lists as many distinct
 * connections as the first call said matched.
 */
export function* mergeFanout<R extends { uid: string }>(frames: Iterable<Frame<R>>): Generator<Frame<R>> {
  let head: Frame<R> | undefined;
  let slices: R[] = [];
  let sliced = false;
  const flush = (): Frame<R> | undefined => {
    if (head === undefined) return undefined;
    if (!sliced) return head;
    const seen = new Set<string>();
    for (const r of slices) seen.add(r.uid);
    const rows = slices.slice();
    for (const r of head.rows) if (!seen.has(r.uid)) {
      rows.push(r);
      seen.add(r.uid);
    }
    const coverage = BigInt(seen.size) >= head.poll.totalSize ? 'complete' : 'truncated';
    return { poll: { ...head.poll, coverage, rowsReturned: BigInt(rows.length) }, time: head.time, rows };
  };
  for (const f of frames) {
    if (head !== undefined && f.poll.fanoutCalls > 1) {
      sliced = true;
      for (const r of f.rows) slices.push(r);
      continue;
    }
    const done = flush();
    if (done !== undefined) yield done;
    slices = [];
    sliced = false;
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
