/** The error type of the PostgreSQL bridge (a module of its own: src/db/errors.ts tells it apart from damage). */

/** An error of PostgreSQL or of the connection to it, with the server's SQLSTATE when it gave one. */
export class PgError extends Error {
  override readonly name = 'PgError';
  /** SQLSTATE (e.g. 23505), or undefined for a connection failure */
  readonly code: string | undefined;
  readonly connection: boolean;
  constructor(message: string, code: string | undefined, connection: boolean) {
    super(message);
    this.code = code;
    this.connection = connection;
  }
}
