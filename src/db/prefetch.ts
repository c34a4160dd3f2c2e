/**
 * Reads posted ahead of need. On PostgreSQL a statement can be sent without waiting for its
 * reply (PgStatement.prefetch): the server runs it while this thread decodes what it already
 * has, and the next get/all with the same arguments in the read transaction takes the reply.
 * better-sqlite3 reads in this thread, so there it does nothing.
 */

type Prefetching = { prefetch?: (...args: unknown[]) => boolean };

/** Whether `stmt`'s engine can post reads ahead (PostgreSQL); false on SQLite. */
export function canPrefetch(stmt: object): boolean {
  return typeof (stmt as Prefetching).prefetch === 'function';
}

/** Posts `stmt` with `args` ahead of need where the engine allows it (PostgreSQL, in a read transaction): whether it was posted. */
export function prefetch(stmt: object, ...args: unknown[]): boolean {
  const s = stmt as Prefetching;
  return typeof s.prefetch === 'function' && s.prefetch(...args);
}
