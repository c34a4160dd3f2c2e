/**
 * Collection gaps: stretches longer than 1.5 expected intervals without a successful poll, from
 * the poll times the reader supplies (pure: the store only lists polls).
 */
import type { OperationName } from '../api/schema/operations.ts';
import type { PollRow } from '../api/schema/resources.ts';

/** A stretch without a successful poll. */
export interface Gap {
  readonly from: bigint;
  readonly to: bigint;
  /** `failed` when polls were made in the stretch but none succeeded */
  readonly reason: 'no-poll' | 'failed';
}

/** A poll as gaps need it: when it started and whether it succeeded. */
export interface PollTime {
  readonly startTime: bigint;
  readonly ok: boolean;
}

/** The window gaps are looked for in, and the interval polls are expected at (ns). */
export interface GapWindow {
  readonly since: bigint;
  readonly until: bigint;
  readonly expectedIntervalNs: bigint;
}

/** Gaps of `polls` (oldest first) within the window: no successful poll for more than 1.5 expected intervals. */
export function findGaps(polls: Iterable<PollTime>, w: GapWindow): Gap[] {
  const limit = (w.expectedIntervalNs * 3n) / 2n;
  const out: Gap[] = [];
  let last = w.since;
  let failed = false;
  const close = (to: bigint): void => {
    if (to - last > limit) out.push({ from: last, to, reason: failed ? 'failed' : 'no-poll' });
  };
  for (const p of polls) {
    if (!p.ok) {
      failed = true;
      continue;
    }
    close(p.startTime);
    last = p.startTime;
    failed = false;
  }
  close(w.until);
  return out;
}

/** What pollGaps reads (the store's HistoryReader satisfies it). */
export interface GapSource {
  /** recorded polls, successful or not, oldest first (of every cluster when `cluster` is undefined) */
  polls(q: {
    cluster?: string;
    operation?: OperationName;
    since?: bigint;
    until?: bigint;
  }): readonly Pick<PollRow, 'startTime' | 'outcome' | 'target'>[];
}

/** The gaps of one operation (and target, when given) of a cluster, read from the poll log. */
export function pollGaps(
  source: GapSource,
  q: GapWindow & { readonly cluster?: string; readonly operation: OperationName; readonly target?: string },
): Gap[] {
  const polls = source
    .polls({ cluster: q.cluster, operation: q.operation, since: q.since, until: q.until })
    .filter((p) => q.target === undefined || p.target === q.target)
    .map((p) => ({ startTime: p.startTime, ok: p.outcome === 'ok' }));
  return findGaps(polls, q);
}
