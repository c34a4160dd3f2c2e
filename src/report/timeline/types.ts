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

/** What supports an event: values before and after, and the polls that showed them. */
export interface Evidence {
  /** values before the change (or at the start of the interval) */
  readonly before: Readonly<Record<string, string>>;
  /** values after the change (or at the end / latest observation of the interval) */
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
  return [kind, ...names.map(String)].join('/');
}

/** Orders events by start, then severity (highest first), kind and entity. */
export function compareEvents(a: TimelineEvent, b: TimelineEvent): number {
  if (a.start !== b.start) return a.start < b.start ? -1 : 1;
  const s = severityRank(b.severity) - severityRank(a.severity);
  if (s !== 0) return s;
  if (a.kind !== b.kind) return a.kind < b.kind ? -1 : 1;
  return a.entity < b.entity ? -1 : a.entity > b.entity ? 1 : 0;
}
