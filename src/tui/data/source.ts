/**
 * What the screens read: recorded instants, gaps, state as of an instant, and the analyses of
 * src/report, behind one interface. The history implementation (history-source.ts) only calls
 * the reader and src/report; tests may use it over any database.
 */
import type { KafkaConnection } from '../../api/schema/connection.ts';
import type { IcebergStatus } from '../../api/schema/iceberg.ts';
import type { PollRow, ResourceName } from '../../api/schema/resources.ts';
import type { DiffResult } from '../../report/diff.ts';
import type { Freshness } from '../../report/freshness.ts';
import type { TimelineEvent } from '../../report/timeline/types.ts';
import { DEFAULT_THRESHOLDS, type Thresholds } from '../../report/timeline/thresholds.ts';
import type { LagMarks } from '../../report/columns/types.ts';
import type { ChangeKind } from '../glyphs.ts';
import type { Token } from '../theme.ts';

/** A stretch of time without usable data for an operation (collector down, failures). */
export interface Gap {
  readonly start: bigint;
  /** undefined while ongoing */
  readonly end: bigint | undefined;
  /** what was missing, e.g. `ListKafkaConnections: unavailable` */
  readonly reason: string;
}

/** A resource's rows answering for an instant, and the poll they come from. */
export interface StateAt<R = object> {
  readonly poll: PollRow | undefined;
  readonly rows: readonly R[];
}

/** What changed per connection since the previous poll; `gone` lists those that vanished (no longer listed, not closed). */
export interface ConnectionChanges {
  readonly kinds: ReadonlyMap<string, ChangeKind>;
  readonly gone: readonly KafkaConnection[];
  /** how many are new, closed, vanished, expired, moving, idle (the report's definitions; new and closed overlap) */
  readonly counts?: Readonly<Record<'new' | 'closed' | 'vanished' | 'expired' | 'moving' | 'idle', number>>;
  /** the previous poll compared against, when there was one */
  readonly previous?: PollRow;
}

/** One line of the overview: a label, a value, and the token (with a glyph inside the value). */
export interface Fact {
  readonly label: string;
  readonly value: string;
  readonly token?: Token;
  /** a sparkline drawn after the value */
  readonly spark?: string;
}

/** The last poll of one operation and how it went. */
export interface OperationStatus {
  readonly operation: string;
  readonly poll?: PollRow;
  readonly ok: boolean;
  /** `ok`, or the Connect error code */
  readonly outcome: string;
  /** polls of it so far, failed ones among them */
  readonly total: number;
  readonly failed: number;
}

/** Everything the overview shows at an instant. */
export interface OverviewData {
  readonly operations: readonly OperationStatus[];
  /** connection counts, rates, lags, upgrade: one fact per line */
  readonly facts: readonly Fact[];
  /** the latest timeline events at or before the instant, newest first */
  readonly events: readonly TimelineEvent[];
  /** false while the timeline is still being computed */
  readonly eventsReady: boolean;
}

/** A connection's whole recorded history and what the screen shows of it. */
export interface ConnectionDetail {
  /** the row at the cursor, or the last one seen before it (or the first after) */
  readonly row: KafkaConnection;
  /** when `row` was observed */
  readonly observedAt: bigint;
  /** every recorded sample, oldest first */
  readonly samples: readonly { readonly at: bigint; readonly row: KafkaConnection }[];
  /** named rate series with their latest value, for sparklines */
  readonly rates: readonly { readonly name: string; readonly spark: string; readonly latest: string }[];
  /** state and attribute changes over the history, oldest first */
  readonly changes: readonly { readonly at: bigint; readonly text: string }[];
}

/** A member's versions across time: where each version was first seen. */
export interface VersionStep {
  readonly at: bigint;
  readonly release: string;
  readonly logical: string;
  readonly alive: boolean;
}

/** The browser's data access. */
export interface BrowseSource {
  readonly cluster: string;
  /** the timeline's thresholds in force (its events and the browser's lag marks); default: the defaults */
  readonly thresholds?: Thresholds;
  /** the config file the thresholds come from; undefined: the defaults */
  readonly thresholdsFrom?: string;
  /** the database path, as the user gave it */
  readonly database: string;
  /** how the user starts flightrec (`flightrec`, `npx flightrec`, `node …/bin/flightrec.js`), for suggested commands */
  readonly launcher?: string;
  /** distinct poll instants (ns), ascending */
  instants(): readonly bigint[];
  /** re-reads the instants; the new list when it changed (a collector is writing), else undefined */
  refresh(): readonly bigint[] | undefined;
  /** the collection gap `at` falls in, if any */
  gapAt(at: bigint): Gap | undefined;
  /** how fresh the recording is at `asOf`: per operation its newest successful poll, stale when older than twice its interval */
  freshness?(asOf: bigint): Freshness;
  /** a resource's rows answering for `at` */
  stateAt<R = object>(resource: ResourceName, at: bigint): StateAt<R>;
  /** per connection, what changed since the poll before the one answering for `at` */
  connectionChanges(at: bigint): ConnectionChanges;
  overview(at: bigint): OverviewData;
  connection(uid: string, at: bigint): ConnectionDetail | undefined;
  /** per partition id, a lag sparkline up to `at` and the current lag text */
  partitionLags(link: string, topic: string, at: bigint): ReadonlyMap<string, string>;
  /** per member node id, its versions across the whole history */
  memberVersions(): ReadonlyMap<number, readonly VersionStep[]>;
  /** the Iceberg catalog's reachability answering for `at`, when recorded */
  icebergCatalog(at: bigint): IcebergStatus['catalog'] | undefined;
  /** true once the timeline is computed (the first frame does not wait for it) */
  timelineReady(): boolean;
  /** computes the timeline in the background (a worker thread when it can); resolves when ready */
  prepareTimeline(): Promise<void>;
  /** a recorded poll by its id (the polls an event rests on) */
  poll?(id: bigint): PollRow | undefined;
  /** the timeline events of the whole history, oldest first (computed on first use) */
  timeline(): readonly TimelineEvent[];
  diff(from: bigint, to: bigint): DiffResult;
}

/** The lag marks of a source: its thresholds in force. */
export function lagMarks(source: Pick<BrowseSource, 'thresholds'>): LagMarks {
  const t = source.thresholds ?? DEFAULT_THRESHOLDS;
  return { shadowLag: t.shadow.lagRecords, commitLag: t.iceberg.commitLag };
}
