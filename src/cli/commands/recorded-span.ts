/** The span a recording covers, for messages about an instant outside it (a few indexed reads, not a scan). */
import { formatTimestampShort } from '../../api/codec/timestamp.ts';
import { OPERATION_NAMES, type OperationName } from '../../api/schema/operations.ts';
import type { PollRow } from '../../api/schema/resources.ts';

/** What the span needs of the history reader. */
export interface SpanReader {
  polls(q: { cluster?: string; limit?: number }): PollRow[];
  recentPolls(q: { cluster?: string; operation: OperationName; until: bigint; limit: number }): PollRow[];
}

/** Later than any poll: the largest instant the store keeps (int64 nanoseconds, in 2262). */
const END_NS = (1n << 63n) - 1n;

/** The first and last poll of the recording (of `cluster`), or undefined when it holds none. */
export function recordedSpan(
  reader: SpanReader,
  cluster: string | undefined,
): { first: bigint; last: bigint } | undefined {
  const first = reader.polls({ cluster, limit: 1 })[0];
  if (first === undefined) return undefined;
  let last = first.startTime;
  for (const operation of OPERATION_NAMES) {
    const p = reader.recentPolls({ cluster, operation, until: END_NS, limit: 1 })[0];
    if (p !== undefined && p.startTime > last) last = p.startTime;
  }
  return { first: first.startTime, last };
}

/** `the recording spans 2026-01-01T00:00:00Z to 2026-01-01T00:25:00Z` (or that it holds no poll). */
export function spanText(span: { first: bigint; last: bigint } | undefined): string {
  return span === undefined
    ? 'the recording holds no poll'
    : `the recording spans ${formatTimestampShort(span.first)} to ${formatTimestampShort(span.last)}`;
}
