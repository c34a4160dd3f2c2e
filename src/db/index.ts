/** The history store: open a database, write polls, read history. */
export { openDatabase, migrationsFolder, type FlightrecDb, type OpenOptions } from './open.ts';
export { DatabaseOpenError, DatabaseVersionError, HistoryQueryError, PollWriteError } from './errors.ts';
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
export type { ConnectionVersion } from './conn-codec.ts';
export type { PruneResult, StoreStats } from './maintenance.ts';
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
