/**
 * What changed between two looks at the timeline: the live detectors give every event they know
 * at each step (closed ones and the ongoing ones), and the tracker turns that into transitions:
 * an event that appears opens (already ended when it was found ended, a point or an event dated
 * back), an ongoing one whose severity rises escalates, an ongoing one that ends ends. An event
 * is known by its kind, entity and start.
 */
import { severityRank, type TimelineEvent } from '../report/timeline/types.ts';

/** One change of an event, as the live timeline saw it. */
export interface LiveTransition {
  /** `opened` (with `event.end` set when it was found already ended), `escalated`, `ended` */
  readonly change: 'opened' | 'escalated' | 'ended';
  readonly cluster: string;
  /** the event as known now (its start is the one it was first announced with) */
  readonly event: TimelineEvent;
  /** time of the newest poll read when the change was seen, ns since the epoch */
  readonly detectedAt: bigint;
}

/** The identity of an event: kind, entity and start. */
export function eventKey(e: Pick<TimelineEvent, 'kind' | 'entity' | 'start'>): string {
  return `${e.kind}\u0000${e.entity}\u0000${e.start}`;
}

/** The identity of what an event is about, whatever its start: kind and entity. */
function subjectKey(e: Pick<TimelineEvent, 'kind' | 'entity'>): string {
  return `${e.kind}\u0000${e.entity}`;
}

/**
 * The events of one look, one per identity: when a detector reports an identity twice (an
 * ongoing interval and a closed one with the same start), the closed one wins.
 */
export function uniqueEvents(events: readonly TimelineEvent[]): Map<string, TimelineEvent> {
  const out = new Map<string, TimelineEvent>();
  for (const e of events) {
    const key = eventKey(e);
    const seen = out.get(key);
    if (seen === undefined || (seen.end === null && e.end !== null)) out.set(key, e);
  }
  return out;
}

interface Known {
  event: TimelineEvent;
}

/** Transitions of one cluster's events from one look to the next; see the module comment. */
export class EventTracker {
  readonly #cluster: string;
  /** every event announced and not forgotten, by identity */
  readonly #known = new Map<string, Known>();
  /** identities of a new generation of detectors that stand for an event announced under another start */
  #aliases = new Map<string, string>();

  constructor(cluster: string) {
    this.#cluster = cluster;
  }

  /** Events announced and still ongoing. */
  get ongoing(): TimelineEvent[] {
    return [...this.#known.values()].filter((k) => k.event.end === null).map((k) => k.event);
  }

  /** Every event announced (in its latest state), for the equality with `timeline`. */
  get announced(): TimelineEvent[] {
    return [...this.#known.values()].map((k) => k.event);
  }

  /**
   * The transitions from the events known to `events` (every event the detectors know now).
   * With `quiet`, events already ended are taken as known without a word (the warm-up of a
   * collector that starts on a recording: what ended before it started is not news).
   */
  look(events: readonly TimelineEvent[], detectedAt: bigint, quiet = false): LiveTransition[] {
    const out: LiveTransition[] = [];
    for (const [rawKey, raw] of uniqueEvents(events)) {
      const key = this.#aliases.get(rawKey) ?? rawKey;
      const e = key === rawKey ? raw : { ...raw, start: this.#known.get(key)?.event.start ?? raw.start };
      const known = this.#known.get(key);
      if (known === undefined) {
        this.#known.set(key, { event: e });
        if (!(quiet && e.end !== null)) out.push(this.#transition('opened', e, detectedAt));
        continue;
      }
      const before = known.event;
      if (before.end !== null) continue;
      known.event = e;
      if (e.end !== null) out.push(this.#transition('ended', e, detectedAt));
      else if (severityRank(e.severity) > severityRank(before.severity))
        out.push(this.#transition('escalated', e, detectedAt));
    }
    return out;
  }

  /**
   * Takes over from a new generation of detectors (started on a recent window to bound memory):
   * its ongoing events that stand for ongoing ones already announced (same kind and entity) keep
   * the identity they were announced with; announced ongoing events it does not see end at
   * `until`; ended events are forgotten unless the new generation still reports them.
   */
  rebase(events: readonly TimelineEvent[], until: bigint): LiveTransition[] {
    const fresh = uniqueEvents(events);
    const openBySubject = new Map<string, string>();
    for (const [key, k] of this.#known) if (k.event.end === null) openBySubject.set(subjectKey(k.event), key);
    const aliases = new Map<string, string>();
    const kept = new Map<string, Known>();
    const out: LiveTransition[] = [];
    for (const [key, e] of fresh) {
      const same = this.#known.get(key);
      if (same !== undefined) {
        kept.set(key, same);
        continue;
      }
      const old = e.end === null ? openBySubject.get(subjectKey(e)) : undefined;
      if (old !== undefined && !fresh.has(old)) {
        aliases.set(key, old);
        kept.set(old, this.#known.get(old)!);
        continue;
      }
      // what the new generation reports and the old one never announced
      kept.set(key, { event: e });
      if (e.end === null) out.push(this.#transition('opened', e, until));
    }
    for (const [key, k] of this.#known) {
      if (k.event.end !== null || kept.has(key)) continue;
      const ended = { ...k.event, end: until < k.event.start ? k.event.start : until };
      out.push(this.#transition('ended', ended, until));
    }
    this.#known.clear();
    for (const [key, k] of kept) this.#known.set(key, k);
    this.#aliases = aliases;
    return out;
  }

  #transition(change: LiveTransition['change'], event: TimelineEvent, detectedAt: bigint): LiveTransition {
    return { change, cluster: this.#cluster, event, detectedAt };
  }
}
