/** The error type of the PostgreSQL bridge, declared with the store's errors (src/db/errors.ts tells it apart from damage). */
export { PgError } from '../../errors.ts';
