/**
 * Replication lag of one shadow topic, from its partitions' high watermarks: lag above the
 * threshold, lag growing (a rise worth more than `lagGrowth` of the source's traffic),
 * replication stopped (no progress while the source moves) and stale source information.
 */
import type { ShadowTopicPartition } from '../../../api/schema/shadow-topic.ts';
import { formatHumanDuration } from '../../../api/codec/duration.ts';
import type { Thresholds } from '../thresholds.ts';
import type { IntervalBook } from '../interval-book.ts';
import { SourceHistory } from '../../trends/source-history.ts';
import { GrowthRun } from './growth-run.ts';

interface Part {
  readonly history: SourceHistory;
  shadow: bigint;
  lastAdvance: bigint;
  sourceAtAdvance: bigint;
}

/** What the topic's lag looked like at one poll. */
export interface LagReading {
  readonly totalLag: bigint;
  readonly maxLag: bigint;
  /** the largest estimated time lag of its partitions, ns */
  readonly maxTimeLag: bigint | undefined;
  readonly extrapolated: boolean;
}

/** Tracks the lag of one shadow topic and reports its intervals into a shared book. */
export class TopicLag {
  readonly #parts = new Map<bigint, Part>();
  readonly #run = new GrowthRun();
  readonly #book: IntervalBook;
  readonly #th: Thresholds['shadow'];
  readonly #key: string;
  readonly #entity: string;
  readonly #related: readonly string[];
  readonly #label: string;

  constructor(
    book: IntervalBook,
    th: Thresholds['shadow'],
    key: string,
    entity: string,
    related: readonly string[],
    label: string,
  ) {
    this.#book = book;
    this.#th = th;
    this.#key = key;
    this.#entity = entity;
    this.#related = related;
    this.#label = label;
  }

