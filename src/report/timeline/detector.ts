/** The detector contract: pure state machines fed in poll-time order, producing events at the end. */
import type { PollRow } from '../../api/schema/resources.ts';
import type { Thresholds } from './thresholds.ts';
import type { Frame, TimelineEvent } from './types.ts';

/** Consumes one resource's frames (of type F: frames of R rows, unless said otherwise). */
export interface FrameDetector<R, F extends Frame<R> = Frame<R>> {
  /** Feeds the next poll's rows. */
  frame(f: F): void;
  /** The events found; intervals still open at `until` are ongoing. */
  finish(until: bigint): TimelineEvent[];
  /** Key series recorded on the way, for sparklines. */
  series?(): Series[];
}

/** Consumes every recorded poll, successful or not. */
export interface PollDetector {
  /** Feeds the next poll. */
  poll(p: PollRow): void;
  /** The events found. */
  finish(until: bigint): TimelineEvent[];
}

/** What every detector is built with. */
export interface DetectorContext {
  readonly thresholds: Thresholds;
  /** the entity the timeline is asked about (`--for`): detectors add its own series */
  readonly focus?: string;
}

/** A named series of values over time, for sparklines. */
export interface Series {
  /** e.g. `connections.open`, `shadow.lag/dr-primary` */
  readonly name: string;
  /** what the values count: `connections`, `records`, `seconds`, `polls` */
  readonly unit: string;
  readonly times: bigint[];
  readonly values: number[];
  /** the entity the series is about (`link/dr-primary`); none for cluster-wide series */
  readonly entity?: string;
}

/** Creates an empty series, about `entity` when given. */
export function newSeries(name: string, unit: string, entity?: string): Series {
  return entity === undefined ? { name, unit, times: [], values: [] } : { name, unit, times: [], values: [], entity };
}
