/**
 * How fresh an as-of answer is, rendered: a JSON object (`stale`, and per operation its newest
 * poll, the schedule interval and the age) and a one-line warning for stderr when it is stale.
 */
import type { JsonValue } from '../../api/codec/lossless-json.ts';
import { encodeInt64 } from '../../api/codec/int64.ts';
import { formatWireDuration } from '../../api/codec/duration.ts';
import { formatTimestamp } from '../../api/codec/timestamp.ts';
import { formatDuration, formatTime } from '../format-units.ts';
import type { Freshness } from '../freshness.ts';

/** The freshness as JSON: `asOf`, `stale`, and per operation its newest poll, interval and age. */
export function freshnessToJson(f: Freshness): { [key: string]: JsonValue } {
  return {
    asOf: formatTimestamp(f.asOf),
    stale: f.stale,
    operations: f.operations.map((o) => ({
      operation: o.operation,
      pollId: encodeInt64(o.newest.id),
      observedAt: formatTimestamp(o.newest.startTime),
      age: formatWireDuration(o.ageNs),
      interval: formatWireDuration(o.intervalNs),
      intervalFrom: o.intervalFrom,
      stale: o.stale,
    })),
  };
}

/**
 * Why an answer is stale, in one line (undefined when it is not): `connections at T: stale: the
 * newest ListKafkaConnections poll (352 at T') is 6m00s old, more than twice its schedule
 * interval (30s)`.
 */
export function staleNote(what: string, f: Freshness): string | undefined {
  if (!f.stale) return undefined;
  const head = `${what} at ${formatTime(f.asOf)}: stale`;
  if (f.operations.length === 0) return `${head}: no successful poll at or before it`;
  const stale = f.operations.filter((o) => o.stale);
  if (stale.length > 2) {
    const oldest = stale.reduce((a, b) => (b.ageNs > a.ageNs ? b : a));
    return (
      `${head}: the newest polls of ${stale.length} operations (${stale.map((o) => o.operation).join(', ')}) are older than twice their schedule intervals; ` +
      `the oldest, ${oldest.operation} poll ${oldest.newest.id} at ${formatTime(oldest.newest.startTime)}, is ${formatDuration(oldest.ageNs)} old`
    );
  }
  const parts = stale.map(
    (o) =>
      `the newest ${o.operation} poll (${o.newest.id} at ${formatTime(o.newest.startTime)}) is ${formatDuration(o.ageNs)} old, ` +
      `more than twice its schedule interval (${formatDuration(o.intervalNs)}${o.intervalFrom === 'default' ? ', the default schedule' : ''})`,
  );
  return `${head}: ${parts.join('; ')}`;
}
