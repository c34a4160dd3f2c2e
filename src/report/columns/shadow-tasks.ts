/** Columns of `shadow-tasks` (link tasks per broker shard). */
import { TaskState } from '../../api/schema/enums.ts';
import type { ShadowTaskRow } from '../../api/schema/resources.ts';
import { shortEnum } from '../format-units.ts';
import { cell, numberColumn, stateTone, textColumn, type ColumnModel } from './types.ts';

const state = (t: ShadowTaskRow): string => shortEnum(TaskState, t.state);
const tone = stateTone(['ACTIVE'], ['PAUSED', 'NOT_RUNNING'], ['FAULTED', 'LINK_UNAVAILABLE']);

/** The column model of shadow link tasks. */
export const shadowTaskColumns: ColumnModel<ShadowTaskRow> = {
  resource: 'shadow-tasks',
  label: (t) => `${cell(t.shadowLinkName)}/${cell(t.name)} broker ${t.brokerId} shard ${t.shard}`,
  columns: [
    textColumn('link', 'LINK', (t) => cell(t.shadowLinkName), { orderBy: 'shadow_link_name', priority: 3, min: 10 }),
    textColumn('name', 'TASK', (t) => cell(t.name), { orderBy: 'name', priority: 1, min: 12, identity: true }),
    numberColumn('broker', 'BROKER', (t) => String(t.brokerId), { orderBy: 'broker_id' }),
    numberColumn('shard', 'SHARD', (t) => String(t.shard), { orderBy: 'shard' }),
    textColumn('state', 'STATE', state, { tone: (t) => tone(state(t)), orderBy: 'state', priority: 1 }),
    textColumn('reason', 'REASON', (t) => cell(t.reason), { min: 12 }),
  ],
};
