/**
 * The timeline's events kept with the rollups: to and from their stored JSON form (int64 values
 * as decimal strings), and merged into a timeline for the part of a window raw history no longer
 * covers.
 */
import type { StoredEvent } from '../../db/rollups/rollup-store.ts';
import { compareEvents, type Evidence, type TimelineEvent } from '../timeline/types.ts';

interface EventJson extends Omit<TimelineEvent, 'start' | 'end' | 'detectedAt' | 'evidence'> {
  readonly start: string;
  readonly end: string | null;
  readonly detectedAt?: string;
  readonly evidence: Omit<Evidence, 'pollIds'> & { readonly pollIds: readonly string[] };
}

/** The stored form of an event. */
export function storeEvent(e: TimelineEvent): StoredEvent {
  const { detectedAt, ...rest } = e;
  const json: EventJson = {
    ...rest,
    start: String(e.start),
    end: e.end === null ? null : String(e.end),
    ...(detectedAt === undefined ? {} : { detectedAt: String(detectedAt) }),
    evidence: { ...e.evidence, pollIds: e.evidence.pollIds.map(String) },
  };
  return { kind: e.kind, entity: e.entity, start: e.start, end: e.end, body: JSON.stringify(json) };
}

/** An event from its stored form. */
export function keptEvent(s: StoredEvent): TimelineEvent {
  const { detectedAt, ...j } = JSON.parse(s.body) as EventJson;
  return {
    ...j,
    start: s.start,
    end: s.end,
    ...(detectedAt === undefined ? {} : { detectedAt: BigInt(detectedAt) }),
    evidence: { ...j.evidence, pollIds: j.evidence.pollIds.map((id) => BigInt(id)) },
  };
}

const sameThing = (a: { kind: string; entity: string }, b: { kind: string; entity: string }): boolean =>
  a.kind === b.kind && a.entity === b.entity;

/**
 * The events of a new rollup pass to store, and the stored ones they replace: an event the pass
 * saw from its first poll on (`startedBefore`, or starting at `since`) continues a stored
 * ongoing one of the same kind and entity, which keeps its start and takes the new end.
 */
export function eventsToStore(
  found: readonly TimelineEvent[],
  stored: readonly StoredEvent[],
  since: bigint | undefined,
  until: bigint,
): { write: StoredEvent[]; replaced: StoredEvent[] } {
  const ongoing = stored.filter((s) => s.end === null);
  const write: StoredEvent[] = [];
  const replaced: StoredEvent[] = [];
  for (const e of found) {
    if (e.start >= until) continue;
    const continues = since !== undefined && (e.startedBefore || e.start <= since);
    const earlier = continues
      ? ongoing.find((s) => sameThing(s, e) && s.start <= e.start && !replaced.includes(s))
      : undefined;
    if (earlier === undefined) {
      write.push(storeEvent(e));
      continue;
    }
    const old = keptEvent(earlier);
    replaced.push(earlier);
    write.push(
      storeEvent({
        ...e,
        start: old.start,
        startedBefore: old.startedBefore,
        evidence: { ...e.evidence, before: old.evidence.before },
      }),
    );
  }
  return { write, replaced };
}

/**
 * Merges kept events into the events found in what raw history remains. Kept events start
 * before `before` (how far the rollups reach); a raw event with the same kind, entity and start is
 * the same event (the raw one is shown), and a raw event seen from the first remaining poll
 * (`startedBefore`) that continues a kept one takes the kept one's start.
 */
export function mergeKeptEvents(
  raw: readonly TimelineEvent[],
  kept: readonly TimelineEvent[],
  before: bigint,
): TimelineEvent[] {
  const early = kept.filter((k) => k.start < before);
  const out: TimelineEvent[] = [];
  const used = new Set<TimelineEvent>();
  for (const e of raw) {
    const same = early.find((x) => !used.has(x) && sameThing(x, e) && x.start === e.start);
    const k =
      same ??
      (e.startedBefore
        ? early.find(
            (x) => !used.has(x) && sameThing(x, e) && x.start < e.start && (x.end === null || x.end >= e.start),
          )
        : undefined);
    if (k === undefined) {
      out.push(e);
      continue;
    }
    used.add(k);
    out.push(
      same !== undefined
        ? e
        : {
            ...e,
            start: k.start,
            startedBefore: k.startedBefore,
            description: k.description,
            evidence: { ...e.evidence, before: k.evidence.before },
          },
    );
  }
  for (const k of early) if (!used.has(k)) out.push(k);
  return out.sort(compareEvents);
}
