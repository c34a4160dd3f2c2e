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
import type { ColumnModel, Tone } from './types.ts';
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
  const rows = items.map(({ row, observedAt }): ViewRow => {
    const ctx = { now: observedAt };
    const cells = cols.map((c) => c.value(row, ctx));
    const tones = cols.map((c) => c.tone?.(row, ctx));
    if (opts.timeColumn === true) {
      cells.unshift(formatTime(observedAt));
      tones.unshift(undefined);
    }
    return { cells, tones };
  });
  return { columns, rows };
}
