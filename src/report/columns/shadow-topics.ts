/** Columns of `shadow-topics`. */
import { ShadowTopicState } from '../../api/schema/enums.ts';
import type { ShadowTopicRow } from '../../api/schema/resources.ts';
import { formatCount, shortEnum } from '../format-units.ts';
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
    textColumn('link', 'LINK', (t) => cell(t.shadowLinkName), { orderBy: 'shadow_link_name' }),
    textColumn('name', 'NAME', (t) => cell(t.name), { orderBy: 'name' }),
    textColumn('source', 'SOURCE TOPIC', (t) => cell(t.sourceTopicName), { orderBy: 'source_topic_name' }),
    textColumn('state', 'STATE', state, { tone: (t) => tone(state(t)), orderBy: 'status.state' }),
    numberColumn('partitions', 'PARTITIONS', (t) => String(t.status.partitionInformation.length)),
    numberColumn('lag', 'LAG', (t) => formatCount(shadowTopicLag(t)), {
      tone: (t) => (shadowTopicLag(t) > 0n ? 'warn' : undefined),
    }),
    textColumn('topicId', 'TOPIC ID', (t) => cell(t.topicId), { wide: true, orderBy: 'topic_id' }),
    textColumn('sourceTopicId', 'SOURCE TOPIC ID', (t) => cell(t.sourceTopicId), { wide: true }),
  ],
};
