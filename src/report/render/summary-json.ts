/** The summary as JSON: the abnormal events in full, the changes by kind, the headline figures. */
import type { JsonValue } from '../../api/codec/lossless-json.ts';
import { formatTimestamp } from '../../api/codec/timestamp.ts';
import type { Summary } from '../summary.ts';
import { freshnessToJson } from './freshness.ts';
import { formatJson } from './json.ts';
import { eventToJson } from './timeline-json.ts';

/** The summary as a JSON document. */
export function summaryToJson(s: Summary): { [key: string]: JsonValue } {
  return {
    cluster: s.cluster ?? null,
    since: formatTimestamp(s.since),
    until: formatTimestamp(s.until),
    // additive: when the newest poll was taken, and whether the recording is stale at `until`
    ...(s.freshness === undefined
      ? {}
      : {
          observedAt: s.freshness.observedAt === undefined ? null : formatTimestamp(s.freshness.observedAt),
          stale: s.freshness.stale,
          freshness: freshnessToJson(s.freshness),
        }),
    ...(s.rollups === undefined
      ? {}
      : { rollups: { resolution: `${s.rollups.resolution}s`, before: formatTimestamp(s.rollups.before) } }),
    // additive: "now" is the end of a recording that stopped before the summary was made
    ...(s.recordingEnd === undefined
      ? {}
      : {
          recordingEnd: {
            at: formatTimestamp(s.recordingEnd.at),
            agoSeconds: Number(s.recordingEnd.ago / 1_000_000_000n),
          },
        }),
    abnormal: s.abnormal.map(eventToJson),
    changes: s.changes.map((c) => ({
      kind: c.kind,
      count: c.count,
      severity: c.severity,
      entities: [...c.entities],
      first: formatTimestamp(c.first),
      last: formatTimestamp(c.last),
      // additive: how many are still open at `until` (`last` is then `until`, not an end seen)
      open: c.open,
    })),
    events: s.eventCount,
    figures: s.figures.map((f) => ({
      name: f.name,
      unit: f.unit,
      now: f.now ?? null,
      start: f.start ?? null,
      max: f.max ?? null,
    })),
    polls: { total: s.polls.total, failed: s.polls.failed },
  };
}

/** `-o json`. */
export function renderSummaryJson(s: Summary): string {
  return `${formatJson(summaryToJson(s))}\n`;
}
