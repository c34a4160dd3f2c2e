/** Columns of `iceberg-topics` and `iceberg-partitions`. */
import { IcebergLifecycleState } from '../../api/schema/enums.ts';
import type { IcebergTopic } from '../../api/schema/iceberg.ts';
import type { IcebergPartitionRow } from '../../api/schema/resources.ts';
import { formatCount, NONE, shortEnum } from '../format-units.ts';
import { DEFAULT_THRESHOLDS } from '../timeline/thresholds.ts';
import { cell, numberColumn, stateTone, textColumn, type ColumnModel } from './types.ts';

/** Commit lag (records) above which a partition is marked: the timeline's iceberg.commitLag threshold. */
export const COMMIT_LAG_WARN = DEFAULT_THRESHOLDS.iceberg.commitLag;

const tone = stateTone(['LIVE'], [], [], ['CLOSED', 'PURGED']);
const topicState = (t: { lifecycleState: string }): string => shortEnum(IcebergLifecycleState, t.lifecycleState);

/** Sum of the commit lag over a topic's partitions. */
export function icebergTopicLag(t: IcebergTopic): bigint {
  let lag = 0n;
  for (const p of t.partitions) lag += p.commitLag;
  return lag;
}

const offset = (v: bigint | undefined): string => (v === undefined ? NONE : String(v));

/** The column model of Iceberg topics. */
export const icebergTopicColumns: ColumnModel<IcebergTopic> = {
  resource: 'iceberg-topics',
  label: (t) => cell(t.topic),
  columns: [
    textColumn('topic', 'TOPIC', (t) => cell(t.topic), { orderBy: 'topic', identity: true }),
    textColumn('state', 'STATE', topicState, { tone: (t) => tone(topicState(t)), orderBy: 'lifecycle_state' }),
    numberColumn('partitions', 'PARTITIONS', (t) => String(t.partitions.length)),
    numberColumn('commitLag', 'COMMIT LAG', (t) => formatCount(icebergTopicLag(t)), {
      tone: (t, ctx) =>
        t.partitions.some((p) => p.commitLag > (ctx?.marks?.commitLag ?? COMMIT_LAG_WARN)) ? 'warn' : undefined,
    }),
  ],
};

/** The column model of Iceberg partitions. */
export const icebergPartitionColumns: ColumnModel<IcebergPartitionRow> = {
  resource: 'iceberg-partitions',
  label: (p) => `${cell(p.topic)}/${p.partition}`,
  columns: [
    textColumn('topic', 'TOPIC', (p) => cell(p.topic), { orderBy: 'topic', priority: 1, min: 12, identity: true }),
    numberColumn('partition', 'PARTITION', (p) => String(p.partition), {
      orderBy: 'partition',
      priority: 1,
      keep: true,
    }),
    textColumn('state', 'STATE', topicState, { tone: (p) => tone(topicState(p)), orderBy: 'lifecycle_state' }),
    numberColumn('translated', 'TRANSLATED', (p) => offset(p.lastTranslatedOffset), {
      orderBy: 'last_translated_offset',
      priority: 3,
    }),
    numberColumn('committed', 'COMMITTED', (p) => offset(p.lastCommittedOffset), {
      orderBy: 'last_committed_offset',
      priority: 3,
    }),
    numberColumn('commitLag', 'COMMIT LAG', (p) => String(p.commitLag), {
      tone: (p, ctx) => (p.commitLag > (ctx?.marks?.commitLag ?? COMMIT_LAG_WARN) ? 'warn' : undefined),
      orderBy: 'commit_lag desc',
      priority: 1,
    }),
  ],
};
