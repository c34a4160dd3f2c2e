/**
 * The SQL columns the filter engine's pre-filter may use, per resource: snake_case field path
 * to an SQL expression over the aliases of the store's own queries (`v` = conn_version,
 * `e` = conn_entity). Only connections are pre-filtered in SQL; the small resources are
 * reconstructed whole (they are few) and filtered by the compiled closure alone.
 */
import type { ResourceName } from '../../api/schema/resources.ts';
import type { SqlColumn, SqlColumnMap } from './sql-column-types.ts';
import { FIELDS } from '../connections/slow.ts';

const str = (col: string): string => `(SELECT s FROM str WHERE id = ${col})`;
// strings with lone surrogates are stored as UTF-16LE BLOBs, which SQL cannot compare as text
const text = (col: string): SqlColumn => ({ sql: str(col), type: 'text', unknown: 'blob' });
const inline = (sql: string): SqlColumn => ({ sql, type: 'text', unknown: 'blob' });
const enumName = (col: string): SqlColumn => ({ sql: str(col), type: 'enum_name', unknown: 'blob' });
const integer = (sql: string): SqlColumn => ({ sql, type: 'integer' });
// times beyond the int64-nanosecond range (before 1678, after 2261) are NULL here, exact in the side JSON
const time = (sql: string): SqlColumn => ({ sql, type: 'integer', unknown: 'null' });

/** snake_case of a field name. */
const snake = (name: string): string => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The pre-filter columns of the slow fields (connections/fields.ts), by snake_case field path. */
function versionColumns(): SqlColumnMap {
  const out: Record<string, SqlColumn> = {};
  for (const f of FIELDS) {
    const col = `v.${f.column}`;
    const late = f.late === true ? { nullAs: '' } : {};
    let c: SqlColumn;
    if (f.kind === 'text') c = { ...text(col), ...late };
    else if (f.kind === 'enum') c = { ...enumName(col), ...late };
    else if (f.kind === 'inline') c = inline(col);
    else if (f.kind === 'time') c = time(col);
    else continue; // maps and optional strings: no SQL column, the exact evaluation decides
    out[f.path.map(snake).join('.')] = c;
  }
  return out;
}

/** Connection columns (identity and slowly changing attributes; fast values live in blobs). */
export const CONNECTION_COLUMNS: SqlColumnMap = {
  uid: inline('e.uid'),
  node_id: integer('e.node_id'),
  shard_id: integer('e.shard_id'),
  listener_name: text('e.listener'),
  'source.ip_address': inline('e.source_ip'),
  'source.port': integer('e.source_port'),
  'tls_info.enabled': { sql: 'e.tls', type: 'bool' },
  open_time: time('e.open_time'),
  ...versionColumns(),
};

/**
 * Connection columns where the store keeps the packed records only (PostgreSQL,
 * drizzle/pg/0006): none, not even the uid, which the records alone hold (drizzle/pg/0008); the
 * filter engine decides on the decoded connections, with the same answers.
 */
export const PACKED_CONNECTION_COLUMNS: SqlColumnMap = {};

/** The pre-filter column map of a resource ({} when it is not pre-filtered in SQL); `typed`: the typed-columns layout (store-engine.ts). */
export function sqlColumns(resource: ResourceName, typed = true): SqlColumnMap {
  if (resource !== 'connections') return {};
  return typed ? CONNECTION_COLUMNS : PACKED_CONNECTION_COLUMNS;
}
