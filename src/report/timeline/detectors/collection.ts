/**
 * Collection health: gaps (no poll for much longer than usual), failed polls (the API
 * unavailable, timing out, refusing, answering badly) and truncated connection lists.
 */
import type { PollRow } from '../../../api/schema/resources.ts';
import type { DetectorContext, PollDetector } from '../detector.ts';
import { IntervalBook } from '../interval-book.ts';
import { mergeCollectionGaps } from './gap-merge.ts';
import { entity, pollTime } from '../types.ts';
import { formatHumanDuration } from '../../../api/codec/duration.ts';
import type { OperationName } from '../../../api/schema/operations.ts';
import { DEFAULT_INTERVAL_NS, STALE_AFTER_INTERVALS } from '../../freshness.ts';

/** Outcome of a poll that records polls the collector could not store (see src/collector/held-polls.ts). */
const NOT_STORED = 'not_stored';

/** How a failed poll is classed: the kind is `api.<class>`. */
export type FailureClass = 'unavailable' | 'timeout' | 'refused' | 'error';

const CLASS_OF: Readonly<Record<string, FailureClass>> = {
  unavailable: 'unavailable',
  deadline_exceeded: 'timeout',
  canceled: 'timeout',
  unauthenticated: 'refused',
  permission_denied: 'refused',
  resource_exhausted: 'refused',
  failed_precondition: 'refused',
  unimplemented: 'refused',
};

/** The class of a poll outcome that is not `ok`. */
export function failureClass(outcome: string): FailureClass {
  return CLASS_OF[outcome] ?? 'error';
}

const WORDS: Readonly<Record<FailureClass, string>> = {
  unavailable: 'unavailable',
  timeout: 'timing out',
  refused: 'refusing',
  error: 'failing',
};

interface Stream {
  readonly entity: string;
  readonly operation: string;
  lastScheduled: bigint;
  lastTime: bigint;
  lastId: bigint;
  deltas: bigint[];
  failures: number;
  failClass: FailureClass | undefined;
  /** the calls of the current round (a fan-out continues the first call's round) */
  round: { first: PollRow; last: PollRow } | undefined;
}

/** Opens, extends or ends the truncation interval of a stream after one complete round. */
function judgeRound(book: IntervalBook, s: Stream, r: { first: PollRow; last: PollRow }): void {
  const key = `${s.entity}\u0000trunc`;
  const t = pollTime(r.first);
  const values = {
    rowsReturned: String(r.last.rowsReturned),
    totalSize: String(r.last.totalSize),
    calls: String(r.last.fanoutCalls),
  };
  if (r.last.coverage === 'truncated') {
    book.start(key, {
      kind: 'api.truncated',
      severity: 'warn',
      entity: s.entity,
      start: t,
      description:
        r.last.fanoutCalls > 1
          ? `${s.operation} answers truncated even after ${r.last.fanoutCalls} calls: ${r.last.rowsReturned} of ${r.last.totalSize} rows in the last`
          : `${s.operation} answers truncated: ${r.last.rowsReturned} of ${r.last.totalSize} rows`,
      before: values,
      pollId: r.first.id,
    });
    book.update(key, { after: values, pollId: r.last.id });
  } else {
    book.end(key, t, r.first.id, values);
  }
}

const KEEP_DELTAS = 15;

