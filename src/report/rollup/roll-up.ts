/**
 * `rollUp(cluster, untilNs)`: summarises raw history into 5-minute buckets, those into 1-hour
 * buckets, and keeps the timeline's events, before raw history up to `untilNs` is pruned.
 * Idempotent and resumable: the store remembers how far each resolution is summarised and only
 * whole buckets are computed (the bucket holding `untilNs` too, once raw history reaches past its
 * end, so that everything before `untilNs` is summarised and the raw part that remains starts
 * inside a summarised bucket).
 */
import { formatTimestampShort } from '../../api/codec/timestamp.ts';
import { CorruptDataError } from '../../db/errors.ts';
import type { RollupBatch, RollupStore } from '../../db/rollups/rollup-store.ts';
import { EVENTS_PROGRESS } from '../../db/rollups/rollup-store.ts';
import { buildTimeline, type TimelineSource } from '../timeline/timeline.ts';
import { DEFAULT_THRESHOLDS, type Thresholds } from '../timeline/thresholds.ts';
import { pollTime } from '../timeline/types.ts';
import { rollBucketSteps } from './bucket-rows.ts';
import { coarsen } from './coarsen.ts';
import { eventsToStore } from './kept-events.ts';
import { stateRuns, type StateObservation } from './state-runs.ts';

/** Bucket widths in seconds, finest first. */
export const ROLLUP_RESOLUTIONS = [300, 3600] as const;

const SECOND = 1_000_000_000n;
/** How far before its start an events pass looks again for the end of events it left ongoing. */
const EVENT_LOOKBACK = 10n * 60n * SECOND;
/**
 * 5-minute buckets written per transaction: a write holds the database's one write lock, which a
 * poll's write may wait for, so it stays short (12 buckets held it about 54 ms at 1,000 connections).
 */
const BUCKETS_PER_WRITE = 3;

/** What rollUp reads: the raw history (a HistoryReader satisfies it). */
export type RollUpSource = TimelineSource;

/** Options of createRollUp. */
export interface RollUpOptions {
  readonly thresholds?: Thresholds;
  /**
   * Told of raw history that does not decode (a damaged page): its bucket, or its hour of events,
   * is left out and the rollup goes on, so that retention can still prune (it used to fail at
   * every pass, and the store grew without bound)
   */
  readonly onDamage?: (message: string) => void;
}

/** Start of the bucket of width `w` holding `t`. */
export function bucketStart(t: bigint, w: bigint): bigint {
  const r = t % w;
  return r < 0n ? t - r - w : t - r;
}

/** Lets other work (a scheduled poll) run between two buckets. */
const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * The rollUp function over one reader and one store. It yields to the event loop after every
 * bucket, so that a collector's polls wait for at most one bucket's work.
 */
