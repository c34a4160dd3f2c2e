/**
 * How the store finds a connection's entities by uid: SQLite by conn_entity's uid column,
 * PostgreSQL by the uid inside the packed record, through the b-tree over a hash of it
 * (drizzle/pg/0008 and 0009: the row keeps no second copy of the uid).
 */
import { textToSql } from '../encoding/bytes.ts';
import { uidKey } from './packed.ts';

/** The condition on conn_entity (unaliased) that matches one uid, and its parameters for a uid. */
export interface UidMatch {
  /** an SQL condition with a `?` for each of `params`' values */
  readonly where: string;
  /** the parameters of `where` for a uid */
  params(uid: string): unknown[];
}

const BY_COLUMN: UidMatch = { where: 'uid = ?', params: (uid) => [textToSql(uid)] };

// the index finds the hash; the keys are compared too, as two uids may share a hash
const BY_RECORD: UidMatch = {
  where:
    'flightrec_uid_hash(flightrec_entity_uid(packed)) = flightrec_uid_hash(?) AND flightrec_entity_uid(packed) = ?',
  params: (uid) => {
    const key = uidKey(uid);
    return [key, key];
  },
};

/** The uid match of a store: by column where the tables keep typed columns (SQLite), else by record. */
export function uidMatch(typed: boolean): UidMatch {
  return typed ? BY_COLUMN : BY_RECORD;
}
