/**
 * The SQL columns the filter engine's pre-filter may use, per resource: snake_case field path
 * to an SQL expression over the aliases of the store's own queries (`v` = conn_version,
 * `e` = conn_entity). Only connections are pre-filtered in SQL; the small resources are
 * reconstructed whole (they are few) and filtered by the compiled closure alone.
 */
import type { ResourceName } from '../api/schema/resources.ts';
import type { SqlColumn, SqlColumnMap } from './sql-column-types.ts';

const str = (col: string): string => `(SELECT s FROM str WHERE id = ${col})`;
// strings with lone surrogates are stored as UTF-16LE BLOBs, which SQL cannot compare as text
const text = (col: string): SqlColumn => ({ sql: str(col), type: 'text', unknown: 'blob' });
const inline = (sql: string): SqlColumn => ({ sql, type: 'text', unknown: 'blob' });
const enumName = (col: string): SqlColumn => ({ sql: str(col), type: 'enum_name', unknown: 'blob' });
const integer = (sql: string): SqlColumn => ({ sql, type: 'integer' });
// times beyond the int64-nanosecond range (before 1678, after 2261) are NULL here, exact in the side JSON
const time = (sql: string): SqlColumn => ({ sql, type: 'integer', unknown: 'null' });

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
  client_id: text('v.client_id'),
  client_software_name: text('v.software_name'),
  client_software_version: text('v.software_version'),
  'authentication_info.mechanism': enumName('v.mechanism'),
  'authentication_info.state': enumName('v.auth_state'),
  'authentication_info.user_principal': text('v.principal'),
  state: enumName('v.state'),
  close_time: time('v.close_time'),
  group_id: text('v.group_id'),
  group_instance_id: text('v.group_instance_id'),
  group_member_id: inline('v.group_member_id'),
  transactional_id: text('v.transactional_id'),
};

/** The pre-filter column map of a resource ({} when it is not pre-filtered in SQL). */
export function sqlColumns(resource: ResourceName): SqlColumnMap {
  return resource === 'connections' ? CONNECTION_COLUMNS : {};
}
