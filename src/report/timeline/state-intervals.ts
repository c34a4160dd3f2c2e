/**
 * Enum state machines seen through polls: every stretch in an abnormal state becomes an
 * interval (start at the first poll showing it, end at the first poll showing another state).
 * Shared by link, task, topic and Iceberg lifecycle detectors.
 */
import type { IntervalBook } from './interval-book.ts';
import type { Severity } from './types.ts';

/** How one state machine is reported. */
export interface StateSpec {
  /** event kind, e.g. `shadow.task-state` */
  readonly kind: string;
  /** the enum prefix to drop in descriptions, e.g. `TASK_STATE_` */
  readonly prefix: string;
  /** severity per abnormal state; states not listed (the normal ones) open no interval */
  readonly severity: Readonly<Record<string, Severity>>;
}

/** What one observation says about an entity. */
export interface StateObservation {
  readonly key: string;
  readonly entity: string;
  readonly related?: readonly string[];
  /** what the entity is, for the description: `task source_topic_sync on broker 1` */
  readonly label: string;
  readonly state: string;
  /** why (task reason, error code), shown after the state */
  readonly reason?: string;
  readonly time: bigint;
  readonly pollId: bigint;
  /** this is the first poll of the stream: an abnormal state started before it */
  readonly first: boolean;
}

interface Last {
  state: string;
  reason: string;
}

/** Drops an enum prefix (`TASK_STATE_FAULTED` → `FAULTED`). */
export function shortState(prefix: string, state: string): string {
  return state.startsWith(prefix) ? state.slice(prefix.length) : state;
}

/** Tracks the states of many entities of one kind. */
export class StateIntervals {
  readonly #last = new Map<string, Last>();
  readonly #book: IntervalBook;
  readonly #spec: StateSpec;

  constructor(book: IntervalBook, spec: StateSpec) {
    this.#book = book;
    this.#spec = spec;
  }

  /** Records the state of one entity at one poll. */
  observe(o: StateObservation): void {
    const reason = o.reason ?? '';
    const prev = this.#last.get(o.key);
    const short = shortState(this.#spec.prefix, o.state);
    const text = `${o.label}: ${short}${reason !== '' ? ` (${reason})` : ''}`;
    if (prev !== undefined && prev.state === o.state) {
      if (prev.reason !== reason) {
        this.#book.update(o.key, { description: text, after: { state: short, reason }, pollId: o.pollId });
        prev.reason = reason;
      }
      return;
    }
    const before: Record<string, string> =
      prev === undefined ? {} : { state: shortState(this.#spec.prefix, prev.state), reason: prev.reason };
    if (prev !== undefined) this.#book.end(o.key, o.time, o.pollId, { state: short, reason });
    this.#last.set(o.key, { state: o.state, reason });
    const severity = this.#spec.severity[o.state];
    if (severity === undefined) return;
    this.#book.start(o.key, {
      kind: this.#spec.kind,
      severity,
      entity: o.entity,
      related: o.related,
      start: o.time,
      description: prev === undefined ? text : `${text}, was ${before.state ?? ''}`,
      before,
      after: { state: short, reason },
      pollId: o.pollId,
      startedBefore: prev === undefined && o.first,
    });
  }

  /** The entity is no longer listed: its interval (if any) ends here. */
  gone(key: string, time: bigint, pollId: bigint): void {
    if (!this.#last.has(key)) return;
    this.#last.delete(key);
    this.#book.end(key, time, pollId, { state: '(gone)' });
  }

  /** The keys currently tracked. */
  keys(): IterableIterator<string> {
    return this.#last.keys();
  }
}
