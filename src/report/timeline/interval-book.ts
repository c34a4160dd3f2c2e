/**
 * Bookkeeping shared by the detectors: intervals opened and closed per key, with their
 * evidence, and point events; `finish` turns what is still open into ongoing intervals. For an
 * interval, the values given when it opens or is updated describe it (`during`); the values
 * given when it ends describe the recovery (`after`), kept apart.
 */
import { maxSeverity, type Severity, type TimelineEvent } from './types.ts';

/** What a detector says when an interval opens. */
export interface OpenSpec {
  readonly kind: string;
  readonly severity: Severity;
  readonly entity: string;
  readonly related?: readonly string[];
  readonly start: bigint;
  readonly description: string;
  readonly before?: Record<string, string>;
  /** points: the values after the change; intervals opened with `start`: the state during it */
  readonly after?: Record<string, string>;
  /** `closed` intervals: the state during it (`after` is then the recovery) */
  readonly during?: Record<string, string>;
  readonly pollId: bigint;
  readonly startedBefore?: boolean;
}

interface Open {
  kind: string;
  severity: Severity;
  entity: string;
  related: readonly string[];
  start: bigint;
  description: string;
  before: Record<string, string>;
  during: Record<string, string>;
  after: Record<string, string>;
  pollIds: bigint[];
  startedBefore: boolean;
}

const MAX_POLL_IDS = 6;

function addPollId(ids: bigint[], id: bigint): void {
  if (ids[ids.length - 1] === id) return;
  if (ids.length < MAX_POLL_IDS) ids.push(id);
  else ids[ids.length - 1] = id;
}

/** Open intervals by key, and the events produced so far. */
export class IntervalBook {
  readonly #open = new Map<string, Open>();
  readonly #done: TimelineEvent[] = [];

  /** True when an interval is open under `key`. */
  has(key: string): boolean {
    return this.#open.has(key);
  }

  /** Opens an interval under `key` (a no-op when one is open already). */
  start(key: string, spec: OpenSpec): void {
    if (this.#open.has(key)) return;
    this.#open.set(key, {
      kind: spec.kind,
      severity: spec.severity,
      entity: spec.entity,
      related: spec.related ?? [],
      start: spec.start,
      description: spec.description,
      before: spec.before ?? {},
      during: { ...(spec.during ?? {}), ...(spec.after ?? {}) },
      after: {},
      pollIds: [spec.pollId],
      startedBefore: spec.startedBefore ?? false,
    });
  }

  /** Updates an open interval: raises its severity, refreshes the description and the state during it (`after`). */
  update(
    key: string,
    u: { severity?: Severity; description?: string; after?: Record<string, string>; pollId?: bigint },
  ): void {
    const o = this.#open.get(key);
    if (o === undefined) return;
    if (u.severity !== undefined) o.severity = maxSeverity(o.severity, u.severity);
    if (u.description !== undefined) o.description = u.description;
    if (u.after !== undefined) Object.assign(o.during, u.after);
    if (u.pollId !== undefined) addPollId(o.pollIds, u.pollId);
  }

  /** Closes the interval under `key` at `end`, with what the ending poll showed (`after`); false when none was open. */
  end(key: string, end: bigint, pollId: bigint, after?: Record<string, string>): boolean {
    const o = this.#open.get(key);
    if (o === undefined) return false;
    this.#open.delete(key);
    if (after !== undefined) Object.assign(o.after, after);
    addPollId(o.pollIds, pollId);
    this.#done.push(this.#toEvent(o, end < o.start ? o.start : end));
    return true;
  }

  /** Records an interval whose start and end are both known already (`during` describes it, `after` the ending poll). */
  closed(spec: OpenSpec & { readonly end: bigint; readonly endPollId: bigint }): void {
    const ids = [spec.pollId];
    addPollId(ids, spec.endPollId);
    this.#done.push({
      kind: spec.kind,
      severity: spec.severity,
      entity: spec.entity,
      related: spec.related ?? [],
      type: 'interval',
      start: spec.start,
      end: spec.end,
      startedBefore: spec.startedBefore ?? false,
      description: spec.description,
      evidence: { before: spec.before ?? {}, during: spec.during ?? {}, after: spec.after ?? {}, pollIds: ids },
    });
  }

  /** Records a point event. */
  point(spec: Omit<OpenSpec, 'startedBefore'>): void {
    this.#done.push({
      kind: spec.kind,
      severity: spec.severity,
      entity: spec.entity,
      related: spec.related ?? [],
      type: 'point',
      start: spec.start,
      end: spec.start,
      startedBefore: false,
      description: spec.description,
      evidence: { before: spec.before ?? {}, during: {}, after: spec.after ?? {}, pollIds: [spec.pollId] },
    });
  }

  /** Every event: closed intervals, points, and the open intervals as ongoing. */
  finish(): TimelineEvent[] {
    const out = this.#done.slice();
    for (const o of this.#open.values()) out.push(this.#toEvent(o, null));
    return out;
  }

  #toEvent(o: Open, end: bigint | null): TimelineEvent {
    return {
      kind: o.kind,
      severity: o.severity,
      entity: o.entity,
      related: o.related,
      type: 'interval',
      start: o.start,
      end,
      startedBefore: o.startedBefore,
      description: o.description,
      evidence: { before: o.before, during: o.during, after: o.after, pollIds: o.pollIds },
    };
  }
}
