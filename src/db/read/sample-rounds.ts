/**
 * One sample per entity per round for the resources that several operations report.
 * GetShadowLink, ListShadowTopics and GetShadowTopic each carry shadow topics with their
 * partitions, and each answer is stored as it came: one round of the three gives a topic up to
 * three stored samples at (nearly) the same instant. Readers keep the most detailed one:
 * GetShadowTopic (asked about that one topic) over ListShadowTopics (the link's topics) over
 * GetShadowLink (the topics as part of the link's status). The others stay stored as raw
 * history, read with `source` (docs/storage.md, "One sample per entity per round").
 *
 * A round is the successful polls of those operations scheduled within ROUND_WINDOW_NS of the
 * round's first, at most one per operation and target: one firing of the schedules, whatever
 * the jitter and the wait in the cluster's call queue. Pure: no store access here.
 */
import type { OperationName } from '../../api/schema/operations.ts';
import type { PollRow, ResourceName } from '../../api/schema/resources.ts';

/** Polls scheduled this close to a round's first poll belong to it (10 s: the default jitter is 2 s). */
export const ROUND_WINDOW_NS = 10_000_000_000n;

/** The operations reporting shadow topics and partitions, the most detailed answer first. */
export const SHADOW_PRECEDENCE: readonly OperationName[] = ['GetShadowTopic', 'ListShadowTopics', 'GetShadowLink'];

/** True when several operations report the entities of `resource`: readers merge their samples per round. */
export function mergedPerRound(resource: ResourceName): boolean {
  return resource === 'shadow-topics' || resource === 'shadow-partitions';
}

/** How detailed an operation's answer is for a merged resource: higher wins; 0 for any other operation. */
export function precedence(operation: string): number {
  const i = SHADOW_PRECEDENCE.indexOf(operation as OperationName);
  return i < 0 ? 0 : SHADOW_PRECEDENCE.length - i;
}

/** What grouping polls into rounds reads of a poll. */
export type PollTiming = Pick<PollRow, 'id' | 'operation' | 'target' | 'scheduledTime' | 'startTime'>;

const byTime = (a: PollTiming, b: PollTiming): number =>
  a.scheduledTime !== b.scheduledTime
    ? a.scheduledTime < b.scheduledTime
      ? -1
      : 1
    : a.startTime !== b.startTime
      ? a.startTime < b.startTime
        ? -1
        : 1
      : a.id < b.id
        ? -1
        : a.id > b.id
          ? 1
          : 0;

/**
 * The round of each poll (parallel to `polls`, which may come in any order): rounds are numbered
 * from 0 in the order of their first scheduled instant.
 */
export function roundsOf(polls: readonly PollTiming[]): number[] {
  const order = polls.map((_, i) => i).sort((a, b) => byTime(polls[a] as PollTiming, polls[b] as PollTiming));
  const out = new Array<number>(polls.length).fill(0);
  let round = -1;
  let first = 0n;
  let members = new Set<string>();
  for (const i of order) {
    const p = polls[i] as PollTiming;
    const who = `${p.operation}\u0000${p.target}`;
    if (round < 0 || p.scheduledTime - first >= ROUND_WINDOW_NS || members.has(who)) {
      round++;
      first = p.scheduledTime;
      members = new Set();
    }
    members.add(who);
    out[i] = round;
  }
  return out;
}

/** True when `a` (a poll of a merged resource) wins over `b` in the same round: more detailed, then newer. */
export function wins(a: PollTiming, b: PollTiming): boolean {
  const d = precedence(a.operation) - precedence(b.operation);
  return d !== 0 ? d > 0 : byTime(a, b) > 0;
}

/**
 * Of samples keyed by entity, the winner per (round, entity) (see `wins`), in the order given;
 * `at` gives a sample's poll and the round of that poll.
 */
export function roundWinners<S extends { readonly key: string }>(
  samples: readonly S[],
  at: (s: S) => { readonly poll: PollTiming; readonly round: number },
): S[] {
  const best = new Map<string, { s: S; poll: PollTiming }>();
  for (const s of samples) {
    const { poll, round } = at(s);
    const k = `${round}\u0000${s.key}`;
    const cur = best.get(k);
    if (cur === undefined || wins(poll, cur.poll)) best.set(k, { s, poll });
  }
  const kept = new Set([...best.values()].map((b) => b.s));
  return samples.filter((s) => kept.has(s));
}
