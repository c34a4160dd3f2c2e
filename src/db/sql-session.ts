/**
 * The narrow connection interface the store is written against: exactly the calls it makes.
 * better-sqlite3's Database satisfies it as it is; on PostgreSQL the synchronous bridge
 * (PgSyncDatabase) implements it. What differs between the engines beyond this is an engine
 * method (src/db/engines/store-engine.ts), never a pragma or a test of the handle's class.
 */

/** What a write statement reports. */
export interface SqlRunResult {
  readonly changes: number;
  readonly lastInsertRowid: number | bigint;
}

/** A prepared statement with parameters `P` and rows `R` (as better-sqlite3 types it). */
export interface SqlStatement<P extends unknown[] = unknown[], R = unknown> {
  run(...params: P): SqlRunResult;
  get(...params: P): R | undefined;
  all(...params: P): R[];
  iterate(...params: P): IterableIterator<R>;
  /** rows as their first column's value */
  pluck(on?: boolean): this;
  /** rows as arrays */
  raw(on?: boolean): this;
  /** integers as bigint */
  safeIntegers(on?: boolean): this;
}

/** A function a transaction runs. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the function types better-sqlite3 accepts
export type TxFunction = (...args: any[]) => unknown;

/** The arguments of a transaction's function (spelled as better-sqlite3 spells it, so its type fits). */
export type ArgsOf<F extends TxFunction> = F extends (...args: infer A) => unknown ? A : never;

/** A transaction function: call it (or `.immediate`) to write, `.deferred` to read. */
export interface SqlTransaction<F extends TxFunction> {
  (...args: ArgsOf<F>): ReturnType<F>;
  deferred(...args: ArgsOf<F>): ReturnType<F>;
  immediate(...args: ArgsOf<F>): ReturnType<F>;
}

/** An open connection to the store's database, as the store's code calls it. */
export interface SqlSession {
  readonly open: boolean;
  readonly inTransaction: boolean;
  /** `P`: the parameters' tuple (an object: named parameters, as better-sqlite3 types them) */
  prepare<P extends unknown[] | object = unknown[], R = unknown>(
    source: string,
  ): P extends unknown[] ? SqlStatement<P, R> : SqlStatement<[P], R>;
  exec(source: string): unknown;
  transaction<F extends TxFunction>(fn: F): SqlTransaction<F>;
  close(): unknown;
}
