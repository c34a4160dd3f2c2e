/**
 * How the store finds a connection's entities by uid: SQLite by conn_entity's uid column,
 * PostgreSQL by the uid inside the packed record, through the index over flightrec_entity_uid
 * (drizzle/pg/0008: the row keeps no second copy of it).
 */
import { textToSql } from '../bytes.ts';
import { uidKey } from './packed.ts';

/** The condition on conn_entity (unaliased) that matches one uid, and that uid as its parameter. */
export interface UidMatch {
  /** an SQL condition with one `?` */
  readonly where: string;
  /** the parameter of `where` for a uid */
  param(uid: string): string | Buffer;
}

const BY_COLUMN: UidMatch = { where: 'uid = ?', param: textToSql };
const BY_RECORD: UidMatch = { where: 'flightrec_entity_uid(packed) = ?', param: uidKey };

/** The uid match of a store: by column where the tables keep typed columns (SQLite), else by record. */
export function uidMatch(typed: boolean): UidMatch {
  return typed ? BY_COLUMN : BY_RECORD;
}
