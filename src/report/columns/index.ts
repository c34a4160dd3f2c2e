/** The column models of every resource, and the table view built from them (text output and TUI). */
import type { KafkaConnection } from '../../api/schema/connection.ts';
import type { IcebergTopic } from '../../api/schema/iceberg.ts';
import type {
  IcebergPartitionRow,
  PollRow,
  ResourceName,
  ShadowPartitionRow,
  ShadowTaskRow,
  ShadowTopicRow,
} from '../../api/schema/resources.ts';
import type { ShadowLink } from '../../api/schema/shadow-link.ts';
import type { MemberVersion, UpgradeStatus } from '../../api/schema/upgrade.ts';
import { formatTime } from '../format-units.ts';
import { connectionColumns } from './connections.ts';
import { icebergPartitionColumns, icebergTopicColumns } from './iceberg.ts';
import { pollColumns } from './polls.ts';
import { shadowLinkColumns } from './shadow-links.ts';
import { shadowPartitionColumns } from './shadow-partitions.ts';
import { shadowTaskColumns } from './shadow-tasks.ts';
import { shadowTopicColumns } from './shadow-topics.ts';
import type { LayoutSpec } from './layout.ts';
import type { ColumnContext, ColumnModel, Tone } from './types.ts';
import { upgradeColumns, upgradeMemberColumns } from './upgrade.ts';

export type { Column, ColumnContext, ColumnModel, LagMarks, Tone } from './types.ts';
export {
  elide,
  layoutTable,
  measureText,
  sampleIndexes,
  type ColumnFit,
  type Elision,
  type LayoutSpec,
} from './layout.ts';
export { cell, quoted } from './types.ts';
export { describeAclFilter, describeAuthentication, describeNameFilter, describeTls } from './shadow-links.ts';
export { shadowTopicLag } from './shadow-topics.ts';
export { COMMIT_LAG_WARN, icebergTopicLag } from './iceberg.ts';
export { LAG_WARN } from './shadow-partitions.ts';

/** The decoded row type of each resource. */
export interface ResourceRows {
  connections: KafkaConnection;
  'shadow-links': ShadowLink;
  'shadow-tasks': ShadowTaskRow;
  'shadow-topics': ShadowTopicRow;
  'shadow-partitions': ShadowPartitionRow;
  upgrade: UpgradeStatus;
  'upgrade-members': MemberVersion;
  'iceberg-topics': IcebergTopic;
  'iceberg-partitions': IcebergPartitionRow;
  polls: PollRow;
}

/** Every resource's column model. */
export const COLUMN_MODELS: { readonly [R in ResourceName]: ColumnModel<ResourceRows[R]> } = {
  connections: connectionColumns,
  'shadow-links': shadowLinkColumns,
  'shadow-tasks': shadowTaskColumns,
  'shadow-topics': shadowTopicColumns,
  'shadow-partitions': shadowPartitionColumns,
  upgrade: upgradeColumns,
  'upgrade-members': upgradeMemberColumns,
  'iceberg-topics': icebergTopicColumns,
  'iceberg-partitions': icebergPartitionColumns,
  polls: pollColumns,
};

/** One header of a table view, and how the column gives way on a narrow terminal (see layout.ts). */
export interface ViewColumn extends LayoutSpec {
  readonly id: string;
}

/** One row of a table view: display texts and their tones, parallel to the columns. */
export interface ViewRow {
  readonly cells: readonly string[];
  readonly tones: readonly (Tone | undefined)[];
}

/** A resource table ready to draw: the same data for the text renderer and the TUI. */
export interface TableView {
  readonly columns: readonly ViewColumn[];
  readonly rows: readonly ViewRow[];
}

/** A row to show with the instant it was observed (ages are computed against it). */
export interface ViewItem {
  readonly row: object;
  /** observation time (poll start), ns since the epoch */
  readonly observedAt: bigint;
}

/** Tones as small numbers (0: none), so that a row's tones make one number (a key of tableView's shared arrays). */
const TONE_CODE: { readonly [T in Tone]: number } = { ok: 1, warn: 2, error: 3, dim: 4 };
const TONE_CODES = 5;
const MAX_KEYED_TONES = 20;

function toneCode(tone: Tone | undefined): number {
  return tone === undefined ? 0 : TONE_CODE[tone];
}

/** Builds the table view of rows of a resource; `timeColumn` adds the poll time first (range queries). */
export function tableView(
  resource: ResourceName,
  items: readonly ViewItem[],
  opts: { wide?: boolean; timeColumn?: boolean } = {},
): TableView {
  // rows reach the table untyped (a query's rows are `object`), each one a row of `resource`
  const model = COLUMN_MODELS[resource] as unknown as ColumnModel<object>;
  const cols = model.columns.filter((c) => opts.wide === true || c.wide !== true);
  const columns: ViewColumn[] = cols.map((c) => ({
    id: c.id,
    header: c.header,
    align: c.align,
    ...(c.min !== undefined ? { min: c.min } : {}),
    ...(c.identity === true ? { identity: true } : {}),
  }));
  if (opts.timeColumn === true) columns.unshift({ id: 'pollTime', header: 'TIME', align: 'left', flexible: false });
  const rows = new Array<ViewRow>(items.length);
  const time = opts.timeColumn === true ? 1 : 0;
  const width = cols.length + time;
  // the columns with a tone, and one shared tones array per combination of tones (rows only read them)
  const toned = cols.flatMap((c, k) => (c.tone === undefined ? [] : [k]));
  const shared = new Map<number, readonly (Tone | undefined)[]>();
  // the key is exact while TONE_CODES ** toned.length stays a safe integer
  const keyed = toned.length <= MAX_KEYED_TONES;
  // one context per observation time, one poll time text per observation time (not per row)
  let ctx: ColumnContext | undefined;
  let timeText = '';
  for (let i = 0; i < items.length; i++) {
    const { row, observedAt } = items[i]!;
    if (ctx === undefined || ctx.now !== observedAt) {
      ctx = { now: observedAt };
      if (time === 1) timeText = formatTime(observedAt);
    }
    // packed arrays (pushed, never holey): the renderers read them at full speed
    const cells: string[] = [];
    if (time === 1) cells.push(timeText);
    for (let k = 0; k < cols.length; k++) cells.push(cols[k]!.value(row, ctx));
    let key = 0;
    for (let j = 0; j < toned.length; j++) key = key * TONE_CODES + toneCode(cols[toned[j]!]!.tone!(row, ctx));
    let tones = keyed ? shared.get(key) : undefined;
    if (tones === undefined) {
      const made: (Tone | undefined)[] = [];
      for (let k = 0; k < width; k++) made.push(undefined);
      for (const k of toned) made[k + time] = cols[k]!.tone!(row, ctx);
      tones = made;
      if (keyed) shared.set(key, tones);
    }
    rows[i] = { cells, tones };
  }
  return { columns, rows };
}
