/**
 * The timeline as JSON (events with RFC 3339 UTC times, poll ids as decimal strings), as ndjson
 * (one event per line), and as Grafana annotations (epoch milliseconds, regions for intervals).
 */
import type { JsonValue } from '../../api/codec/lossless-json.ts';
import { formatTimestamp, timestampToMillis } from '../../api/codec/timestamp.ts';
import type { Series } from '../timeline/detector.ts';
import type { Timeline } from '../timeline/timeline.ts';
import type { TimelineEvent } from '../timeline/types.ts';
import { formatJson } from './json.ts';

type Obj = { [key: string]: JsonValue };

/** One event as a JSON object. */
export function eventToJson(e: TimelineEvent): Obj {
  return {
    kind: e.kind,
    severity: e.severity,
    entity: e.entity,
    related: [...e.related],
    type: e.type,
    start: formatTimestamp(e.start),
    end: e.end === null ? null : formatTimestamp(e.end),
    ongoing: e.end === null,
    startedBefore: e.startedBefore,
    // additive: the start was dated back; when the poll that decided it was taken
    ...(e.detectedAt === undefined ? {} : { detectedAt: formatTimestamp(e.detectedAt) }),
    description: e.description,
    evidence: {
      before: { ...e.evidence.before },
      during: { ...(e.evidence.during ?? {}) },
      after: { ...e.evidence.after },
      pollIds: e.evidence.pollIds.map(String),
    },
  };
}

function seriesToJson(s: Series): Obj {
  return {
    name: s.name,
    unit: s.unit,
    points: s.times.map((t, i) => [formatTimestamp(t), s.values[i] as number]),
  };
}

/** The whole timeline as a JSON document. */
export function timelineToJson(t: Timeline, opts: { series?: boolean } = {}): Obj {
  const doc: Obj = {
    cluster: t.cluster ?? null,
    since: formatTimestamp(t.since),
    until: formatTimestamp(t.until),
    polls: { total: t.polls.total, failed: t.polls.failed },
    events: t.events.map(eventToJson),
  };
  if (t.rollups !== undefined)
    doc.rollups = { resolution: `${t.rollups.resolution}s`, before: formatTimestamp(t.rollups.before) };
  if (opts.series !== false) doc.series = t.series.map(seriesToJson);
  return doc;
}

/** `-o json`. */
export function renderTimelineJson(t: Timeline): string {
  return `${formatJson(timelineToJson(t))}\n`;
}

/** `-o ndjson`: one event per line. */
export function renderTimelineNdjson(t: Timeline): string {
  return t.events.map((e) => `${formatJson(eventToJson(e), 0)}\n`).join('');
}

/**
 * `-o annotations`: a JSON array of Grafana annotations (the body of `POST /api/annotations`,
 * one element each): intervals become regions; an ongoing one ends at the window's end and
 * carries the tag `ongoing`.
 */
export function renderTimelineAnnotations(t: Timeline): string {
  const items: Obj[] = t.events.map((e) => {
    const tags: JsonValue[] = ['flightrec', e.severity, e.kind, e.entity.split('/')[0] ?? ''];
    if (e.end === null) tags.push('ongoing');
    const a: Obj = {
      time: timestampToMillis(e.start),
      tags,
      text: `[${e.severity}] ${e.kind} ${e.entity}: ${e.description}`,
    };
    if (e.type === 'interval') {
      a.timeEnd = timestampToMillis(e.end ?? t.until);
      a.isRegion = true;
    }
    return a;
  });
  return `${formatJson(items)}\n`;
}
