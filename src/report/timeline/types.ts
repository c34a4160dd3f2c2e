/**
 * The timeline's data model: events (intervals and points) with kind, severity, entity, a
 * one-line description and evidence; frames (one poll's rows) that detectors consume.
 */
import type { PollRow } from '../../api/schema/resources.ts';

/** Severities, lowest first. */
export const SEVERITIES = ['info', 'warn', 'error'] as const;
/** One severity. */
export type Severity = (typeof SEVERITIES)[number];

/** Numeric rank of a severity (info 0, warn 1, error 2). */
export function severityRank(s: Severity): number {
  return s === 'error' ? 2 : s === 'warn' ? 1 : 0;
}

/** The higher of two severities. */
export function maxSeverity(a: Severity, b: Severity): Severity {
  return severityRank(a) >= severityRank(b) ? a : b;
}

/** True when `text` names a severity. */
export function isSeverity(text: string): text is Severity {
  return (SEVERITIES as readonly string[]).includes(text);
}

/**
 * What supports an event, and the polls that showed it. A point: the values before and after
 * the change. An interval: the values before it, the state during it (its latest observation
 * inside the interval), and apart from that, what the poll that ended it showed (the recovery).
 */
export interface Evidence {
  /** values before the change, or before the interval began */
  readonly before: Readonly<Record<string, string>>;
  /** intervals: the state during the interval, as last observed inside it (empty for points) */
  readonly during: Readonly<Record<string, string>>;
  /** points: the values after the change; intervals: what the poll that ended it showed (empty while ongoing) */
  readonly after: Readonly<Record<string, string>>;
  /** ids of the polls that showed it: first observation, then the one that ended it */
  readonly pollIds: readonly bigint[];
}

/** One timeline entry: an interval (start, end or ongoing) or a point event. */
export interface TimelineEvent {
  /** dotted kind, e.g. `shadow.topic-state`, `connections.storm`, `api.unavailable` */
  readonly kind: string;
  readonly severity: Severity;
  /** `KIND/NAME`, e.g. `broker/3`, `link/dr-primary`, `shadow-topic/dr-primary/orders` */
  readonly entity: string;
  /** other entities it concerns (the link of a topic, the broker of a task, ...) */
  readonly related: readonly string[];
  /** `interval` or `point` */
  readonly type: 'interval' | 'point';
  /** ns since the epoch */
  readonly start: bigint;
  /** ns since the epoch; null while ongoing; equal to start for points */
  readonly end: bigint | null;
  /** it was already in that state at the first observation: the true start lies earlier */
  readonly startedBefore: boolean;
  /** set when the start was dated back: when the event was detected (the poll time that decided it), ns since the epoch */
  readonly detectedAt?: bigint;
  /** one line, untrusted cluster strings included as they are (renderers sanitise) */
  readonly description: string;
  readonly evidence: Evidence;
}

/** One poll's rows of one resource, in poll-time order; `rows` is empty for an empty answer. */
export interface Frame<R> {
  readonly poll: PollRow;
  /** the sample time (the poll's start), ns since the epoch */
  readonly time: bigint;
  readonly rows: readonly R[];
}

/** The time of a poll's samples: when it started (falls back to the scheduled time). */
export function pollTime(poll: PollRow): bigint {
  return poll.startTime !== 0n ? poll.startTime : poll.scheduledTime;
}

/** Builds an entity reference `kind/name/...`. */
export function entity(kind: string, ...names: readonly (string | number | bigint)[]): string {
  // concatenated, no array: detectors name an entity per partition and frame
  let s = kind;
  for (const n of names) s += `/${String(n)}`;
  return s;
}

/** Orders events by start, then severity (highest first), kind and entity. */
export function compareEvents(a: TimelineEvent, b: TimelineEvent): number {
  if (a.start !== b.start) return a.start < b.start ? -1 : 1;
  const s = severityRank(b.severity) - severityRank(a.severity);
  if (s !== 0) return s;
  if (a.kind !== b.kind) return a.kind < b.kind ? -1 : 1;
  return a.entity < b.entity ? -1 : a.entity > b.entity ? 1 : 0;
}
