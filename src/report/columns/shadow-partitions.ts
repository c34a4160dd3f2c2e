/** Columns of `shadow-partitions` (with the derived lag). */
import type { ShadowPartitionRow } from '../../api/schema/resources.ts';
import { formatAgeShort, formatTime } from '../format-units.ts';
import { DEFAULT_THRESHOLDS } from '../timeline/thresholds.ts';
import { cell, numberColumn, textColumn, type ColumnModel } from './types.ts';

/** Lag (records) above which a partition is marked: the timeline's shadow.lagRecords threshold. */
export const LAG_WARN = DEFAULT_THRESHOLDS.shadow.lagRecords;

/** The column model of shadow partitions. */
export const shadowPartitionColumns: ColumnModel<ShadowPartitionRow> = {
  resource: 'shadow-partitions',
  label: (p) => `${cell(p.shadowLinkName)}/${cell(p.topicName)}/${p.partitionId}`,
  columns: [
    textColumn('link', 'LINK', (p) => cell(p.shadowLinkName), { orderBy: 'shadow_link_name', priority: 3, min: 10 }),
    textColumn('topic', 'TOPIC', (p) => cell(p.topicName), { orderBy: 'topic_name', priority: 3, min: 10 }),
    numberColumn('partition', 'PARTITION', (p) => String(p.partitionId), {
      orderBy: 'partition_id',
      priority: 1,
      identity: true,
    }),
    numberColumn('hwm', 'HWM', (p) => String(p.highWatermark), { orderBy: 'high_watermark', priority: 3 }),
    numberColumn('sourceHwm', 'SOURCE HWM', (p) => String(p.sourceHighWatermark), {
      orderBy: 'source_high_watermark',
      priority: 3,
    }),
    numberColumn('lag', 'LAG', (p) => String(p.lag), {
      tone: (p, ctx) => (p.lag > (ctx?.marks?.shadowLag ?? LAG_WARN) ? 'warn' : undefined),
      orderBy: 'lag desc',
      priority: 1,
    }),
    numberColumn('updated', 'UPDATED', (p, ctx) => formatAgeShort(p.sourceLastUpdatedTimestamp, ctx.now), {
      orderBy: 'source_last_updated_timestamp',
    }),
    numberColumn('sourceLso', 'SOURCE LSO', (p) => String(p.sourceLastStableOffset), { wide: true }),
    textColumn('updatedAt', 'UPDATED AT', (p) => formatTime(p.sourceLastUpdatedTimestamp), { wide: true }),
  ],
};