function median(xs: readonly bigint[]): bigint {
  const s = [...xs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return s[s.length >> 1] as bigint;
}

function failureValues(p: PollRow): Record<string, string> {
  const out: Record<string, string> = { outcome: p.outcome };
  if (p.httpStatus !== 0) out.httpStatus = String(p.httpStatus);
  if (p.message !== '') out.message = p.message;
  return out;
}

/** Detects gaps, failures and truncation per operation (and target) from the poll log. */
export function collectionDetector(ctx: DetectorContext): PollDetector {
  const book = new IntervalBook();
  const streams = new Map<string, Stream>();
  const factor = ctx.thresholds.collection.gapFactor;

  const expected = (s: Stream): bigint | undefined => (s.deltas.length >= 2 ? median(s.deltas) : undefined);
  /**
   * The interval the end of the window is judged by, as query and summary judge staleness
   * (src/report/freshness.ts): the recorded rounds' median, the one recorded interval, or the
   * collector's default schedule when a single round was recorded and the collection stopped
   * there (a stream polled once while others went on for an interval has a schedule of its own,
   * not yet known: no verdict, rather than a false gap while a collector on a slow schedule runs).
   */
  const tailInterval = (s: Stream, newest: bigint): { usual: bigint; recorded: boolean } | undefined => {
    if (s.deltas.length > 0) return { usual: median(s.deltas), recorded: true };
    const usual = DEFAULT_INTERVAL_NS[s.operation as OperationName] ?? 60_000_000_000n;
    if (newest - s.lastTime >= usual) return undefined;
    return { usual, recorded: false };
  };

  return {
    poll(p) {
      const key = `${p.operation}\u0000${p.target}`;
      const t = pollTime(p);
      let s = streams.get(key);
      if (s === undefined) {
        s = {
          entity: p.target === '' ? entity('api', p.operation) : entity('api', p.operation, p.target),
          operation: p.operation,
          lastScheduled: p.scheduledTime,
          lastTime: t,
          lastId: p.id,
          deltas: [],
          failures: 0,
          failClass: undefined,
          round: undefined,
        };
        streams.set(key, s);
      } else if (p.outcome === NOT_STORED) {
        // handled below: the lost run is the gap, not the pause around it
      } else if (p.scheduledTime !== s.lastScheduled) {
        const delta = p.scheduledTime - s.lastScheduled;
        const usual = expected(s);
        if (usual !== undefined && usual > 0n && Number(delta) > factor * Number(usual)) {
          book.closed({
            kind: 'collection.gap',
            severity: 'warn',
            entity: s.entity,
            start: s.lastTime,
            description: `no ${s.operation} poll for ${formatHumanDuration(t - s.lastTime)} (usually every ${formatHumanDuration(usual)})`,
            before: { lastPoll: String(s.lastId) },
            after: { nextPoll: String(p.id) },
            pollId: s.lastId,
            end: t,
            endPollId: p.id,
          });
        } else if (delta > 0n) {
          s.deltas.push(delta);
          if (s.deltas.length > KEEP_DELTAS) s.deltas.shift();
        }
        s.lastScheduled = p.scheduledTime;
      }
      s.lastTime = t;
      s.lastId = p.id;

      // polls the collector could not store (the database refused writes and the held ones
      // passed their memory budget): a gap in the recording, from the first lost poll to the last
      if (p.outcome === NOT_STORED) {
        const end = p.endTime > t ? p.endTime : t;
        book.closed({
          kind: 'collection.gap',
          severity: 'error',
          entity: s.entity,
          start: t,
          description: p.message,
          before: { poll: String(p.id) },
          after: { outcome: p.outcome },
          pollId: p.id,
          end,
          endPollId: p.id,
        });
        s.lastScheduled = end;
        s.lastTime = end;
        return;
      }

      const errKey = `${key}\u0000err`;
      if (p.outcome !== 'ok') {
        const cls = failureClass(p.outcome);
        if (s.failClass !== undefined && s.failClass !== cls) book.end(errKey, t, p.id);
        s.failures = s.failClass === cls ? s.failures + 1 : 1;
        s.failClass = cls;
        const desc = `${s.operation} ${WORDS[cls]}: ${p.outcome}${p.httpStatus !== 0 ? ` (HTTP ${p.httpStatus})` : ''}${p.message !== '' ? `: ${p.message}` : ''}`;
        book.start(errKey, {
          kind: `api.${cls}`,
          severity: 'warn',
          entity: s.entity,
          start: t,
          description: desc,
          after: failureValues(p),
          pollId: p.id,
        });
        book.update(errKey, {
          severity: s.failures >= 2 ? 'error' : 'warn',
          after: { ...failureValues(p), failedPolls: String(s.failures) },
          pollId: p.id,
        });
        return;
      }
      if (s.failClass !== undefined) {
        book.end(errKey, t, p.id, { recoveredBy: String(p.id) });
        s.failClass = undefined;
        s.failures = 0;
      }
      // truncation is judged per round: a truncated first call that the fan-out completed is fine
      if (p.fanoutCalls > 1 && s.round !== undefined) {
        s.round.last = p;
        return;
      }
      if (s.round !== undefined) judgeRound(book, s, s.round);
      s.round = { first: p, last: p };
    },
    finish(until) {
      let newest: bigint | undefined;
      for (const s of streams.values()) if (newest === undefined || s.lastTime > newest) newest = s.lastTime;
      for (const s of streams.values()) {
        if (s.round !== undefined) judgeRound(book, s, s.round);
        // stale at the end of the window: the same verdict as query's and summary's
        const tail = tailInterval(s, newest ?? s.lastTime);
        if (tail !== undefined && tail.usual > 0n && until - s.lastTime > STALE_AFTER_INTERVALS * tail.usual) {
          const { usual, recorded } = tail;
          book.start(`${s.entity}\u0000tail-gap`, {
            kind: 'collection.gap',
            severity: 'warn',
            entity: s.entity,
            start: s.lastTime,
            description: `no ${s.operation} poll in the last ${formatHumanDuration(until - s.lastTime)} of the window (${recorded ? 'usually' : 'by default'} every ${formatHumanDuration(usual)})`,
            before: { lastPoll: String(s.lastId) },
            pollId: s.lastId,
          });
        }
      }
      return mergeCollectionGaps(book.finish(), until);
    },
  };
}
