/** The history store: open a database, write polls, read history. */
export { openDatabase, migrationsFolder, type FlightrecDb, type OpenOptions } from './open.ts';
export { CorruptDataError, DatabaseOpenError, DatabaseVersionError, HistoryQueryError, PollWriteError, type DamageSite } from './errors.ts';
export { createHistoryWriter, type FlightrecWriter, type HistoryWriterOptions } from './writer.ts';
export {
  createHistoryReader,
  type Gap,
  type HistoryReader,
  type ReadOptions,
  type ReconstructedPoll,
  type Sample,
  type StateAt,
} from './reader.ts';
export type { ConnectionFrame } from './conn-stream.ts';
export type { ConnectionVersion } from './conn-rows.ts';
export type { PruneResult, StoreStats } from './maintenance.ts';
export { checkStore, type Damage, type StoreCheck } from './check.ts';
export type { EmptiedOperation, PrunePlan } from './prune-plan.ts';
export { CONNECTION_COLUMNS } from './sql-columns.ts';
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
export { openRecordingStore, type RecordingStore, type RecordingStoreOptions } from './recording-store.ts';
export { sqliteLeases } from './lease.ts';
export { RetentionPruner, usedBytes, type RetentionStep } from './retention.ts';
export { readMaintenanceLog, recordMaintenance, type MaintenanceAction, type MaintenanceEntry } from './maintenance-log.ts';
export { heldRanges, type HeldRange } from './held-ranges.ts';
