/**
 * What an engine of the store is: the contract each engine implements (SQLite in
 * `sqlite-engine.ts`, PostgreSQL in `pg/engine.ts`) and the registry (`engines.ts`) chooses
 * from. The store's code is written against `SqlSession` and the open engine's methods
 * (`EngineSession`); where the engines differ it calls one of those, it never tests which engine
 * it runs on.
 */
import type { SqlSession, SqlStatement } from '../sql-session.ts';

/** What a checkpoint on another connection did: the WAL frames it wrote back of those there were, or why it did not. */
/** What a checkpoint found in the write-ahead log: its frames, and how many of them are written back. */
export interface WalCheckpoint {
  readonly frames: number;
  readonly checkpointed: number;
}

/** What a checkpoint on another connection did (`ms`: its own duration there), or why it did not run. */
export type BackgroundCheckpoint =
  | { readonly ok: true; readonly frames: number; readonly checkpointed: number; readonly ms: number }
  | { readonly ok: false; readonly reason: string };

/** The engines of the store. */
export type EngineName = 'sqlite' | 'postgres';

/**
 * How an engine keeps connection history: `typed-columns` keeps typed copies of the packed
 * records' fields next to them (SQLite: the pre-filter reads them); `packed-records` keeps the
 * packed records only, a connection's first version in its entity row (PostgreSQL, where the
 * copies cost more than half of the store: src/db/engines/pg/schema.ts).
 */
export type ConnectionLayoutName = 'typed-columns' | 'packed-records';

/** Options of openDatabase. */
export interface OpenOptions {
  /** open for reading only: no migration, no write; fails when the file is missing */
  readonly readonly?: boolean;
  /** keep the raw body (gzip'd) of successful answers too, not only of failed ones */
  readonly keepRawAnswers?: boolean;
  /** milliseconds to wait for a lock held by another connection (default 5000) */
  readonly busyTimeoutMs?: number;
  /** PostgreSQL: a file holding the password (when the URL has none) */
  readonly passwordFile?: string;
}

/** The day partitions of the per-poll tables (PostgreSQL), as retention drops them. */
export interface DayPartitioning {
  /** makes the partitions of today and the next days that are missing */
  ensure(): void;
  /** drops, in one write transaction, the days whose every poll retention would remove at `cutoff` */
  dropExpired(cutoff: bigint): PartitionDrop;
}

/** One day whose partitions went. */
export interface DroppedDay {
  /** the UTC day number (days since 1970-01-01) */
  readonly day: number;
  /** the partitions dropped, per-poll tables first, the poll table's last */
  readonly partitions: readonly string[];
  readonly polls: number;
  /** stored rows: connection samples plus the rows of the other per-poll tables */
  readonly samples: number;
  /** the partitions' size on disk (tables, indexes, TOAST) */
  readonly bytes: number;
  /** the clusters whose polls went */
  readonly clusters: readonly string[];
}

/** What a drop of day partitions did. */
export interface PartitionDrop {
  readonly days: readonly DroppedDay[];
  /** connection batches removed with them (their polls of kept days included) */
  readonly batches: number;
  /** polls of kept days removed because their batch went */
  readonly batchPolls: number;
}

/** How a copy keeps poll ids on an engine that numbers them by day (PostgreSQL). */
export interface PollIdSequence {
  /** the first id of the day after the server's today: ids at or past it are not kept */
  nextDayFirstId(): bigint;
  /** moves the id sequence past the ids just kept */
  advancePastKept(): void;
}

