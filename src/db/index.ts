/** The history store: open a database, write polls, read history. */
export { readSqliteFileAsIs } from './engines/sqlite.ts';
export { openDatabase, migrationsFolder, type FlightrecDb, type OpenOptions } from './engines/open.ts';
export {
  CorruptDataError,
  DatabaseOpenError,
  DatabaseVersionError,
  HistoryQueryError,
  PollWriteError,
  DbTargetError,
  PgError,
  type DamageSite,
} from './errors.ts';
export {
  droppedPartitionsOf,
  engineFor,
  ENGINES,
  isDbUrl,
  redactDbTexts,
  redactUrlPasswords,
  shownDbTarget,
} from './engines/registry.ts';
export type {
  BackgroundCheckpoint,
  EngineName,
  EngineSession,
  StoreEngine,
  StoreSession,
  WalCheckpoint,
} from './engines/store-engine.ts';
export { CHECKPOINT_WAIT_MS, checkpointAnswer, type CheckpointReply } from './engines/sqlite-checkpoint.ts';
export type { SqlSession, SqlStatement } from './sql-session.ts';
export { createHistoryWriter, type FlightrecWriter, type HistoryWriterOptions } from './write/writer.ts';
export {
  createHistoryReader,
  type HistoryReader,
  type ConnectionVersionsAt,
  type ReadOptions,
  type ReconstructedPoll,
  type Sample,
  type StateAt,
} from './read/reader.ts';
export type { NarrowFrame as ConnectionFrame } from './connections/narrow-frames.ts';
export type { CounterFrame, TotalCounter } from './read/counter-frames.ts';
export type { ConnectionVersion } from './connections/rows.ts';
export {
  openHistoryMaintenance,
  type HistoryMaintenance,
  type PruneResult,
  type StoreStats,
} from './maintain/maintenance.ts';
export { checkStore, type Damage, type StoreCheck } from './maintain/check.ts';
export type { EmptiedOperation, PrunePlan } from './maintain/prune-plan.ts';
export { CONNECTION_COLUMNS } from './read/sql-columns.ts';
export type { SqlColumn, SqlColumnMap } from './read/sql-column-types.ts';
export { StoreLostError, StoreRefusedError } from './poll-record.ts';
export type {
  ClusterLeases,
  FileCheck,
  HistoryWriter,
  LeaseState,
  PollCoverage,
  PollFailure,
  PollRecord,
  PollSuccess,
  StoredPoll,
} from './poll-record.ts';
export { openRecordingStore, type RecordingStore, type RecordingStoreOptions } from './write/recording-store.ts';
export { sqliteLeases } from './write/lease.ts';
export {
  createRollupStore,
  EVENTS_PROGRESS,
  type RollupBatch,
  type RollupBucket,
  type RollupConnRow,
  type RollupCoverage,
  type RollupGroupKey,
  type RollupIcebergRow,
  type RollupReader,
  type RollupShadowRow,
  type RollupStore,
  type StateInterval,
  type StoredEvent,
} from './rollups/rollup-store.ts';
export { RetentionPruner, usedBytes, type RetentionStep } from './maintain/retention.ts';
export {
  readMaintenanceLog,
  recordMaintenance,
  type MaintenanceAction,
  type MaintenanceEntry,
} from './maintain/maintenance-log.ts';
export { heldRanges, type HeldRange } from './maintain/held-ranges.ts';
export {
  CopyConflictError,
  startHistoryCopy,
  type CopyExtras,
  type CopyOptions,
  type HistoryCopy,
} from './maintain/copy.ts';
export { recordedPolls, type RecordedPoll, type RecordedPolls } from './read/recorded-polls.ts';
