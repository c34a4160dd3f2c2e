/** The sample stream of a resource several operations report: one sample per entity per round (sample-rounds.ts). */
import type { PollInfo } from './poll-rows.ts';
import type { SourcedRow } from './resource-rows.ts';
import { ROUND_WINDOW_NS, roundsOf, roundWinners } from './sample-rounds.ts';

/** How far before and after a range the polls that may share a round with its polls are read. */
export const ROUND_MARGIN_NS = ROUND_WINDOW_NS;

/**
 * Yields, in poll time order, the winning samples of the polls started in [since, until].
 * `polls` are the successful polls of the resource's operations in poll time order, read
 * ROUND_MARGIN_NS beyond both ends: a round cut by the range's edge is judged whole, so a
 * sample is the same in every range that holds it. `load` reads the rows of a round's polls
 * (one read each).
 */
export function* mergedSamples(
  polls: readonly PollInfo[],
  range: { readonly since: bigint; readonly until: bigint },
  load: (polls: readonly PollInfo[]) => SourcedRow[][],
): Generator<SourcedRow> {
  const rounds = roundsOf(polls.map((p) => p.row));
  const members = new Map<number, PollInfo[]>();
  polls.forEach((p, i) => {
    const r = rounds[i] as number;
    const list = members.get(r);
    if (list === undefined) members.set(r, [p]);
    else list.push(p);
  });
  const inRange = (p: PollInfo): boolean => p.row.startTime >= range.since && p.row.startTime <= range.until;
  // the winners of the rounds read so far, by poll; a poll's are dropped once it is passed
  const winners = new Map<number, SourcedRow[]>();
  const read = new Set<number>();
  for (let i = 0; i < polls.length; i++) {
    const p = polls[i] as PollInfo;
    const r = rounds[i] as number;
    if (!read.has(r)) {
      read.add(r);
      const own = members.get(r) as PollInfo[];
      if (own.some(inRange)) {
        for (const s of roundWinners(load(own).flat(), (s) => ({ poll: s.poll.row, round: r }))) {
          const list = winners.get(s.poll.id);
          if (list === undefined) winners.set(s.poll.id, [s]);
          else list.push(s);
        }
      }
    }
    if (inRange(p)) yield* winners.get(p.id) ?? [];
    winners.delete(p.id);
  }
}