/** An open engine: the methods the store calls where the engines differ, bound to one connection. */
export interface EngineSession {
  readonly name: EngineName;
  /** how the engine is named to the user: `SQLite`, `PostgreSQL` */
  readonly label: string;
  readonly connectionLayout: ConnectionLayoutName;
  /** bytes of packed chunks grouped in one row: about a fifth of the engine's page */
  readonly chunkGroupBytes: number;
  /** bytes of the pages in use, as this connection sees them (retention's measure) */
  usedBytes(): number;
  /** bytes the store occupies: the file and its WAL, or the store's tables on a server */
  storeBytes(): number;
  /**
   * Each table's bytes with its indexes, by table name (on PostgreSQL its partitions and TOAST
   * too); undefined where the engine cannot tell (a SQLite build without dbstat)
   */
  tableBytes(): ReadonlyMap<string, number> | undefined;
  /**
   * Names the cluster whose rows the running write transaction inserts (PostgreSQL keys every row
   * by cluster; a no-op on SQLite). A function is called only where the scope is needed.
   */
  scopeCluster(clusterId: number | (() => number)): void;
  /** whether a read can be posted ahead of need (its reply taken by the next get/all with the same arguments) */
  readonly prefetches: boolean;
  /** posts `stmt` with `args` ahead of need where the engine can: whether it was posted */
  prefetch(stmt: SqlStatement<never[]>, ...args: unknown[]): boolean;
  /** reclaims what a committed batch seal of poll `pollId` left behind; never throws */
  afterSeal(pollId: bigint): void;
  /** leaves checkpoints to the seals (the writer's own pace) where the engine has a log to checkpoint */
  deferCheckpoints(): void;
  /** writes the log back into the store and truncates it (a no-op where there is none) */
  checkpoint(): void;
  /**
   * writes back what of the log no reader still needs, without waiting for anyone; never throws.
   * What it did: the log's frames and those written back (undefined where there is no log, or the
   * checkpoint could not run now)
   */
  passiveCheckpoint(): WalCheckpoint | undefined;
  /**
   * the same on a connection of another thread, the caller's event loop free meanwhile; settles
   * (never rejects) with what it did. Absent where no other connection sees the log (no log, or an
   * in-memory database): passiveCheckpoint is then what there is
   */
  checkpointInBackground?(): Promise<BackgroundCheckpoint>;
  /** compacts the store (VACUUM) and then checkpoints */
  vacuum(): void;
  /**
   * Refreshes the planner's statistics after a bulk load (`db copy`): ANALYZE on PostgreSQL; a
   * no-op on SQLite, whose plans the store's statements fix (statistics there could change them)
   */
  refreshStatistics(): void;
  /** the page cache budget of this connection, KiB (a no-op where the server owns the cache) */
  cacheKiB(kib: number): void;
  /** the engine's own page-level check: its problems, or a note saying why there is none */
  integrityCheck(): { readonly problems: readonly string[] } | { readonly note: string };
  /** day partitions of the per-poll tables, where the engine partitions them */
  readonly partitions?: DayPartitioning;
  /** poll ids numbered by day, where the engine does */
  readonly pollIds?: PollIdSequence;
}

/** What the store's components are given: a connection and its engine. */
export interface StoreSession {
  readonly sqlite: SqlSession;
  readonly engine: EngineSession;
}

/** An open history database. */
export interface FlightrecDb extends StoreSession {
  /** the database as it may be printed: the file, or the URL without its password */
  readonly path: string;
  /** what opens it again (a worker's own connection); may hold a password: never print it */
  readonly target: string;
  readonly readonly: boolean;
  readonly keepRawAnswers: boolean;
  /** the schema version of this flightrec (= number of committed migrations) */
  readonly schemaVersion: number;
  close(): void;
}

/** An engine of the store, as the registry (src/db/engines/registry.ts) holds it. */
export interface StoreEngine {
  readonly name: EngineName;
  readonly label: string;
  /** whether a database of this engine is a local file (a path to check, a file to watch, a directory to export next to) */
  readonly file: boolean;
  /** whether `text` (a `--db` value) names a database of this engine; the file engine claims what no other does */
  claims(text: string): boolean;
  /** `text` as it may be printed (no password); throws DbTargetError when it is malformed */
  shown(text: string): string;
  /** `message` without the secrets of the database texts `texts` (URLs as typed) nor any URL's password */
  redact(message: string, texts: readonly string[]): string;
  /** the database's name, for file names (`undefined`: none given) */
  databaseName(text: string): string | undefined;
  /** where the password comes from and which TLS mode, without reading it (`undefined`: the engine has none) */
  access(text: string): { readonly passwordInUrl: boolean; readonly tls: string } | undefined;
  /** whether each thread should write through a connection of its own (a server: writes do not wait for one another's round trips) */
  writesFromOwnThread(text: string): boolean;
  /** opens (creating and migrating unless read-only) the database `text` names */
  open(text: string, opts: OpenOptions): FlightrecDb;
}