export function createRollUp(
  source: RollUpSource,
  store: RollupStore,
  opts: RollUpOptions = {},
): (cluster: string, untilNs: bigint) => Promise<void> {
  const thresholds = opts.thresholds ?? DEFAULT_THRESHOLDS;
  return async (cluster, untilNs) => {
    /** Damage in raw history is told and left out; any other failure ends the rollUp. */
    const skipDamaged = (err: unknown, what: string, from: bigint, to: bigint): void => {
      if (!(err instanceof CorruptDataError)) throw err;
      const span = `${formatTimestampShort(from)} to ${formatTimestampShort(to)}`;
      opts.onDamage?.(`rollups: ${what} ${span} of cluster ${cluster} left out: ${err.message}`);
    };
    const first = source.polls({ cluster, limit: 1 })[0];
    if (first === undefined) return;
    const fineW = BigInt(ROLLUP_RESOLUTIONS[0]) * SECOND;
    // up to the bucket holding untilNs, once raw history reaches past its end (it is whole then)
    let end = bucketStart(untilNs, fineW);
    if (source.polls({ cluster, since: end + fineW, limit: 1 }).length > 0) end += fineW;

    let at = store.progress(cluster, ROLLUP_RESOLUTIONS[0]) ?? bucketStart(pollTime(first), fineW);
    while (at < end) {
      const parts: RollupBatch[] = [];
      const stop = at + fineW * BigInt(BUCKETS_PER_WRITE) < end ? at + fineW * BigInt(BUCKETS_PER_WRITE) : end;
      for (let b = at; b < stop; b += fineW) {
        try {
          const steps = rollBucketSteps(source, cluster, b, b + fineW, thresholds);
          for (let r = steps.next(); ; r = steps.next()) {
            await yieldToLoop();
            if (r.done === true) {
              parts.push(r.value);
              break;
            }
          }
        } catch (err) {
          skipDamaged(err, `the ${ROLLUP_RESOLUTIONS[0] / 60}-minute bucket`, b, b + fineW);
        }
      }
      store.writeBuckets(cluster, ROLLUP_RESOLUTIONS[0], stop, concat(parts));
      at = stop;
    }
    const fineUntil = store.progress(cluster, ROLLUP_RESOLUTIONS[0]) ?? end;

    for (const res of ROLLUP_RESOLUTIONS.slice(1)) {
      const w = BigInt(res) * SECOND;
      let h = store.progress(cluster, res) ?? bucketStart(pollTime(first), w);
      while (h + w <= fineUntil) {
        const fine = ROLLUP_RESOLUTIONS[0];
        const batch = coarsen(
          {
            buckets: store.buckets(cluster, fine, h, h + w),
            conns: store.conns(cluster, fine, h, h + w),
            shadow: store.shadow(cluster, fine, h, h + w),
            iceberg: store.iceberg(cluster, fine, h, h + w),
          },
          h,
        );
        store.writeBuckets(cluster, res, h + w, batch);
        h += w;
        await yieldToLoop();
      }
    }

    // the timeline's events and the states, an hour at a time
    const hour = BigInt(ROLLUP_RESOLUTIONS[1]) * SECOND;
    const done = store.progress(cluster, EVENTS_PROGRESS);
    let from = done ?? bucketStart(pollTime(first), fineW);
    let fromRecordingStart = done === undefined;
    while (from < fineUntil) {
      const to = from + hour < fineUntil ? from + hour : fineUntil;
      // found again over a look-back before `from`, so that events left ongoing (or whose end the
      // detectors set back in time) get their end; the very first pass starts at the recording
      const since = fromRecordingStart ? undefined : from - EVENT_LOOKBACK;
      fromRecordingStart = false;
      try {
        const open = store.states(cluster, from, to).filter((s) => s.end === null);
        store.writeStates(cluster, stateRuns(observedStates(source, cluster, from, to), open));
        const ongoing = since === undefined ? [] : store.events(cluster, since, to).filter((e) => e.end === null);
        const t = buildTimeline(source, { cluster, since, until: to - 1n, thresholds });
        const { write, replaced } = eventsToStore(t.events, ongoing, since, to);
        store.writeEvents(cluster, to, write, replaced);
      } catch (err) {
        skipDamaged(err, 'the events and states of', from, to);
        store.writeEvents(cluster, to, [], []);
      }
      from = to;
      await yieldToLoop();
    }
  };
}

function concat(parts: readonly RollupBatch[]): RollupBatch {
  return {
    buckets: parts.flatMap((p) => p.buckets),
    conns: parts.flatMap((p) => p.conns),
    shadow: parts.flatMap((p) => p.shadow),
    iceberg: parts.flatMap((p) => p.iceberg),
  };
}

/** Upgrade and shadow link states seen by the successful polls in [since, until), in time order. */
function* observedStates(
  source: RollUpSource,
  cluster: string,
  since: bigint,
  until: bigint,
): Generator<StateObservation> {
  const window = { cluster, since, until: until - 1n };
  const all: StateObservation[] = [];
  for (const s of source.samples('upgrade', window)) {
    all.push({ entity: 'upgrade', state: String((s.row as { state?: unknown }).state ?? ''), time: pollTime(s.poll) });
  }
  for (const s of source.samples('shadow-links', window)) {
    const row = s.row as { name?: unknown; state?: unknown };
    all.push({ entity: `link/${String(row.name ?? '')}`, state: String(row.state ?? ''), time: pollTime(s.poll) });
  }
  all.sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : 0));
  yield* all;
}
