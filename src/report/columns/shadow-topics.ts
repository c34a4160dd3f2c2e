/** Columns of `shadow-topics`. */
import { ShadowTopicState } from '../../api/schema/enums.ts';
import type { ShadowTopicRow } from '../../api/schema/resources.ts';
import { formatCount, shortEnum } from '../format-units.ts';
import { LAG_WARN } from './shadow-partitions.ts';
import { cell, numberColumn, stateTone, textColumn, type ColumnModel } from './types.ts';

const state = (t: ShadowTopicRow): string => shortEnum(ShadowTopicState, t.status.state);
const tone = stateTone(['ACTIVE', 'PROMOTED', 'FAILED_OVER'], ['PAUSED', 'FAILING_OVER', 'PROMOTING'], ['FAULTED']);

/** Sum of `sourceHighWatermark - highWatermark` over the topic's partitions. */
export function shadowTopicLag(t: ShadowTopicRow): bigint {
  let lag = 0n;
  for (const p of t.status.partitionInformation) lag += p.sourceHighWatermark - p.highWatermark;
  return lag;
}

/** The column model of shadow topics. */
export const shadowTopicColumns: ColumnModel<ShadowTopicRow> = {
  resource: 'shadow-topics',
  label: (t) => `${cell(t.shadowLinkName)}/${cell(t.name)}`,
  columns: [
    textColumn('link', 'LINK', (t) => cell(t.shadowLinkName), { orderBy: 'shadow_link_name', priority: 3, min: 10 }),
    textColumn('name', 'NAME', (t) => cell(t.name), { orderBy: 'name', priority: 1, min: 12, identity: true }),
    textColumn('source', 'SOURCE TOPIC', (t) => cell(t.sourceTopicName), { orderBy: 'source_topic_name', priority: 3 }),
    textColumn('state', 'STATE', state, { tone: (t) => tone(state(t)), orderBy: 'status.state', priority: 1 }),
    numberColumn('partitions', 'PARTITIONS', (t) => String(t.status.partitionInformation.length)),
    numberColumn('lag', 'LAG', (t) => formatCount(shadowTopicLag(t)), {
      tone: (t, ctx) =>
        t.status.partitionInformation.some(
          (p) => p.sourceHighWatermark - p.highWatermark > (ctx?.marks?.shadowLag ?? LAG_WARN),
        )
          ? 'warn'
          : undefined,
      priority: 1,
    }),
    textColumn('topicId', 'TOPIC ID', (t) => cell(t.topicId), { wide: true, orderBy: 'topic_id' }),
    textColumn('sourceTopicId', 'SOURCE TOPIC ID', (t) => cell(t.sourceTopicId), { wide: true }),
  ],
};
