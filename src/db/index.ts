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
export type { ConnectionVersion } from './conn-rows.ts';
export type { PruneResult, StoreStats } from './maintenance.ts';
export { CONNECTION_COLUMNS } from './sql-columns.ts';
export type { HistoryWriter, PollCoverage, PollFailure, PollRecord, PollSuccess } from './poll-record.ts';
