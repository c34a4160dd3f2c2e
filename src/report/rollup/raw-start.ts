/**
 * Where raw history starts, for deciding what rollups answer for: the first recorded connection
 * poll (the newest poll of an operation no longer polled may be kept long after the rest is
 * pruned), else the first poll of any operation.
 */
import type { ReportReader } from '../query.ts';
import { pollTime } from '../timeline/types.ts';

/** The time of the first raw poll that tells where pruned history ends (undefined: nothing recorded). */
export function rawStart(source: Pick<ReportReader, 'polls'>, cluster: string | undefined): bigint | undefined {
  const first =
    source.polls({ cluster, operation: 'ListKafkaConnections', limit: 1 })[0] ?? source.polls({ cluster, limit: 1 })[0];
  return first === undefined ? undefined : pollTime(first);
}