  /** Feeds one poll's partitions; `checkProgress` is false while the topic is paused. */
  observe(parts: readonly ShadowTopicPartition[], time: bigint, pollId: bigint, checkProgress: boolean): LagReading {
    let total = 0n;
    let max = 0n;
    let rate = 0;
    let maxTime: bigint | undefined;
    let extrapolated = false;
    let stopped = 0;
    let stoppedSince: bigint | undefined;
    let stale = 0;
    let staleSince: bigint | undefined;
    for (const p of parts) {
      let part = this.#parts.get(p.partitionId);
      if (part === undefined) {
        part = {
          history: new SourceHistory(),
          shadow: p.highWatermark,
          lastAdvance: time,
          sourceAtAdvance: p.sourceHighWatermark,
        };
        this.#parts.set(p.partitionId, part);
      }
      const refreshed = p.sourceLastUpdatedTimestamp !== 0n ? p.sourceLastUpdatedTimestamp : time;
      part.history.add(refreshed, Number(p.sourceHighWatermark));
      if (p.highWatermark > part.shadow || !checkProgress) {
        part.lastAdvance = time;
        part.sourceAtAdvance = p.sourceHighWatermark;
      }
      part.shadow = p.highWatermark;
      const lag = p.sourceHighWatermark - p.highWatermark;
      if (lag > 0n) total += lag;
      if (lag > max) max = lag;
      rate += part.history.ratePerSecond();
      const tl = part.history.timeLag(time, Number(p.highWatermark));
      if (tl !== undefined && (maxTime === undefined || tl.ns > maxTime)) {
        maxTime = tl.ns;
        extrapolated = tl.extrapolated;
      }
      if (time - part.lastAdvance >= this.#th.stopWindow && p.sourceHighWatermark > part.sourceAtAdvance && lag > 0n) {
        stopped++;
        if (stoppedSince === undefined || part.lastAdvance < stoppedSince) stoppedSince = part.lastAdvance;
      }
      if (time - refreshed > this.#th.sourceStale) {
        stale++;
        if (staleSince === undefined || refreshed < staleSince) staleSince = refreshed;
      }
    }
    const reading: LagReading = { totalLag: total, maxLag: max, maxTimeLag: maxTime, extrapolated };
    const timeText =
      maxTime === undefined
        ? ''
        : `, about ${formatHumanDuration(maxTime)} behind${extrapolated ? ' (extrapolated)' : ''}`;
    const values = {
      totalLag: String(total),
      maxPartitionLag: String(max),
      ...(maxTime !== undefined ? { timeLag: formatHumanDuration(maxTime) } : {}),
    };

    // lag above the threshold
    const highKey = `${this.#key}\u0000high`;
    if (max > this.#th.lagRecords) {
      this.#book.start(highKey, {
        kind: 'shadow.lag-high',
        severity: 'warn',
        entity: this.#entity,
        related: this.#related,
        start: time,
        description: '',
        pollId,
      });
      this.#book.update(highKey, {
        description: `${this.#label}: lag ${max} records on one partition (threshold ${this.#th.lagRecords})${timeText}`,
        after: values,
        pollId,
      });
    } else {
      this.#book.end(highKey, time, pollId, values);
    }

    // lag growing, in records, judged against the source's usual traffic
    const growKey = `${this.#key}\u0000growing`;
    const threshold = Math.max(500, (rate * Number(this.#th.lagGrowth)) / 1e9);
    const step = this.#run.step({ time, value: Number(total), pollId }, threshold, Math.max(1, rate * 2));
    if (step.kind === 'started') {
      this.#book.start(growKey, {
        kind: 'shadow.lag-growing',
        severity: 'warn',
        entity: this.#entity,
        related: this.#related,
        start: step.from.time,
        description: '',
        before: { totalLag: String(step.from.value) },
        pollId: step.from.pollId,
      });
    }
    if (step.kind === 'started' || step.kind === 'growing') {
      this.#book.update(growKey, {
        description: `${this.#label}: lag growing, now ${total} records${timeText}`,
        after: values,
        pollId,
      });
    } else if (step.kind === 'ended') {
      this.#book.update(growKey, { after: { peakLag: String(step.peak.value) } });
      this.#book.end(growKey, step.peak.time, pollId, { totalLag: String(total) });
    }

    // replication stopped while the source moves; stale source information
    const stopKey = `${this.#key}\u0000stopped`;
    if (checkProgress && stopped > 0 && stoppedSince !== undefined) {
      this.#book.start(stopKey, {
        kind: 'shadow.replication-stopped',
        severity: 'error',
        entity: this.#entity,
        related: this.#related,
        start: stoppedSince,
        description: '',
        pollId,
      });
      this.#book.update(stopKey, {
        description: `${this.#label}: no replication progress on ${stopped} of ${parts.length} partitions while the source moves (lag ${total} records${timeText})`,
        after: { ...values, stoppedPartitions: String(stopped) },
        pollId,
      });
    } else {
      this.#book.end(stopKey, time, pollId, values);
    }
    const staleKey = `${this.#key}\u0000stale`;
    if (checkProgress && stale > 0 && staleSince !== undefined) {
      this.#book.start(staleKey, {
        kind: 'shadow.source-stale',
        severity: 'warn',
        entity: this.#entity,
        related: this.#related,
        start: staleSince,
        description: '',
        pollId,
      });
      this.#book.update(staleKey, {
        description: `${this.#label}: source information of ${stale} of ${parts.length} partitions not refreshed for ${formatHumanDuration(time - staleSince)}`,
        after: { stalePartitions: String(stale) },
        pollId,
      });
    } else {
      this.#book.end(staleKey, time, pollId, { stalePartitions: '0' });
    }
    return reading;
  }

  /** The topic left replication (failed over, promoted): its lag intervals end here. */
  detach(time: bigint, pollId: bigint): void {
    const peak = this.#run.reset();
    if (peak !== undefined) this.#book.end(`${this.#key}\u0000growing`, peak.time, pollId);
    for (const k of ['high', 'growing', 'stopped', 'stale']) this.#book.end(`${this.#key}\u0000${k}`, time, pollId);
    this.#parts.clear();
  }
}
